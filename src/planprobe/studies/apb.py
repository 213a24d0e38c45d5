"""The APB study (seed 001: "Agent Planning Benchmark: A Diagnostic Framework for Planning
Capabilities in LLM Agents"): its six splits — holistic planning, holistic with extraneous
tools, holistic unsolvable, step-wise planning (horizons 1-3), step-wise with extraneous tools,
step-wise with a broken tool — and cost-aware planning, on one model.

Two sources, each in ``DIR/runs/<name>``:

* planprobe's own generated cases (always): the same regimes built with ``generate constraints
  --transform … --protocol …`` (docs/protocols.md, docs/robustness.md), judged by their exact
  oracles — so the figures are not APB's data set's, and say so;
* APB's data set (``--apb-data FILE``, with APB's prompts from ``--apb-code DIR`` or
  ``$PLANPROBE_APB_CODE``): imported as ``planprobe import apb`` does, run, and judged by APB's
  judge (``planprobe judge --style apb``'s library code) when ``--judge-model`` is given.

Beyond the paper: with ``--judge-model``, planprobe's rubric judge also grades the generated
runs, and its agreement with the exact oracle on the same traces (Cohen's κ) is a planprobe row.
The paper's figures are not shipped (docs/published-figures.md): its tables are images in the
project's copy of the paper.
"""

from __future__ import annotations

import asyncio
import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from .base import (
    Cell,
    Measure,
    Missing,
    Setting,
    StudyContext,
    StudyOutcome,
    StudyTable,
    TableRow,
)
from .paper_data import find_published
from .runs import run_study_suite

PAPER = "Agent Planning Benchmark: A Diagnostic Framework for Planning Capabilities in LLM Agents (APB), seed 001"
EXTRANEOUS = 3
# (run name, APB's split, regime, transforms, protocol, steps)
REGIMES = (
    ("holistic", "holistic_planning", "Holistic", (), "holistic", 1),
    ("holistic-extraneous", "holistic_tool_extraneous", "Holistic", (f"extraneous:{EXTRANEOUS}",), "holistic", 1),
    ("holistic-unsolvable", "holistic_unsolvable", "Holistic", ("unsolvable",), "holistic", 1),
    ("stepwise-1", "step_wise_planning", "Step-wise", (), "stepwise", 1),
    ("stepwise-2", "step_wise_planning", "Step-wise", (), "stepwise", 2),
    ("stepwise-3", "step_wise_planning", "Step-wise", (), "stepwise", 3),
    ("stepwise-extraneous", "step_wise_tool_extraneous", "Step-wise", (f"extraneous:{EXTRANEOUS}",), "stepwise", 1),
    ("stepwise-broken", "step_wise_tool_broken", "Step-wise", ("broken",), "stepwise", 1),
    ("cost-aware", "cost-aware planning", "Holistic", ("cost",), "holistic", 1),
)
APB_SPLITS = ("holistic_planning", "holistic_tool_extraneous", "holistic_unsolvable", "step_wise_planning",
              "step_wise_tool_extraneous", "step_wise_tool_broken")
DOWNLOAD = ("APB's data set and code: git clone https://github.com/Mikivishy/AgentPlanningBenchmark (the split files "
            "under data/, e.g. data/holistic_planning.jsonl; its evaluation/apb_eval/prompts.py is read by "
            "--apb-code DIR or $PLANPROBE_APB_CODE)")
NOT_PUBLISHED = ("APB's published figures are not shipped: the project's copy of the paper shows its tables as "
                 "images and states none of their numbers (docs/published-figures.md)")


@dataclass(frozen=True)
class APBSize:
    n: int  # generated cases per regime
    actions: tuple[int, int]
    apb_limit: int | None  # APB records run (None: every one)


# quick: 2 cases per regime (the unsolvable regime needs one unsolvable case and one solvable control)
SIZES = {"full": APBSize(100, (3, 8), None), "quick": APBSize(2, (3, 4), 10), "tiny": APBSize(3, (3, 4), 6)}


