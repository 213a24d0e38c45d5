"""What an HTML report shows, as plain JSON-able data (no HTML here).

One ``RunData`` per run directory: the summary, pass rate by each difficulty
axis with 95% CIs, the error-class and root-cause (``dissect.jsonl``)
distributions, and one row per result with everything the drill-down needs —
the task, the spans of the clauses the verdict blames, the tool calls, the
model's replies, the verdict's evidence. Everything here is untrusted text;
escaping is the renderer's job, and the renderer never interprets it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ..analysis.dissect import CAUSES, read_rows, significance
from ..analysis.robustness import robustness, robustness_lines
from ..analysis.stats import wilson_interval
from ..analysis.summary import RunSummary, Tally, summarize, timeout_limit
from ..errors import PlanprobeError
from ..llm_judge.apb_run import judgement_lines
from ..runner.findings import underspecified_lines, underspecified_rows
from ..runner.store import RunStore
from ..schema import ErrorClass
from ..suites.base import HighlightsEvidence, has_capability
from ..suites.registry import get_family
from ..suites.travelplanner.submission import run_figure_lines, run_figures
from .subtask_graph import graph_layout

# A reply or tool result longer than this is cut in the drill-down (and says so),
# so one runaway model cannot make a report of hundreds of megabytes.
MAX_TEXT = 4000


def clip(text: str | None, limit: int = MAX_TEXT) -> str:
    if not text:
        return ""
    if len(text) <= limit:
        return text
    return text[:limit] + f" … [{len(text) - limit} more characters]"


@dataclass
class Curve:
    """Pass rate against one difficulty axis (e.g. the number of actions) of one family: two
    families may use one axis name for different measures (a constraint task's constraints are
    not an itinerary's), so a curve never mixes them."""

    axis: str
    points: list[dict[str, Any]]  # {"x", "cases", "passed", "rate", "lo", "hi"}
    family: str = ""


@dataclass
class RunData:
    name: str
    directory: str
    summary: RunSummary
    curves: list[Curve]
    errors: dict[str, int]
    root_causes: dict[str, int]  # per dissected case (dissect.jsonl), not per result
    cases: dict[str, dict[str, Any]]  # case id -> {"task", "topic", "difficulty"}: shared by its rows
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    robustness: list[str] = field(default_factory=list)  # refusal calibration etc., for variant runs
    travelplanner: list[str] = field(default_factory=list)  # TravelPlanner's six figures (official and --strict)
    solver_findings: list[str] = field(default_factory=list)  # what the solver found the text does not say
    judgements: list[str] = field(default_factory=list)  # LLM-judge summaries (APB's scores, judged pass rate)
    api_bank: list[str] = field(default_factory=list)  # API-Bank's official figures and PMC's, for API-Bank runs
    # the chance baseline's causes over the same dissected cases; None when not measured for all of them
    root_cause_baseline: dict[str, int] | None = None
    # each cause's one-sided p against its baseline, as text ("= by construction" for Probability)
    root_cause_p: dict[str, str] | None = None

    def head(self) -> dict[str, Any]:
        s = self.summary.to_json()
        return {
            "name": self.name, "agent": s["agent"], "model": s["model"], "suite": s["suite"],
            "cases": s["cases"], "passed": s["passed"], "pass_rate": s["pass_rate"], "ci95": s["ci95"],
            "infra": s["infra"], "pending": s["pending"], "suite_cases": s["suite_cases"], "trials": s["trials"],
            "usage": s["usage"],
        }


def error_label(error: str, status: str) -> str:
    """The error class as the distribution shows it: a timeout says which limit ended it."""
    limit = timeout_limit(error, status)
    return f"{error} ({limit.replace('_', ' ')})" if limit else error


def _highlights(case: dict[str, Any], verdict: dict[str, Any]) -> list[list[int]]:
    """Character spans of the task the verdict blames, if the family can say."""
    if verdict.get("passed"):
        return []
    cited = {cid for ev in verdict.get("evidence") or [] for cid in ev.get("constraint_ids") or []}
    if not cited:
        return []
    try:
        family = get_family(case["family"])
        if not has_capability(family, HighlightsEvidence):
            return []
        n = len(case.get("task") or "")
        spans = cast(HighlightsEvidence, family).evidence_spans(case.get("spec") or {}, cited)
        return [[a, b] for a, b in spans if 0 <= a < b <= n]
    except (PlanprobeError, KeyError, TypeError, ValueError, IndexError):
        return []  # an odd case gets no highlight; the report still renders



def _row(case: dict[str, Any], trace: dict[str, Any], verdict: dict[str, Any], cause: str | None) -> dict[str, Any]:
    """One result as the page needs it; reads the stored JSON as plain data (no
    model validation: 10,000 of them must load in about a second)."""
    calls = [{
        "n": c.get("name", ""), "a": clip(c.get("arguments")), "r": clip(c.get("result")), "e": c.get("error") or "",
        "at": c.get("attempt", 0), "by": c.get("episode") or c.get("agent") or "",
    } for c in trace.get("tool_calls") or []]
    replies = [clip(m.get("content")) for m in trace.get("messages") or []
               if m.get("role") == "assistant" and m.get("content")]
    usage = trace.get("usage") or {}
    errors = verdict.get("errors") or []
    infra = ErrorClass.INFRA.value in errors
    return {
        "id": case["id"],
        "trial": trace.get("trial", 0),
        "passed": bool(verdict.get("passed")),
        "infra": infra,
        "error": errors[0] if errors and not verdict.get("passed") else "",
        "errors": errors,
        "status": trace.get("status", ""),
        "cause": cause or "",
        "wall": round(float(trace.get("wall_time_s") or 0.0), 3),
        "tokens": int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0),
        "marks": _highlights(case, verdict),
        "calls": calls,
        "replies": replies,
        "final": clip(trace.get("final_answer")),
        "evidence": [{"error": e.get("error", ""), "kind": e.get("kind", ""), "symbolic": e.get("symbolic", ""),
                      "text": e.get("text", ""), "step": e.get("step")} for e in verdict.get("evidence") or []],
        "trace_errors": [f"{e.get('kind', '')}: {clip(e.get('message'), 500)}" for e in trace.get("errors") or []],
        "checker": verdict.get("checker", ""),
        "judged": verdict.get("oracle") == "judged",
        "graph": graph_layout(trace),  # PMC's sub-task graph, None for other agents
    }


