"""The PDoctor study (seed 000: Ji et al., "Testing and Understanding Erroneous Planning in
LLM Agents through Synthesized User Inputs"): §6.2 (RQ2) and §6.3 (RQ3) on one model.

Steps, each the library code of a planprobe command, in ``DIR``:

1. ``sweep-basic``: the capability sweep (``planprobe sweep --style paper``), every n of the
   paper's Fig. 8 (2-9), k·C(n,2) cases per n capped at 300 (1,600 cases: the paper's count);
2. ``sweep-extended``: the same in the extended mode (time windows, durations), n = 2-5 (Fig. 9);
3. the error types of the failures within the planning limit (``planprobe anatomy``; Tables 3, 6);
4. the root causes of 100 of those failures (``planprobe dissect``, Alg. 2 as published: no
   Phrasing stage), each beside its chance baseline with a one-sided exact McNemar test
   (planprobe's rows beyond the paper; Tables 4, 7).

Table 2 (RQ1) is read from the sweep's n = 3-5 (the paper drew |A| from 3-5 for 60 minutes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import (
    Measure,
    Missing,
    Setting,
    StudyContext,
    StudyInfraError,
    StudyOutcome,
    StudyTable,
    TableRow,
    yours,
)
from .paper_data import add_published_rows, paper_column, paper_largest

PAPER = ("Ji et al., Testing and Understanding Erroneous Planning in LLM Agents through Synthesized User "
         "Inputs (PDoctor), seed 000")
THRESHOLD = 0.2  # §6.2: "less than 20% in our experiments"
BASIC_CLASSES = (("timeout", "Timeout"), ("act_error", "Act Error"), ("action_lost", "Action Lost"),
                 ("order_error", "Order Error"))
EXTENDED_CLASSES = BASIC_CLASSES + (("parameter_error", "Parameter Error"),)
PAPER_CAUSES = ("Probability", "Terminal", "Topic", "Structure", "Constraint")


@dataclass(frozen=True)
class PDoctorSize:
    k: int
    cap: int
    basic_stop: int
    extended_stop: int
    sample: int
    mutants: int  # K of Alg. 2
    iterations: int = 50  # per case: §6.1's 50; quick: fewer (a case of n actions needs n + 1 replies)


SIZES = {
    "full": PDoctorSize(k=20, cap=300, basic_stop=9, extended_stop=5, sample=100, mutants=3),
    "quick": PDoctorSize(k=1, cap=2, basic_stop=5, extended_stop=4, sample=1, mutants=1, iterations=15),
    "tiny": PDoctorSize(k=1, cap=2, basic_stop=4, extended_stop=3, sample=3, mutants=1),
}


class PDoctorStudy:
    name = "pdoctor"
    paper = PAPER
    description = ("PDoctor §6.2-6.3: success per |A| and the planning limit (basic and extended mode), "
                   "error types and root causes of the failures within the limit")
    needs = "nothing to download: planprobe synthesises PDoctor's cases"

    def limits(self, size: str) -> tuple[int, float]:
        """Iterations and seconds per case: §6.1's 50 and 180 s (quick: fewer iterations, the model's
        calls being most of a quick study's time)."""
        return SIZES[size].iterations, 180.0

    def settings(self, size: str) -> list[Setting]:
        s = SIZES[size]
        return [
            Setting("cases per n", f"min({s.cap}, {s.k}·C(n,2))",
                    "§6.2: k×C(n,2) test cases per action number, k = 20, capped at 300 (cost of OpenAI's API)"),
            Setting("action numbers (basic)", f"2-{s.basic_stop}",
                    "§6.2: n starts from 2; all agents are tested and shown for 2-9 (Fig. 8; 1,600 cases per agent)"),
            Setting("action numbers (extended)", f"2-{s.extended_stop}",
                    "§6.3: the same procedure; the limit of every agent is reached by |A| = 5, Fig. 9 shows 2-5"),
            Setting("planning limit", "first n whose success rate is below 20%",
                    "§6.2: 'upper-level planning capability' when the success rate drops below 20% (our reading: "
                    "the first n below; the last n at or above is shown too); every n of the range is run, as the "
                    "paper's 1,600 cases per agent show, so the curve is whole"),
            Setting("style", "paper", "§4, Fig. 5/7: PDoctor's own templates, tools and error classes "
                                      "(planprobe's --style paper)"),
            Setting("limits per case", f"{s.iterations} iterations, 180 s",
                    "§6.1: timeout 180 s, iteration limit 50" + ("" if s.iterations == 50 else
                                                                 "; fewer iterations at this size (a case of n "
                                                                 "actions needs n + 1 replies)"),
                    chosen=s.iterations != 50),
            Setting("temperature", 0, "§5: temperature 0, other parameters default"),
            Setting("failures dissected", s.sample, "§6.2: 'we randomly sample 100 errors that fall within the "
                                                    "planning capability limit'"),
            Setting("within the limit", "n ≤ the planning limit (every n run when it is not reached)",
                    "not stated exactly in the paper: planprobe counts the limit's own n (dissect's reading, "
                    "docs/analysis.md)", chosen=True),
            Setting("mutants per stage (K)", s.mutants, "Alg. 2 names K without a value: planprobe's dissect "
                                                        "default 3", chosen=True),
            Setting("dissection stages", "Probability, Terminal, Topic, Structure, Constraint",
                    "Alg. 2 as published (planprobe's extra Phrasing stage is off)"),
            Setting("chance baseline and test", "each cause against re-runs of the unchanged case; one-sided "
                                                "exact McNemar", "not in the paper: planprobe's rows, marked "
                                                                 "'planprobe'", chosen=True),
            Setting("agent", "the --agent given (default tools: function calling, like OpenAI Tools)",
                    "§5, Table 1: ReAct, OpenAI Tools, OpenAI Assistant (planprobe has react and tools)",
                    chosen=True),
        ]

    def steps(self, size: str) -> list[str]:
        return ["sweep basic", "dissect basic", "sweep extended", "dissect extended"]

    def run(self, ctx: StudyContext) -> StudyOutcome:
        s = SIZES[ctx.size]
        out = StudyOutcome()
        for mode, stop in (("basic", s.basic_stop), ("extended", s.extended_stop)):
            self._mode(ctx, out, mode, stop, s)
        order = {"pdoctor.table2": 0, "pdoctor.fig8": 1, "pdoctor.table3": 2, "pdoctor.table4": 3,
                 "pdoctor.fig9": 4, "pdoctor.table6": 5, "pdoctor.table7": 6}
        out.tables.sort(key=lambda t: order.get(t.id, 99))
        return out

    def _mode(self, ctx: StudyContext, out: StudyOutcome, mode: str, stop: int, s: PDoctorSize) -> None:
        from ..analysis.dissect import dissect_run
        from ..analysis.sweep import SweepResult, run_dir, run_sweep

        extended = mode == "extended"
        sweep_dir = Path(ctx.directory) / f"sweep-{mode}"
        result = ctx.step(f"sweep {mode}", lambda: run_sweep(
            sweep_dir, ctx.agent, ctx.config, extended=extended, k=s.k, cap=s.cap, threshold=0.0, start=2,
            stop=stop, seed=ctx.seed, style="paper", runner=ctx.runner, on_store=ctx.on_store,
            on_point=lambda p: ctx.say(f"  {mode} n={p.actions}: {p.passed}/{p.cases} passed")))
        if result.infra_at is not None:
            raise StudyInfraError(f"the {mode} sweep stopped at n = {result.infra_at}: infrastructure failures left "
                                  "its success rate unmeasured; run the same command again to retry them")
        read = SweepResult(threshold=THRESHOLD, points=result.points)
        limit, top = read.first_below, read.first_below or read.tested_up_to
        out.runs += [str(run_dir(Path(f"sweep-{mode}"), p.actions)) for p in result.points]
        runs = [run_dir(sweep_dir, p.actions) for p in result.points if top is not None and p.actions <= top]
        # the curve (Fig. 8 / 9)
        label = yours(ctx)
        curve = StudyTable(id=f"pdoctor.fig{9 if extended else 8}", where=f"Fig. {9 if extended else 8}",
                           title=f"planning success rate per action number |A| ({mode} mode)",
                           columns=[f"n={p.actions}" for p in result.points] + ["planning limit"],
                           row_header="agent")
        cells: dict[str, Any] = {f"n={p.actions}": Measure(p.passed, p.cases) for p in result.points}
        cells["planning limit"] = (str(limit) if limit is not None
                                   else f"not reached up to n = {read.tested_up_to}")
        curve.rows.append(TableRow(label, cells))
        # the paper plots the rates only; its text states each model's limit (all frameworks together)
        add_published_rows(curve, f"pdoctor.figure{9 if extended else 8}_limits",
                           columns={"Planning capability limit |A|": "planning limit"})
        curve.reading = (f"{label}: planning limit n = {limit} (first n below 20%; last n at or above: "
                         f"{read.last_at_or_above or 'none'})" if limit is not None else
                         f"{label}: success stayed at or above 20% up to n = {read.tested_up_to}: the limit is "
                         "beyond the n tested")
        limits = paper_column(curve, "planning limit")
        if limits:
            curve.reading += f"; the paper's limits (|A|): {limits}"
        out.tables.append(curve)
        out.plots.append({"id": f"pdoctor-success-{mode}", "title": f"Success rate vs |A| ({mode} mode)",
                          "x": "action number |A|", "threshold": THRESHOLD,
                          "series": [{"label": label, "points": [
                              {"x": p.actions, "y": p.rate, "lo": p.ci95[0], "hi": p.ci95[1]}
                              for p in result.points]}]})
        if not extended:
            out.tables.append(self._table2(ctx, sweep_dir, result.points))
        # error types within the limit (Tables 3 / 6)
        out.tables.append(self._error_types(ctx, runs, extended, top))
        # root causes (Tables 4 / 7)
        report = ctx.step(f"dissect {mode}", lambda: dissect_run(
            sweep_dir, ctx.agent, ctx.config, k=s.mutants, sample=s.sample, seed=ctx.seed, baseline=True,
            max_actions=top, phrasing=False, workers=ctx.workers, recipe=ctx.recipe, backend=ctx.backend,
            address=ctx.address, on_case=lambda row: ctx.say(f"  dissected {row['case_id']}: {row['cause']}")))
        out.tables.append(self._root_causes(ctx, report.to_json(), extended, top))

    def _table2(self, ctx: StudyContext, sweep_dir: Path, points: list) -> StudyTable:
        t = StudyTable(id="pdoctor.table2", where="Table 2", row_header="agent",
                       title="erroneous planning detected, |A| in 3-5 (RQ1)",
                       columns=["Generated", "Errors (% of total)", "Z3-Count", "Z3-Time", "Synthesis-Time",
                                "Agent-Time"])
        chosen = [p for p in points if 3 <= p.actions <= 5]
        cases = sum(p.cases for p in chosen)
        failed = sum(p.cases - p.passed for p in chosen)
        machine = Missing("machine time and solver calls of the paper's setup, not a planning figure")
        t.rows.append(TableRow(yours(ctx), {
            "Generated": str(cases), "Errors (% of total)": Measure(failed, cases) if cases else
            Missing("the sweep did not reach n = 3"),
            "Z3-Count": machine, "Z3-Time": machine, "Synthesis-Time": machine, "Agent-Time": machine}))
        add_published_rows(t)
        t.notes.append("the paper drew |A| uniformly from 3-5 for 60 minutes per agent; planprobe pools the sweep's "
                       f"cases at n = 3, 4, 5 ({', '.join(str(p.cases) for p in chosen)} cases)")
        t.reading = (f"{yours(ctx)}: {failed} of {cases} cases with 3-5 actions failed" if cases else
                     "no case with 3-5 actions was run")
        return t

    def _error_types(self, ctx: StudyContext, runs: list[Path], extended: bool, top: int | None) -> StudyTable:
        from collections import Counter

        from ..analysis.anatomy import anatomy
        from ..runner.store import RunStore

        classes = EXTENDED_CLASSES if extended else BASIC_CLASSES
        t = StudyTable(id="pdoctor.table6" if extended else "pdoctor.table3",
                       where="Table 6" if extended else "Table 3", row_header="agent",
                       title=f"error types among the failures within the planning limit ({'extended' if extended else 'basic'} mode)",
                       columns=[name for _, name in classes])
        stores = [(str(r), RunStore(r)) for r in runs]
        try:
            result = anatomy(stores)
        finally:
            for _, st in stores:
                st.close()
        errors: Counter = Counter()
        failed = 0
        for run in result.runs:
            errors.update(run.overall.errors)
            failed += run.overall.cases - run.overall.passed
        cells: dict[str, Any] = {}
        for key, name in classes:
            cells[name] = Measure(errors.get(key, 0), failed) if failed else Missing("no failure within the limit")
        t.rows.append(TableRow(yours(ctx), cells))
        add_published_rows(t)
        paper = paper_largest(t)
        other = {k: v for k, v in errors.items() if k not in dict(classes)}
        if other:
            t.notes.append("other classes among the failures (not in the paper's table): "
                           + ", ".join(f"{k} {v}" for k, v in sorted(other.items())))
        if failed:
            key, name = max(classes, key=lambda kv: (errors.get(kv[0], 0), kv[1]))
            t.reading = (f"{yours(ctx)}: {failed} failures with n ≤ {top}; most common: {name} "
                         f"({cells[name].text()})")
        else:
            t.reading = f"{yours(ctx)}: no failure with n ≤ {top}: no error types to show"
        if paper:
            t.reading += f"; the paper: {paper}"
        return t

    def _root_causes(self, ctx: StudyContext, data: dict[str, Any], extended: bool, top: int | None) -> StudyTable:
        t = StudyTable(id="pdoctor.table7" if extended else "pdoctor.table4",
                       where="Table 7" if extended else "Table 4", row_header="agent",
                       title=f"root causes of {data['cases']} failures sampled from {data['failures_within_limit']} "
                             f"within the limit ({'extended' if extended else 'basic'} mode)",
                       columns=list(PAPER_CAUSES))
        total = data["cases"]
        none = Missing("no failure within the limit to dissect")
        t.rows.append(TableRow(yours(ctx), {c: Measure(data["causes"][c], total) if total else none
                                             for c in PAPER_CAUSES}))
        add_published_rows(t)
        base, tests = data.get("baseline"), data.get("significance")
        if total and base is not None and tests is not None:
            t.rows.append(TableRow("planprobe: chance baseline", {c: Measure(base["causes"][c], total)
                                                                  for c in PAPER_CAUSES}, source="planprobe"))
            t.rows.append(TableRow("planprobe: p (share > baseline)", {
                c: ("= by construction" if c == "Probability" else _p(tests[c]["p_value"])) for c in PAPER_CAUSES},
                source="planprobe"))
            t.notes.append("planprobe's rows: " + base["method"] + "; p: " + tests["method"])
            significant = [c for c in PAPER_CAUSES if c != "Probability" and tests[c]["p_value"] < 0.05]
            t.reading = (f"{yours(ctx)}: causes above their chance baseline (p < 0.05): "
                         + (", ".join(significant) if significant else "none — no share can be told from "
                            "re-running the same case"))
        elif total:
            t.reading = f"{yours(ctx)}: {total} failures dissected (no chance baseline)"
        else:
            t.reading = f"{yours(ctx)}: no failure with n ≤ {top}: nothing to dissect"
        paper = paper_largest(t)
        if paper:
            t.reading += f"; the paper: {paper}"
        return t


def _p(p: float) -> str:
    return f"p = {p:.2g}" if p < 0.001 else f"p = {p:.3f}"


STUDY = PDoctorStudy()
