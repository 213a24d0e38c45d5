"""Submission files in TravelPlanner's format (JSONL, one ``{"idx", "query",
"plan"}`` per query in split order; ``plan`` null when nothing was delivered),
checked as its format checker checks them (every plan must be readable by the
evaluator; planprobe names the line and field where it would fail), and scored
with the official figures and the strict reading; and the run summary block
(``show`` / ``report``) computed from stored verdict labels.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...atomic import write_lines_atomic
from ...errors import PlanprobeError
from ..io import parse_json_line
from .evaluate import Evaluator
from .evaluation import PlanEvaluation
from .fields import QueryFields
from .metrics import Tally, figure_lines
from .plan import format_problem
from .sandbox import Sandbox


def read_submission(path: Path, queries: list[QueryFields]) -> list[list[dict[str, Any]] | None]:
    """The plans of a submission, in query order; one line per problem, naming it."""
    path = Path(path)
    if not path.is_file():
        raise PlanprobeError(f"{path}: no such file")
    plans: list[list[dict[str, Any]] | None] = []
    with path.open(encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            row = parse_json_line(line, where)
            if not isinstance(row, dict) or "plan" not in row:
                raise PlanprobeError(f"{where}: field 'plan' is missing")
            k = len(plans)
            if k >= len(queries):
                raise PlanprobeError(f"{where}: more plans than the {len(queries)} queries")
            if "idx" in row and row["idx"] != k + 1:
                raise PlanprobeError(f"{where}: field 'idx': expected {k + 1} (plans follow the queries' order)")
            problem = format_problem(row["plan"], queries[k].days)
            if problem is not None:
                raise PlanprobeError(f"{where}: {problem}")
            plans.append(row["plan"] or None)
    if len(plans) != len(queries):
        raise PlanprobeError(f"{path}: {len(plans)} plans for {len(queries)} queries")
    return plans


def score(queries: list[QueryFields], plans: list[list[dict[str, Any]] | None], box: Sandbox,
          progress=None) -> dict[str, Any]:
    """Official and strict figures, and every constraint per plan."""
    official, strict = Tally(), Tally()
    per_plan = []
    for k, (q, plan) in enumerate(zip(queries, plans)):
        ev: PlanEvaluation | None = Evaluator(q, box).evaluate(plan) if plan else None
        sev: PlanEvaluation | None = Evaluator(q, box, strict=True).evaluate(plan) if plan else None
        official.add(q.hard_total(), ev)
        strict.add(q.hard_total(), sev)
        per_plan.append({"idx": k + 1, "official": ev.to_json() if ev else None,
                         "strict": sev.to_json() if sev else None})
        if progress is not None:
            progress()
    return {"official": official.to_json(), "strict": strict.to_json(), "plans": per_plan}


def submission_lines(run_dir: Path) -> Iterator[str]:
    """A run's plans as submission lines (first trial; cases of one mode, in split order)."""
    from ...runner.store import RunStore
    from .plan import read_answer

    store = RunStore(run_dir)
    try:
        cases = {c["id"]: c for c in map(json.loads, store.raw_cases()) if c.get("family") == "travelplanner"}
        answers: dict[str, str | None] = {}
        for trace_json, _ in store.raw_results():
            trace = json.loads(trace_json)
            if trace.get("trial", 0) == 0 and trace["case_id"] in cases:
                answers[trace["case_id"]] = trace.get("final_answer")
    finally:
        store.close()
    if not cases:
        raise PlanprobeError(f"{run_dir}: the run has no TravelPlanner cases")
    modes = {c["spec"]["mode"] for c in cases.values()}
    if len(modes) > 1:
        raise PlanprobeError(f"{run_dir}: the run mixes modes ({', '.join(sorted(modes))}); a submission has one")
    missing = [cid for cid in cases if cid not in answers]
    if missing:
        raise PlanprobeError(f"{run_dir}: {len(missing)} cases have no finished result (first: {missing[0]})")
    ordered = sorted(cases.values(), key=lambda c: c["spec"]["idx"])
    for k, case in enumerate(ordered, 1):
        plan, _ = read_answer(answers[case["id"]])
        if plan is not None and format_problem(plan, case["spec"]["fields"]["days"]) is not None:
            plan = None
        yield json.dumps({"idx": k, "query": case["spec"]["fields"].get("query", ""), "plan": plan},
                         ensure_ascii=False)


def write_submission(run_dir: Path, output: Path) -> int:
    return write_lines_atomic(output, submission_lines(run_dir))


def run_figures(store) -> dict[str, Any]:
    """The official (and strict) figures of a run's TravelPlanner results; empty when it has none.
    Infrastructure failures are left out; any other unfinished episode counts as not delivered."""
    tallies = {"official": Tally(), "strict": Tally()}
    found = False
    for _, verdict_json in store.raw_results():
        verdict = json.loads(verdict_json)
        labels = (verdict.get("labels") or {}).get("travelplanner")
        if labels is None or "infra" in (verdict.get("errors") or []):
            continue
        found = True
        for reading, tally in tallies.items():
            ev = PlanEvaluation.from_json(labels[reading]) if labels.get("delivered") else None
            tally.add(int(labels["hard_total"]), ev)
    return {k: t.to_json() for k, t in tallies.items()} if found else {}


def run_figure_lines(data: dict[str, Any]) -> list[str]:
    if not data:
        return []
    return figure_lines(data["official"], "TravelPlanner (official)") + \
        figure_lines(data["strict"], "TravelPlanner (--strict)")