def read_root_causes(run_dir: Path) -> dict[str, str]:
    """case id -> root cause, from ``planprobe dissect``'s output if there is any (a Phrasing
    cause with the words it names: "Phrasing: after")."""
    return {cid: str(row.get("cause")) + (": " + ", ".join(map(str, row["connectives"]))
                                          if row.get("connectives") else "")
            for cid, row in read_rows(run_dir).items()}


def root_cause_tables(run_dir: Path) -> tuple[dict[str, int], dict[str, int] | None]:
    """Cause counts over the dissected cases, and their chance-baseline counts (None unless
    every dissected case has one), both in Alg. 2's order."""
    rows = list(read_rows(run_dir).values())
    if not rows:
        return {}, None
    causes = Counter(str(r.get("cause")) for r in rows)
    has_base = all("baseline_cause" in r for r in rows)
    base = Counter(str(r["baseline_cause"]) for r in rows) if has_base else Counter()
    order = [*CAUSES, *sorted((set(causes) | set(base)) - set(CAUSES))]  # every cause, zeros included
    return {c: causes.get(c, 0) for c in order}, ({c: base.get(c, 0) for c in order} if has_base else None)


def root_cause_tests(run_dir: Path) -> dict[str, str] | None:
    """Each cause's test against its chance baseline (``dissect.significance``) as the report
    shows it; None unless every dissected case has a baseline."""
    rows = list(read_rows(run_dir).values())
    if not rows or not all("baseline_cause" in r for r in rows):
        return None
    tests = significance(rows)
    out = {}
    for c in CAUSES:
        p = tests[c].get("p_value")
        out[c] = "= by construction" if p is None else (f"{p:.2g}" if p < 0.001 else f"{p:.3f}")
    return out


MAX_POINTS = 12  # an axis with more distinct values (e.g. words) is binned into this many ranges


