"""The PlanBench study (seed 004: Valmeekam et al., "PlanBench: An Extensible Benchmark for
Evaluating Large Language Models on Planning and Reasoning about Change"): its test cases
(§5: the eight tasks, t8 in three parts) on Blocksworld and Mystery Blocksworld, one-shot as the
paper and zero-shot beside it.

One run per (domain, prompting, task) under ``DIR/runs`` — the suite ``planprobe generate
planbench`` writes and the run ``planprobe run`` makes — so the study resumes run by run.
Tables: Table 1 (Blocksworld, every task), Table 2 (plan generation on the obfuscated domains),
and planprobe's: Mystery Blocksworld on every task, and zero- against one-shot paired by instance
(exact McNemar; the same instances are asked both ways).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import (
    Measure,
    Missing,
    Setting,
    StudyContext,
    StudyOutcome,
    StudyTable,
    TableRow,
    yours,
)
from .paper_data import (
    NOT_SHIPPED,
    cell_counts,
    cell_text,
    match_row,
    published_columns,
)
from .runs import run_study_suite

PAPER = ("Valmeekam et al., PlanBench: An Extensible Benchmark for Evaluating Large Language Models on Planning "
         "and Reasoning about Change, seed 004")
# Table 1's rows, in its order: (task, the paper's name, how the published row is found)
TASKS = (
    ("t1", "Plan Generation", ["plan generation"]),
    ("t2", "Cost-Optimal Planning", ["cost-optimal", "cost optimal"]),
    ("t3", "Plan Verification", ["plan verification", "verification"]),
    ("t7", "Reasoning About Plan Execution", ["plan execution"]),
    ("t6", "Replanning", ["replanning"]),
    ("t5", "Plan Generalization", ["plan generalization", "generalization"]),
    ("t4", "Plan Reuse", ["plan reuse", "reuse"]),
    ("t8_1", "Robustness to Goal Reformulation (Shuffling goal predicates)", ["shuffling"]),
    ("t8_2", "Robustness to Goal Reformulation (Full → Partial)", ["full → partial", "full to partial"]),
    ("t8_3", "Robustness to Goal Reformulation (Partial → Full)", ["partial → full", "partial to full"]),
)
DOMAINS = (("blocksworld", "Blocksworld"), ("mystery_blocksworld", "Mystery Blocksworld (Deceptive)"))
RANDOM = ("random_blocksworld", "Mystery Blocksworld (Randomized)")  # Table 2's second row: t1 only
PROMPTS = (("one-shot", 1), ("zero-shot", 0))
VERIFY_SHOTS = 3  # t3: "We showcase three instances and three distinct plans" (Table 1)


@dataclass(frozen=True)
class PlanBenchSize:
    n: int
    n_t5: int
    blocks: tuple[int, int]


SIZES = {
    "full": PlanBenchSize(n=600, n_t5=500, blocks=(4, 5)),
    "quick": PlanBenchSize(n=1, n_t5=1, blocks=(4, 5)),  # one reply per run: 42 replies (every row and column)
    "tiny": PlanBenchSize(n=2, n_t5=2, blocks=(3, 4)),
}


def _shots(task: str, prompt_shots: int) -> int:
    return VERIFY_SHOTS if task == "t3" and prompt_shots else prompt_shots


def run_name(domain: str, prompt: str, task: str) -> str:
    return f"{domain}-{prompt}-{task}"


class PlanBenchStudy:
    name = "planbench"
    paper = PAPER
    description = ("PlanBench §5: its eight test cases on Blocksworld and Mystery Blocksworld, one- and zero-shot "
                   "(Tables 1, 2)")
    needs = "nothing to download: planprobe generates PlanBench's instances and prompts"

    def settings(self, size: str) -> list[Setting]:
        s = SIZES[size]
        return [
            Setting("tasks", "t1-t8 (t8 in three parts)", "§5 and Table 1: the test cases, in Table 1's order"),
            Setting("instances per task", f"{s.n} (plan generalization {s.n_t5})",
                    "Table 1: 600 instances per task, 500 for plan generalization"),
            Setting("domains", "Blocksworld (all tasks); Mystery Blocksworld deceptive (all tasks); randomized "
                               "(plan generation)", "Table 1 (Blocksworld), Table 2 and A.3 (obfuscations, plan "
                                                    "generation); the appendix shows Mystery prompts for every task"),
            Setting("prompting", "one-shot (t3: three examples); zero-shot beside it",
                    "§5 footnote 3: one-shot natural-language prompts; Table 1's verification row shows three "
                    "instances; zero-shot is the companion study's [33] (plan generation), run here on every task",
                    ),
            Setting("blocks per instance", f"{s.blocks[0]}-{s.blocks[1]}",
                    "not in the text: PlanBench's generated_basic instances have 4 (446) or 5 (55) blocks "
                    "(../shared/data/planbench)", chosen=True),
            Setting("temperature", 0, "A.2: default parameters except temperature 0"),
            Setting("scoring", "PlanBench's rules (t3 binary verdict, t7 'not' negations)",
                    "§5 and its code; planprobe's scorer agrees with PlanBench's verdicts on 99.97% of recorded "
                    "GPT-4 responses (docs/planbench-conformance.md)"),
            Setting("zero-shot t4 and t8", "the query alone (plain plan generation)",
                    "not in the paper: these tasks restate the example's problem, so without an example they are "
                    "plan generation on the same instance", chosen=True),
        ]

    def _runs(self) -> list[tuple[str, str, int, str]]:
        out = [(d, p, shots, t) for d, _ in DOMAINS for p, shots in PROMPTS for t, _, _ in TASKS]
        out += [(RANDOM[0], p, shots, "t1") for p, shots in PROMPTS]
        return out

    def steps(self, size: str) -> list[str]:
        return [f"run {run_name(d, p, t)}" for d, p, _, t in self._runs()]

    def run(self, ctx: StudyContext) -> StudyOutcome:
        out = StudyOutcome()
        results: dict[tuple[str, str, str], dict[str, bool]] = {}
        underspecified: dict[str, int] = {}
        for domain, prompt, shots, task in self._runs():
            name = run_name(domain, prompt, task)
            outcome, found = ctx.step(f"run {name}", functools.partial(self._one, ctx, domain, shots, task, name))
            results[(domain, prompt, task)] = outcome
            if found:
                underspecified[name] = found
            out.runs.append(f"runs/{name}")
        out.tables += [self._table1(ctx, results), self._table2(ctx, results),
                       self._mystery(ctx, results), self._paired(ctx, results)]
        against = self._against_paper(ctx, results)
        if against is not None:
            out.tables.append(against)
        if underspecified:
            total = sum(underspecified.values())
            domains = sorted({name.split("-")[0] for name in underspecified})
            note = (f"the solver reported {total} case(s) under-specified by their text, in {len(underspecified)} "
                    f"run(s) of {', '.join(domains)} (Mystery Blocksworld's description contradicts itself: "
                    "docs/pddl.md, 'Read by the solver'); 'planprobe show DIR/runs/<run>' lists them")
            out.notes.append(note)
            for t in out.tables:
                if t.id in ("planbench.table2", "planbench.mystery"):
                    t.notes.append(note)
        out.plots.append(self._plot(ctx, results))
        return out

    def _one(self, ctx: StudyContext, domain: str, shots: int, task: str, name: str) -> tuple[dict[str, bool], int]:
        from ..analysis.compare import outcomes
        from ..runner.findings import underspecified_rows
        from ..runner.store import RunStore
        from ..suites.io import write_suite
        from ..suites.planbench import PlanBenchOptions, generate_cases

        s = SIZES[ctx.size]
        opts = PlanBenchOptions(task=task, domain=domain, n=s.n_t5 if task == "t5" else s.n, seed=ctx.seed,
                                shots=_shots(task, shots), blocks=s.blocks)
        opts.check()
        suite = Path(ctx.directory) / "suites" / f"{name}.jsonl"
        if not suite.exists():  # written atomically: a file that exists is whole; the same seed, the same bytes
            write_suite(generate_cases(opts), suite)
        run = run_study_suite(ctx, suite, name)
        store = RunStore(run)
        try:
            result = {cid: trials[0][0] for cid, trials in outcomes(store).items() if 0 in trials}
            found = len(underspecified_rows(store))
        finally:
            store.close()
        ctx.say(f"  {name}: {sum(result.values())}/{len(result)} correct")
        return result, found

    def _table1(self, ctx: StudyContext, results: dict) -> StudyTable:
        pub_cols, pub_rows = published_columns("planbench.table1")
        label = yours(ctx)
        ours = [f"{label}, one-shot", f"{label}, zero-shot"]
        t = StudyTable(id="planbench.table1", where="Table 1", row_header="Task",
                       title="instances correct on Blocksworld (the paper's columns: one-shot)",
                       columns=[f"{c} (paper)" for c in pub_cols] + ours)
        for task, title, aliases in TASKS:
            prow = match_row(pub_rows, aliases)
            cells: dict[str, Any] = {}
            for c in pub_cols:
                text = cell_text(prow, c)
                cells[f"{c} (paper)"] = text if text is not None else Missing(
                    "no published row matched" if prow is None else "the paper's row has no figure here")
            for col, (prompt, _) in zip(ours, PROMPTS):
                r = results[("blocksworld", prompt, task)]
                cells[col] = Measure(sum(r.values()), len(r))
            t.rows.append(TableRow(title, cells))
        if not pub_cols:
            t.notes.append(NOT_SHIPPED + " (planbench.table1); see the paper's Table 1")
        t.notes.append("the paper reports one-shot prompts only (§5, footnote 3): its columns sit beside yours, "
                       "one-shot")
        one = [results[("blocksworld", "one-shot", task)] for task, _, _ in TASKS]
        hits, n = sum(sum(r.values()) for r in one), sum(len(r) for r in one)
        rates = {title: Measure(sum(results[("blocksworld", "one-shot", task)].values()),
                                len(results[("blocksworld", "one-shot", task)])).value for task, title, _ in TASKS}
        high, low = max(rates.values()), min(rates.values())
        spread = ("every task alike" if high == low else
                  f"best: {', '.join(k for k, v in rates.items() if v == high)}; worst: "
                  f"{', '.join(k for k, v in rates.items() if v == low)}")
        t.reading = f"{label}, one-shot: {Measure(hits, n).text()} of all Blocksworld instances correct; {spread}"
        return t

    def _table2(self, ctx: StudyContext, results: dict) -> StudyTable:
        pub_cols, pub_rows = published_columns("planbench.table2")
        label = yours(ctx)
        ours = [f"{label}, one-shot", f"{label}, zero-shot"]
        t = StudyTable(id="planbench.table2", where="Table 2", row_header="Domain",
                       title="plan generation on the obfuscated domains (instances correct)",
                       columns=[f"{c} (paper)" for c in pub_cols] + ours)
        for domain, title, aliases in ((DOMAINS[1][0], DOMAINS[1][1], ["deceptive"]),
                                       (RANDOM[0], RANDOM[1], ["randomized", "random"])):
            prow = match_row(pub_rows, aliases)
            cells: dict[str, Any] = {}
            for c in pub_cols:
                text = cell_text(prow, c)
                cells[f"{c} (paper)"] = text if text is not None else Missing(
                    "no published row matched" if prow is None else "the paper's row has no figure here")
            for col, (prompt, _) in zip(ours, PROMPTS):
                r = results[(domain, prompt, "t1")]
                cells[col] = Measure(sum(r.values()), len(r))
            t.rows.append(TableRow(title, cells))
        if not pub_cols:
            t.notes.append(NOT_SHIPPED + " (planbench.table2); see the paper's Table 2")
        plain = results[("blocksworld", "one-shot", "t1")]
        deceptive = results[(DOMAINS[1][0], "one-shot", "t1")]
        t.reading = (f"{label}, one-shot plan generation: Blocksworld {Measure(sum(plain.values()), len(plain)).text()}"
                     f", Mystery (Deceptive) {Measure(sum(deceptive.values()), len(deceptive)).text()}")
        return t

    def _mystery(self, ctx: StudyContext, results: dict) -> StudyTable:
        label = yours(ctx)
        ours = [f"{label}, one-shot", f"{label}, zero-shot"]
        t = StudyTable(id="planbench.mystery", where="planprobe", row_header="Task",
                       title="planprobe's: every task on Mystery Blocksworld (Deceptive)", columns=ours)
        for task, title, _ in TASKS:
            t.rows.append(TableRow(title, {col: Measure(sum(results[(DOMAINS[1][0], p, task)].values()),
                                                        len(results[(DOMAINS[1][0], p, task)]))
                                           for col, (p, _) in zip(ours, PROMPTS)}, source="planprobe"))
        t.notes.append("the paper reports only plan generation on the obfuscated domains (Table 2); its appendix shows "
                       "the Mystery prompts of every task")
        allr = [results[(DOMAINS[1][0], "one-shot", task)] for task, _, _ in TASKS]
        t.reading = (f"{label}, one-shot: {Measure(sum(sum(r.values()) for r in allr), sum(len(r) for r in allr)).text()}"
                     " of all Mystery Blocksworld instances correct")
        return t

    def _paired(self, ctx: StudyContext, results: dict) -> StudyTable:
        from ..analysis.stats import mcnemar_exact, paired_difference_ci

        t = StudyTable(id="planbench.shots", where="planprobe", row_header="Domain: task",
                       title="planprobe's: zero- against one-shot on the same instances (paired)",
                       columns=["one-shot", "zero-shot", "zero − one [95% CI]", "McNemar exact p"])
        significant = []
        for domain, dtitle in DOMAINS:
            for task, title, _ in TASKS:
                one, zero = results[(domain, "one-shot", task)], results[(domain, "zero-shot", task)]
                shared = sorted(set(one) & set(zero))
                both = sum(one[c] and zero[c] for c in shared)
                only_one = sum(one[c] and not zero[c] for c in shared)
                only_zero = sum(zero[c] and not one[c] for c in shared)
                neither = len(shared) - both - only_one - only_zero
                lo, hi = paired_difference_ci(both, only_zero, only_one, neither)
                p = mcnemar_exact(only_one, only_zero)
                diff = (only_zero - only_one) / len(shared) if shared else 0.0
                t.rows.append(TableRow(f"{dtitle}: {title}", {
                    "one-shot": Measure(both + only_one, len(shared)),
                    "zero-shot": Measure(both + only_zero, len(shared)),
                    "zero − one [95% CI]": (f"{100 * diff:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]" if shared
                                            else Missing("no instance in both")),
                    "McNemar exact p": f"{p:.3g}" if shared else Missing("no instance in both")},
                    source="planprobe"))
                if shared and p < 0.05:
                    significant.append(f"{dtitle}: {title}")
        t.notes.append("the same instances are asked one- and zero-shot (the generator's per-instance streams), so "
                       "each pair is one instance; exact McNemar on the discordant pairs, Newcombe's paired interval")
        t.reading = ("zero- and one-shot differ (p < 0.05) on: " + "; ".join(significant) if significant
                     else "no task's zero- and one-shot results differ at p < 0.05")
        return t

    def _against_paper(self, ctx: StudyContext, results: dict) -> StudyTable | None:
        """Yours (one-shot) against each of the paper's models on Table 1: different instances, so
        unpaired — the difference with Newcombe's interval and Fisher's exact test."""
        from ..analysis.stats import difference_ci, fisher_exact

        pub_cols, pub_rows = published_columns("planbench.table1")
        if not pub_cols:
            return None
        columns = [h for c in pub_cols for h in (f"yours − {c} [95% CI]", f"Fisher p vs {c}")]
        t = StudyTable(id="planbench.vs_paper", where="planprobe", row_header="Task",
                       title="planprobe's: yours (one-shot) against the paper's models on Blocksworld (unpaired)",
                       columns=columns)
        above: dict[str, int] = dict.fromkeys(pub_cols, 0)
        below: dict[str, int] = dict.fromkeys(pub_cols, 0)
        for task, title, aliases in TASKS:
            prow = match_row(pub_rows, aliases)
            r = results[("blocksworld", "one-shot", task)]
            x, n = sum(r.values()), len(r)
            cells: dict[str, Any] = {}
            for c in pub_cols:
                counts = cell_counts(prow, c)
                if counts is None or not n:
                    why = Missing("the paper gives no counts" if counts is None else "no instance run")
                    cells[f"yours − {c} [95% CI]"] = cells[f"Fisher p vs {c}"] = why
                    continue
                lo, hi = difference_ci(x, n, *counts)
                d = x / n - counts[0] / counts[1]
                p = fisher_exact(x, n, *counts)
                cells[f"yours − {c} [95% CI]"] = f"{100 * d:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"
                cells[f"Fisher p vs {c}"] = f"{p:.3g}"
                if p < 0.05:
                    (above if d > 0 else below)[c] += 1
            t.rows.append(TableRow(title, cells, source="planprobe"))
        t.notes.append("the paper's instances are not these (PlanBench's fixed set vs planprobe's generated ones), so "
                       "the comparison is unpaired: Newcombe's interval of the difference, two-sided Fisher exact test")
        t.reading = f"{yours(ctx)}, one-shot, at p < 0.05: " + "; ".join(
            f"above {c} on {above[c]} of {len(TASKS)} tasks, below on {below[c]}" for c in pub_cols)
        return t

    def _plot(self, ctx: StudyContext, results: dict) -> dict[str, Any]:
        series = []
        for domain, dtitle in DOMAINS:
            for prompt, _ in PROMPTS:
                pts = []
                for i, (task, _, _) in enumerate(TASKS):
                    m = Measure(sum(results[(domain, prompt, task)].values()), len(results[(domain, prompt, task)]))
                    lo, hi = m.ci95
                    pts.append({"x": i, "y": m.value, "lo": lo, "hi": hi})
                series.append({"label": f"{dtitle}, {prompt}", "points": pts})
        return {"id": "planbench-tasks", "title": "Instances correct per task", "x": "task",
                "xticks": [t for t, _, _ in TASKS], "series": series}


STUDY = PlanBenchStudy()