class APBStudy:
    name = "apb"
    paper = PAPER
    description = ("APB: holistic and step-wise planning, extraneous and broken tools, unsolvable tasks and "
                   "cost-aware planning (planprobe's exact oracles; APB's data with its judge via --apb-data)")
    needs = ("nothing for planprobe's generated cases; APB's data set (--apb-data FILE, with --apb-code DIR and "
             "--judge-model) for APB's own figures")

    def settings(self, size: str) -> list[Setting]:
        s = SIZES[size]
        return [
            Setting("splits", ", ".join(APB_SPLITS), "APB's six splits (its code's SPLITS; the paper's five settings: "
                                                     "holistic, step-wise, extraneous, broken, unsolvable)"),
            Setting("planning regimes", "holistic (the whole plan as JSON, nothing executed); step-wise (the next "
                                        "k steps after a gold prefix)", "APB §3 (planning protocols, Fig. 2 (B))"),
            Setting("step-wise horizons", "k = 1, 2, 3", "APB's prediction_horizon (1-3; Fig. 5: performance across "
                                                         "horizons)"),
            Setting("generated cases per regime", s.n, "not APB's data: planprobe's constraint tasks with exact "
                                                       "oracles (APB has 4,209 cases over 22 domains)", chosen=True),
            Setting("actions per case", f"{s.actions[0]}-{s.actions[1]}", "long enough for step-wise "
                                                                          "prefixes", chosen=True),
            Setting("extraneous tools", EXTRANEOUS, "APB adds semantically related distractors (Figs. 25, 37-40) "
                                                    "without a count stated in the text: planprobe's K",
                    chosen=True),
            Setting("broken tools", "step-wise only", "APB's step_wise_tool_broken (Fig. 24, 36): a tool fails and a "
                                                      "replacement exists; holistic plans cannot meet a failure"),
            Setting("unsolvable", "half the cases, removal / contradiction / missing information; solvable controls",
                    "APB's unsolvable types (Figs. 54-57; visual inaccessibility has no text analogue)"),
            Setting("cost-aware planning", "every tool priced, cheaper composites; the exact minimum is the bar",
                    "APB's cost-aware setting; planprobe's --transform cost (docs/robustness.md)", chosen=True),
            Setting("judge (APB's data)", "APB's judge prompts and scoring (judge --style apb)",
                    "APB's evaluation/apb_eval (docs/judge.md); the judge model is --judge-model"),
            Setting("APB records run", "every one" if s.apb_limit is None else f"the first {s.apb_limit}",
                    "APB's split files as given", chosen=s.apb_limit is not None),
            Setting("temperature", 0, "APB's runner: temperature 0"),
            Setting("judge κ", "planprobe's rubric judge (one sample) against the exact oracle on the generated runs",
                    "not in the paper: planprobe's row", chosen=True),
        ]

    def steps(self, size: str) -> list[str]:
        return [f"run {r[0]}" for r in REGIMES] + ["judge κ", "run apb-data", "judge apb-data"]

    def check_data(self, directory: Path, options: dict[str, Any]) -> None:
        if options.get("judge_model"):  # an unknown judge is one line now, not after the runs
            from ..models import model_entry

            model_entry(str(options["judge_model"]))
        data = options.get("apb_data")
        if data is None:
            if options.get("apb_code"):  # read only with APB's data: ignoring it silently would mislead
                raise PlanprobeError(f"--apb-code {options['apb_code']}: APB's prompts are read for its data set; "
                                     f"give --apb-data FILE too. {DOWNLOAD}")
            return
        if not Path(data).is_file():
            raise PlanprobeError(f"--apb-data {data}: not a file; expected one of APB's split files. {DOWNLOAD}")
        from ..importers.apb_prompts import load

        load(Path(options["apb_code"]) if options.get("apb_code") else None)  # one line naming what to clone

    def run(self, ctx: StudyContext) -> StudyOutcome:
        out = StudyOutcome()
        found: dict[str, dict[str, Measure]] = {}
        for name, *_ in REGIMES:
            found[name] = ctx.step(f"run {name}", functools.partial(self._generated, ctx, name))
            out.runs.append(f"runs/{name}")
        out.tables.append(self._splits_table(ctx, {k: v["all"] for k, v in found.items()},
                                             found["holistic-unsolvable"]))
        out.tables.append(self._kappa(ctx))
        out.tables.append(self._apb_data(ctx, out))
        return out

    # -- planprobe's generated cases -------------------------------------------------------------

    def _generated(self, ctx: StudyContext, name: str) -> dict[str, Measure]:
        from ..runner.store import RunStore
        from ..suites.constraints.generator import (
            ConstraintSuiteOptions,
            generate_lines,
        )
        from ..suites.io import write_suite_lines
        from ..suites.protocols import wrap_lines
        from ..suites.robust.transforms import parse_transforms, transform_lines

        _, _, _, transforms, protocol, k = next(r for r in REGIMES if r[0] == name)
        s = SIZES[ctx.size]
        suite = Path(ctx.directory) / "suites" / f"{name}.jsonl"
        if not suite.exists():  # written atomically; the same seed, the same bytes
            opts = ConstraintSuiteOptions(actions=s.actions, n=s.n, seed=ctx.seed)
            opts.check()
            lines = generate_lines(opts, None)
            if transforms:
                lines = transform_lines(lines, parse_transforms(list(transforms)), ctx.seed)
            write_suite_lines(wrap_lines(lines, protocol, k, ctx.seed), suite)
        run = run_study_suite(ctx, suite, name)
        store = RunStore(run)
        try:
            rows = store.db.execute("SELECT c.json, r.passed FROM results r JOIN cases c ON c.case_id = r.case_id "
                                    "WHERE r.infra = 0 ORDER BY c.ordinal, r.trial").fetchall()
        finally:
            store.close()
        kinds: dict[str, list[bool]] = {"all": [], "unsolvable": [], "solvable": []}
        for case_json, passed in rows:
            kinds["all"].append(bool(passed))
            if "unsolvable" in transforms:  # the refusal's calibration: unsolvable cases and solvable controls
                robust = ((json.loads(case_json).get("spec") or {}).get("base") or {}).get("spec") or {}
                kinds["unsolvable" if robust.get("unsolvable") else "solvable"].append(bool(passed))
        m = Measure(sum(kinds["all"]), len(kinds["all"]))
        ctx.say(f"  {name}: {m.hits}/{m.n} passed")
        return {k: Measure(sum(v), len(v)) for k, v in kinds.items()}

    def _splits_table(self, ctx: StudyContext, results: dict[str, Measure],
                      refusal: dict[str, Measure]) -> StudyTable:
        col = f"yours: {ctx.config.agent} / {ctx.config.model or 'no model'}"
        t = StudyTable(id="apb.splits", where="APB's main results", row_header="split",
                       title="accuracy per split and regime, on planprobe's generated cases (exact oracles; not "
                             "APB's data set)", columns=["regime", "planprobe's cases", col])
        for name, split, regime, transforms, protocol, k in REGIMES:
            label = split if protocol == "holistic" or split != "step_wise_planning" else f"{split} (k={k})"
            t.rows.append(TableRow(label, {"regime": regime, "planprobe's cases": _describe(transforms, protocol, k),
                                           col: results[name]}))
        for kind, what in (("unsolvable", "unsolvable cases (refuse)"), ("solvable", "solvable controls (plan)")):
            t.rows.append(TableRow(f"planprobe: holistic_unsolvable, {what}", {
                "regime": "Holistic", "planprobe's cases": "unsolvable, holistic", col: refusal[kind]},
                source="planprobe"))
        if find_published("apb.splits") is None:
            t.notes.append(NOT_PUBLISHED)
        t.notes.append("each verdict is exact: the base oracle on the replayed plan (holistic), extendability of the "
                       "prefix plus the predicted steps (step-wise), calibrated refusal (unsolvable), the exact "
                       "minimum cost (cost-aware); step-wise accepts any step that keeps a valid plan possible, so "
                       "compare with the random agent's floor (docs/protocols.md, 'Limits')")
        hol, step = results["holistic"], results["stepwise-1"]
        worst = min(REGIMES, key=lambda r: (results[r[0]].value, r[0]))
        alike = len({results[r[0]].value for r in REGIMES}) == 1
        t.reading = (f"{col}: holistic {hol.text()}, step-wise k=1 {step.text()}; "
                     + ("every split alike" if alike else f"lowest: {worst[1]}"
                        + (f" (k={worst[5]})" if worst[1] == "step_wise_planning" else "")
                        + f" {results[worst[0]].text()}"))
        return t

    # -- the judge against the exact oracle (planprobe's row) ------------------------------------------

    def _kappa(self, ctx: StudyContext) -> StudyTable:
        t = StudyTable(id="apb.judge_kappa", where="planprobe", row_header="judge",
                       title="planprobe's: the rubric judge against the exact oracle on the same traces",
                       columns=["traces", "agreement", "Cohen's κ"])
        spec = ctx.data.get("judge_model")
        if not spec:
            why = ("no --judge-model given: the judge is a model; with a reference agent and no judge there is "
                   "nothing to compare")
            t.rows.append(TableRow("planprobe: judge κ against the exact oracle",
                                   {c: Missing(why) for c in t.columns}, source="planprobe"))
            t.reading = "not measured (no judge model)"
            return t
        pairs = ctx.step("judge κ", functools.partial(self._judge_generated, ctx, spec))
        from ..analysis.stats import cohen_kappa

        judged, exact = [p[0] for p in pairs], [p[1] for p in pairs]
        kappa = cohen_kappa(judged, exact) if pairs else None
        agree = sum(a == b for a, b in pairs)
        cells: dict[str, Cell] = {"traces": str(len(pairs)), "agreement": Measure(agree, len(pairs)),
                                  "Cohen's κ": (f"{kappa:.3f}" if kappa is not None else
                                                Missing("κ is undefined when a side never varies"))}
        t.rows.append(TableRow(f"planprobe: {spec} against the exact oracle", cells, source="planprobe"))
        t.notes.append("planprobe's rubric (judge --calibrate), one sample at temperature 0, on every generated trace; "
                       "a trace the judge could not grade counts as a judge fail")
        t.reading = (f"judge {spec}: agrees on {Measure(agree, len(pairs)).text()} of traces, κ = "
                     + (f"{kappa:.3f}" if kappa is not None else "undefined"))
        return t

    def _judge_generated(self, ctx: StudyContext, spec: str) -> list[tuple[bool, bool]]:
        from ..llm_judge.judge import JudgeConfig
        from ..llm_judge.run import judge_run_async
        from ..models import ModelOptions, make_model

        model = make_model(spec, ctx.data.get("model_options") or ModelOptions())
        pairs: list[tuple[bool, bool]] = []

        async def go() -> None:
            try:
                for name, *_ in REGIMES:
                    rows = await judge_run_async(Path(ctx.directory) / "runs" / name, model,
                                                 JudgeConfig(samples=1, seed=ctx.seed), calibrate=True)
                    pairs.extend((bool(r["verdict"]["passed"]), bool(r["formal"]["passed"]))
                                 for r in rows if r.get("formal") is not None)
            finally:
                await model.aclose()

        asyncio.run(go())
        return pairs

    # -- APB's data set ------------------------------------------------------------------------------

    def _apb_data(self, ctx: StudyContext, out: StudyOutcome) -> StudyTable:
        col = f"yours: {ctx.config.agent} / {ctx.config.model or 'no model'}"
        t = StudyTable(id="apb.data", where="APB's main results", row_header="split",
                       title="accuracy per split on APB's data set, judged by APB's judge",
                       columns=["records", col])
        path = ctx.data.get("apb_data")
        if not path:
            why = f"no --apb-data: {DOWNLOAD}"
            for split in APB_SPLITS:
                t.rows.append(TableRow(split, {"records": Missing(why), col: Missing(why)}))
            t.reading = "not run: APB's data set was not given (--apb-data FILE)"
            return t
        run = ctx.step("run apb-data", functools.partial(self._run_apb_data, ctx, Path(path)))
        out.runs.append("runs/apb-data")
        spec = ctx.data.get("judge_model")
        scores = ctx.step("judge apb-data", functools.partial(self._judge_apb_data, ctx, run, spec)) if spec else {}
        records = _records_per_split(run)
        for split in APB_SPLITS:
            if not records.get(split):
                t.rows.append(TableRow(split, {"records": "0", col: Missing("no record of this split in the file")}))
                continue
            cells: dict[str, Cell] = {"records": str(records[split])}
            if not spec:
                cells[col] = Missing("no --judge-model: APB's figures are its judge's verdicts")
            elif not scores.get(split, (0, 0))[1]:
                cells[col] = Missing("no judgement could be counted")
            else:
                cells[col] = Measure(*scores[split])
            t.rows.append(TableRow(split, cells))
        t.notes.append(f"APB's data: {path}; judged by {spec or 'nobody (no --judge-model)'} with APB's prompts")
        hits, counted = (sum(v[0] for v in scores.values()), sum(v[1] for v in scores.values()))
        t.reading = (f"{col}: APB accuracy overall {Measure(hits, counted).text()}" if counted
                     else "APB's accuracy not measured")
        if not spec:
            t.notes.append("the replies are in runs/apb-data: 'planprobe judge DIR/runs/apb-data --style apb "
                           "--judge-model M' judges them")
        return t

    def _run_apb_data(self, ctx: StudyContext, path: Path) -> Path:
        from ..importers.apb_cases import ImportTally, iter_apb_protocol
        from ..importers.apb_prompts import load
        from ..suites.io import write_suite

        s = SIZES[ctx.size]
        suite = Path(ctx.directory) / "suites" / "apb-data.jsonl"
        if not suite.exists():
            prompts = load(Path(ctx.data["apb_code"]) if ctx.data.get("apb_code") else None)
            cases = list(iter_apb_protocol([path], path.parent, None, False, lambda m: None, ImportTally(), True,
                                           prompts))
            write_suite(cases if s.apb_limit is None else cases[: s.apb_limit], suite)
        return run_study_suite(ctx, suite, "apb-data")

    def _judge_apb_data(self, ctx: StudyContext, run: Path, spec: str) -> dict[str, tuple[int, int]]:
        """(correct, counted) per split: APB's accuracy (score()'s counting) as a proportion."""
        from ..importers.apb_prompts import load
        from ..llm_judge.apb import JUDGE_MAX_TOKENS
        from ..llm_judge.apb_run import (
            FAILURES_NAME,
            JUDGEMENTS_NAME,
            PREDICTIONS_NAME,
            check_judge_prompts,
            from_run,
            judge_all,
            judged_keys,
            key,
            read_judgements,
            same_model,
            write_predictions,
        )
        from ..llm_judge.apb_score import counted_correct
        from ..models import ModelOptions, make_model

        prompts = load(Path(ctx.data["apb_code"]) if ctx.data.get("apb_code") else None)
        src = from_run(run)
        write_predictions(src.records, run / PREDICTIONS_NAME)
        out = run / JUDGEMENTS_NAME
        model = make_model(spec, ctx.data.get("model_options") or ModelOptions())
        check_judge_prompts(out, model.name, prompts)
        done = judged_keys(out, model.name)
        pending = [r for r in src.records if key(r) not in done]

        async def go() -> None:
            try:
                await judge_all(model, pending, out, run / FAILURES_NAME, max_tokens=JUDGE_MAX_TOKENS, json_mode=True,
                                concurrency=4, on_row=lambda row: None, prompts=prompts)
            finally:
                await model.aclose()

        asyncio.run(go())
        rows = [r for r in read_judgements(out) if same_model(r.get("judge_model"), model.name)]
        out_: dict[str, tuple[int, int]] = {}
        for split in APB_SPLITS:
            verdicts = [v for r in rows if r.get("split") == split and (v := counted_correct(r)) is not None]
            out_[split] = (sum(verdicts), len(verdicts))
        return out_


def _records_per_split(run: Path) -> dict[str, int]:
    from ..runner.store import RunStore

    store = RunStore(run)
    try:
        rows = store.db.execute("SELECT json FROM cases ORDER BY ordinal").fetchall()
    finally:
        store.close()
    counts: dict[str, int] = {}
    for (case_json,) in rows:
        split = str(((json.loads(case_json).get("spec") or {}).get("apb") or {}).get("split"))
        counts[split] = counts.get(split, 0) + 1
    return counts


def _describe(transforms: tuple[str, ...], protocol: str, k: int) -> str:
    what = "+".join(transforms) if transforms else "plain"
    return f"{what}, {protocol}" + (f" k={k}" if protocol == "stepwise" else "")


STUDY = APBStudy()