def _binned(tallies: dict[float, Tally]) -> dict[float, Tally]:
    """At most MAX_POINTS points: equal-width ranges, each drawn at its lower end."""
    if len(tallies) <= MAX_POINTS:
        return tallies
    lo, hi = min(tallies), max(tallies)
    width = (hi - lo) / MAX_POINTS
    out: dict[float, Tally] = defaultdict(Tally)
    for x, t in tallies.items():
        edge = lo + width * min(MAX_POINTS - 1, int((x - lo) / width))
        b = out[round(edge)]
        b.cases += t.cases
        b.passed += t.passed
        b.errors.update(t.errors)
    return out


def _curves(rows: list[dict[str, Any]], cases: dict[str, dict[str, Any]], families: dict[str, str]) -> list[Curve]:
    """One curve per (family, difficulty axis) with at least two values; ``families``: case id -> family."""
    by_axis: dict[tuple[str, str], dict[float, Tally]] = defaultdict(lambda: defaultdict(Tally))
    for r in rows:
        if r["infra"]:
            continue
        for axis, value in cases[r["id"]]["difficulty"].items():
            if isinstance(value, (int, float)):
                by_axis[families.get(r["id"], ""), axis][value].add(r["passed"], r["error"])
    curves = []
    for family, axis in sorted(by_axis):
        tallies = _binned(by_axis[family, axis])
        if len(tallies) < 2:
            continue  # one value is not a curve
        points = []
        for x in sorted(tallies):
            t = tallies[x]
            lo, hi = wilson_interval(t.passed, t.cases)
            points.append({"x": int(x) if float(x).is_integer() else x, "cases": t.cases, "passed": t.passed,
                           "rate": t.passed / t.cases, "lo": lo, "hi": hi})
        curves.append(Curve(axis, points, family))
    return curves


def load_run(run_dir: Path, name: str | None = None) -> RunData:
    """Read one run directory into report data (finished results only)."""
    store = RunStore(run_dir)
    try:
        summary = summarize(store)
        robust = robustness_lines(robustness(store))
        travelplanner = run_figure_lines(run_figures(store))  # TravelPlanner's official figures, for its cases
        findings = underspecified_lines(underspecified_rows(store))  # what the solver found the text does not say
        from ..analysis.apibank import api_bank_lines, api_bank_metrics

        api_bank = api_bank_lines(api_bank_metrics(store))
        raw_cases = {c["id"]: c for c in map(json.loads, store.raw_cases())}
        causes = read_root_causes(run_dir)
        rows = []
        for trace_json, verdict_json in store.raw_results():
            trace, verdict = json.loads(trace_json), json.loads(verdict_json)
            case = raw_cases[trace["case_id"]]
            rows.append(_row(case, trace, verdict, None if verdict.get("passed") else causes.get(case["id"])))
    finally:
        store.close()
    cases = {cid: {"task": c.get("task", ""), "topic": (c.get("meta") or {}).get("topic") or "",
                   "difficulty": (c.get("meta") or {}).get("difficulty") or {}} for cid, c in raw_cases.items()}
    notes = []
    if summary.pending:
        notes.append(f"{summary.pending} of {summary.suite_cases * summary.trials} results are not finished yet; "
                     "this report covers the finished ones (resume the run with the same 'planprobe run' command)")
    if summary.infra:
        notes.append(f"{summary.infra} results failed for infrastructure reasons and are left out of every rate")
    if not rows:
        notes.append("the run has no finished results yet")
    errors = Counter(error_label(r["error"], r["status"]) for r in rows
                     if not r["passed"] and not r["infra"] and r["error"])
    root, baseline = root_cause_tables(run_dir)
    families = {cid: str(c.get("family") or "") for cid, c in raw_cases.items()}
    return RunData(
        name=name or Path(run_dir).name or str(run_dir), directory=str(run_dir), summary=summary,
        curves=_curves(rows, cases, families), errors=dict(sorted(errors.items())), root_causes=root,
        cases=cases, rows=rows, notes=notes, robustness=robust, travelplanner=travelplanner,
        solver_findings=findings, root_cause_baseline=baseline,
        root_cause_p=root_cause_tests(run_dir),
        judgements=judgement_lines(run_dir), api_bank=api_bank,
    )
