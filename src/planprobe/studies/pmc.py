"""The PMC study (seed 002: "Planning with Multi-Constraints via Collaborative Language
Agents"): §5.2.1 (TravelPlanner, Tables 1-3 and Appendix E's Tables 5-7) and §5.2.2
(API-Bank level 3, Table 4) on one model.

The paper's methods and planprobe's agents (docs/studies.md):

* TravelPlanner two-stage "ReAct" (TravelPlanner's baseline) → ``react``; "PMC" → ``pmc``;
  sole-planning "(SP)" (Direct GPT-4: the information given, only the plan asked) → ``tools``
  on sole-planning cases (no tools: one direct answer);
* API-Bank "CoT" → ``react`` (a thought before each call), "No CoT" → ``tools`` (function
  calling), "PMC" → ``pmc``.

With a model, each method runs as that agent on the model; a reference agent (no model) runs in
every method's place. Steps, each a resumable ``run`` in ``DIR/runs/<name>``: TravelPlanner with
and without the unconventional hint × the three methods, then API-Bank level 3 × its three.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

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
from .paper_data import NOT_SHIPPED, cell_text, find_published, norm
from .pmc_data import PMCData, check_recorded, from_options, record
from .runs import run_study_suite

PAPER = "Planning with Multi-Constraints via Collaborative Language Agents (PMC), seed 002"
# (run key, agent, TravelPlanner mode, the paper's method name)
TP_METHODS = (("react", "react", "two-stage", "ReAct"), ("pmc", "pmc", "two-stage", "PMC"),
              ("sp", "tools", "sole-planning", "SP"))
AB_METHODS = (("cot", "react", "CoT"), ("nocot", "tools", "No CoT"), ("pmc", "pmc", "PMC"))
HINTS = (("hint", True), ("nohint", False))
LEVELS = ("easy", "medium", "hard")
METRICS = (("Delivery Rate", "delivered", "queries"), ("Common-sense Micro", "commonsense_passed", "commonsense_total"),
           ("Common-sense Macro", "commonsense_plans", "queries"),
           ("Hard Constraint Micro", "hard_passed", "hard_total"), ("Hard Constraint Macro", "hard_plans", "queries"),
           ("Final Pass Rate", "final_plans", "queries"))
CONSTRAINTS = (("Commonsense Constraint", ("Within Sandbox", "Complete Information", "Within Current City",
                                           "Reasonable City Route", "Diverse Restaurants", "Diverse Attractions",
                                           "Non-conf. Transportation", "Minimum Nights Stay")),
               ("Hard Constraint", ("Budget", "Room Rule", "Cuisine", "Room Type", "Transportation")))
# the "unconventional hint" (§5.1.1): the two rules of the evaluator that everyday sense would not assume,
# given to the planner (ReAct, sole-planning) and the deliverer (PMC) — in planprobe's words
HINT = ("Hint: this plan is judged by rules stricter than everyday habit. Choose a different restaurant for every "
        "meal of the trip (never the same restaurant twice), and take every meal at a restaurant from the "
        "information you have, never at an airport or any other place.")
TP_STEPS = 30  # §5.1.1: "a plan has to be delivered within 30 steps (including planning and execution)"
DAYS = 3  # §5.1.1: "a 3-day dataset sufficiently justifies the effectiveness of PMC"


@dataclass(frozen=True)
class PMCSize:
    per_level: int | None  # 3-day TravelPlanner queries per level (None: every one)
    api_bank: int | None  # API-Bank level-3 requirements (None: all 50)
    steps: int = TP_STEPS  # the delivery limit (quick: fewer, the model's calls being most of its time)
    api_bank_steps: int = 50  # iterations per API-Bank run (planprobe's default; quick: fewer)


# quick: one query per level (Tables 5-7 keep a column each), two API-Bank requirements
SIZES = {"full": PMCSize(None, None), "quick": PMCSize(1, 2, steps=5, api_bank_steps=5), "tiny": PMCSize(1, 3)}


def _who(ctx: StudyContext) -> str:
    return f"yours: {ctx.config.model}" if ctx.models is not None else f"yours: {ctx.config.agent}"


def tp_column(ctx: StudyContext, method: str) -> str:
    return f"{_who(ctx)} (SP)" if method == "SP" else f"{_who(ctx)} + {method}"


class PMCStudy:
    name = "pmc"
    paper = PAPER
    description = ("PMC §5.2: TravelPlanner with and without the unconventional hint (two-stage ReAct and PMC, "
                   "sole-planning), and API-Bank level 3 (CoT, No CoT, PMC)")
    needs = ("--travelplanner DIR (the validation split with TravelPlanner's database, or the 45 training queries) "
             "and --api-bank DIR (API-Bank's folder with test-data/level-3.json)")

    def settings(self, size: str) -> list[Setting]:
        s = SIZES[size]
        return [
            Setting("TravelPlanner queries", f"the 3-day queries{'' if s.per_level is None else f', the first {s.per_level} per level'}",
                    "§5.1.1: 'a 3-day dataset'; Tables 1-2: validation (60) and test (308) — the test split's "
                    "annotations are not public, so planprobe runs the validation split (or the training set)"),
            Setting("hint", "with and without the unconventional hint",
                    "§5.1.1: with the hint (Tables 1, 3, 5-7) the planner (ReAct, sole-planning) and PMC's deliverer "
                    "are told that a restaurant may not be repeated and meals may not be at an airport; without it "
                    "(Table 2) TravelPlanner's own setting"),
            Setting("hint text", HINT, "§5.1.1 describes the hint but does not print it: planprobe's words",
                    chosen=True),
            Setting("methods (TravelPlanner)", "two-stage ReAct → react, two-stage PMC → pmc, sole-planning (SP) → "
                                               "tools on sole-planning cases (one direct answer)",
                    "§5.1.1: the two-stage ReAct baseline of Xie et al. and the best sole-planning baseline, Direct "
                    "GPT-4-Turbo; planprobe's agents stand in (docs/pmc.md: PMC's code is not public)", chosen=True),
            Setting("methods (API-Bank)", "CoT → react, No CoT → tools, PMC → pmc",
                    "Table 4's rows; planprobe's ReAct agent thinks before each call, its function-calling agent does "
                    "not", chosen=True),
            Setting("API-Bank", f"level 3, whole runs{'' if s.api_bank is None else f', the first {s.api_bank}'} "
                                "(of 50 requirements)",
                    "§5.1.1: level 3; §5.1.2 Correctness, Completeness, Tool Repeats and ROUGE-L (docs/api-bank.md: "
                    "planprobe's reading of them)"),
            Setting("delivery limit", f"{s.steps} steps", "§5.1.1: 'a plan has to be delivered within 30 steps'"
                    + ("" if s.steps == TP_STEPS else f"; fewer at this size (API-Bank: {s.api_bank_steps} "
                                                      "iterations)"),
                    chosen=s.steps != TP_STEPS),
            Setting("runs per instance", 1, "§5: 'each instance is executed only once without sampling'"),
            Setting("temperature", 0, "not stated in the paper ('without sampling'): planprobe's default 0",
                    chosen=True),
            Setting("TravelPlanner reading", "the official evaluator; --strict as planprobe's extra rows",
                    "§5.1.1 TravelPlanner's metrics; --strict (docs/travelplanner.md) is planprobe's"),
        ]

    def steps(self, size: str) -> list[str]:
        return ([f"run tp-{h}-{key}" for h, _ in HINTS for key, _, _, _ in TP_METHODS]
                + [f"run apibank-{key}" for key, _, _ in AB_METHODS])

    def check_data(self, directory: Path, options: dict[str, Any]) -> None:
        check_recorded(directory, from_options(options))

    def run(self, ctx: StudyContext) -> StudyOutcome:
        data = from_options(ctx.data)
        check_recorded(Path(ctx.directory), data)
        record(Path(ctx.directory), data)
        s = SIZES[ctx.size]
        out = StudyOutcome()
        tp: dict[tuple[str, str], dict[str, Any]] = {}
        for h, hint in HINTS:
            for key, agent, mode, _ in TP_METHODS:
                name = f"tp-{h}-{key}"
                tp[(h, key)] = ctx.step(f"run {name}", functools.partial(self._tp, ctx, data, s, name, agent, mode,
                                                                         hint))
                out.runs.append(f"runs/{name}")
        ab: dict[str, dict[str, Any]] = {}
        for key, agent, _ in AB_METHODS:
            name = f"apibank-{key}"
            ab[key] = ctx.step(f"run {name}", functools.partial(self._ab, ctx, data, s, name, agent))
            out.runs.append(f"runs/{name}")
        queries = tp[("hint", "sp")]["all"]["official"]["queries"]
        where = (f"{data.label}, {queries} 3-day queries" + (": not the paper's validation/test split"
                                                             if data.kind == "training" else ""))
        out.tables.append(self._tp_table(ctx, tp, "hint", "pmc.table1", "Table 1", "all", where))
        out.tables.append(self._tp_table(ctx, tp, "nohint", "pmc.table2", "Table 2", "all", where))
        out.tables.append(self._constraints(ctx, tp, where))
        out.tables.append(self._api_bank(ctx, ab))
        out.tables.append(self._paired(ctx))
        for level, number in zip(LEVELS, (5, 6, 7)):
            out.tables.append(self._tp_table(ctx, tp, "hint", f"pmc.table{number}", f"Table {number}", level, where))
        if ctx.models is None:
            out.notes.append(f"no model: the reference agent {ctx.config.agent} runs in every method's place (its "
                             "answers do not depend on the scaffold)")
        return out

    # -- running -----------------------------------------------------------------------------------

    def _agent(self, ctx: StudyContext, name: str, limit: int) -> tuple[Any, Any, Any]:
        """(agent, config, runner) for a method's agent: on the model, or the reference agent."""
        limits = replace(ctx.config.limits, max_iterations=min(ctx.config.limits.max_iterations, limit))
        if ctx.models is None:
            config = replace(ctx.config, limits=limits)
            return ctx.agent, config, ctx.runner_for(ctx.config.agent, config)
        from ..agents import make_agent

        config = replace(ctx.config, agent=name, limits=limits)
        agent = make_agent(name, ctx.seed, model=ctx.models, params=ctx.params)
        return agent, config, ctx.runner_for(name, config)

    def _execute(self, ctx: StudyContext, name: str, cases: Any, agent_name: str, limit: int = 50) -> Path:
        from ..suites.io import write_suite

        suite = Path(ctx.directory) / "suites" / f"{name}.jsonl"
        if not suite.exists():  # written atomically: a file that exists is whole; the same data, the same bytes
            write_suite(cases(), suite)
        agent, config, runner = self._agent(ctx, agent_name, limit)
        return run_study_suite(ctx, suite, name, agent=agent, config=config, runner=runner)

    def _tp(self, ctx: StudyContext, data: PMCData, s: PMCSize, name: str, agent: str, mode: str,
            hint: bool) -> dict[str, Any]:
        def cases() -> list[Any]:
            from ..importers.travelplanner import build_cases

            if data.kind == "training":
                built = build_cases(modes=[mode], strict=False, train_dir=Path(data.travelplanner))
            else:
                built = build_cases(modes=[mode], strict=False, split_file=Path(data.split_file or ""),
                                    database=Path(data.database or ""), split="validation")
            chosen, seen = [], dict.fromkeys(LEVELS, 0)
            for case in built:
                fields = case.spec["fields"]
                level = fields.get("level")
                if int(fields.get("days") or 0) != DAYS or level not in seen:
                    continue
                if s.per_level is not None and seen[level] >= s.per_level:
                    continue
                seen[level] += 1
                chosen.append(case.model_copy(update={"system": (case.system or "") + "\n\n" + HINT}) if hint
                              else case)
            return chosen

        run = self._execute(ctx, name, cases, agent, s.steps)
        figures = tp_figures(run)
        final = figures["all"]["official"]
        ctx.say(f"  {name}: final pass {final['counts']['final_plans']}/{final['queries']}")
        return figures

    def _ab(self, ctx: StudyContext, data: PMCData, s: PMCSize, name: str, agent: str) -> dict[str, Any]:
        def cases() -> list[Any]:
            from ..importers.apibank import import_cases

            built = import_cases(Path(data.api_bank), 3, ("run",))
            return built if s.api_bank is None else built[: s.api_bank]

        run = self._execute(ctx, name, cases, agent, s.api_bank_steps)
        figures = ab_figures(run)
        ctx.say(f"  {name}: {figures['unique_correct']}/{figures['predictions']} calls correct")
        return figures

    # -- tables ------------------------------------------------------------------------------------

    def _tp_table(self, ctx: StudyContext, tp: dict, hint: str, table_id: str, where: str, level: str,
                  data_label: str) -> StudyTable:
        published = find_published(table_id)
        ours = [tp_column(ctx, m) for _, _, _, m in TP_METHODS]
        pub_cols = list(published.columns) if published is not None else []
        scope = "" if level == "all" else f", {level} queries"
        t = StudyTable(id=table_id, where=where, row_header="",
                       title=f"TravelPlanner {'with' if hint == 'hint' else 'without'} the unconventional hint{scope}"
                             " (pass rates)" + ("; yours on the TRAINING set, not the paper's validation/test split"
                                                if data_label.startswith("training") else ""),
                       columns=pub_cols + ours)
        if published is None:
            t.notes.append(NOT_SHIPPED + f" ({table_id}); see the paper's {where}")
        else:
            for prow in published.rows:
                t.rows.append(TableRow(f"{prow.group}: {prow.label}",
                                       {c: cell_text(prow, c) or "" for c in pub_cols}, source="paper"))
        n = tp[(hint, "sp")][level]["official"]["queries"]
        block = f"yours, {data_label.split(',')[0]} ({n})"
        for reading, source, prefix in (("official", "yours", block), ("strict", "planprobe",
                                                                        f"planprobe --strict, {block[7:]}")):
            for label, hits, total in METRICS:
                cells: dict[str, Cell] = {}
                for (key, _, _, method), col in zip(TP_METHODS, ours):
                    counts = tp[(hint, key)][level][reading]
                    flat = {**counts["counts"], "queries": counts["queries"], "delivered": counts["delivered"]}
                    cells[col] = (Measure(flat[hits], flat[total]) if counts["queries"]
                                  else Missing(f"no {level} query in the data chosen"))
                t.rows.append(TableRow(f"{prefix}: {label}", cells, source=source))
        t.notes.append(f"yours: {data_label}; micro rates' intervals treat each constraint as a trial")
        t.notes.append("planprobe --strict: the same plans by planprobe's strict reading (docs/travelplanner.md)")
        if hint == "hint":
            t.notes.append("the hint is appended to each case's instructions (TravelPlanner's own prompt on training "
                           "sole-planning cases; planprobe's prompts already state every rule)")
        rates = {m: tp[(hint, key)][level]["official"] for key, _, _, m in TP_METHODS}
        t.reading = (f"{_who(ctx)}: final pass rate " + ", ".join(
            f"{m} {Measure(r['counts']['final_plans'], r['queries']).text()}" for m, r in rates.items())
            + (f" (the paper's GPT-4 + PMC: {cell_text(published.rows[-1], 'GPT-4 + PMC')}% on the test set)"
               if published is not None and "GPT-4 + PMC" in published.columns else ""))
        return t

    def _constraints(self, ctx: StudyContext, tp: dict, data_label: str) -> StudyTable:
        published = find_published("pmc.table3")
        pub_cols = list(published.columns) if published is not None else []
        method_names = {"ReAct": "ReAct + CoT", "SP": "Sole-planning", "PMC": "PMC"}
        order = (("react", "ReAct"), ("sp", "SP"), ("pmc", "PMC"))  # the paper's column order
        ours = [(key, level, f"{_who(ctx)} {method_names[m]} / {level.title()}") for key, m in order for level in LEVELS]
        t = StudyTable(id="pmc.table3", where="Table 3", row_header="Constraint",
                       title="TravelPlanner pass rate per constraint, with the hint (easy / medium / hard)",
                       columns=pub_cols + [c for _, _, c in ours])
        by_label = {norm(r.label): r for r in published.rows} if published is not None else {}
        if published is None:
            t.notes.append(NOT_SHIPPED + " (pmc.table3); see the paper's Table 3")
        for group, names in CONSTRAINTS:
            for name in names:
                # the paper prints "Miminum Nights Stay"
                prow = by_label.get(norm(name)) or by_label.get(norm(name.replace("Minimum", "Miminum")))
                cells: dict[str, Cell] = {c: (cell_text(prow, c) or "") for c in pub_cols}
                for key, level, col in ours:
                    counts = tp[("hint", key)][level]["official"]["constraints"].get(name)
                    cells[col] = (Measure(counts["passed"], counts["passed"] + counts["failed"]) if counts else
                                  Missing("the constraint was never scored at this level"))
                t.rows.append(TableRow(f"{group}: {name}", cells))
        final: dict[str, Cell] = {c: (cell_text(by_label.get(norm("Final Pass Rate")), c) or "") for c in pub_cols}
        for key, level, col in ours:
            r = tp[("hint", key)][level]["official"]
            final[col] = Measure(r["counts"]["final_plans"], r["queries"]) if r["queries"] else Missing("no query")
        t.rows.append(TableRow("Final: Final Pass Rate", final))
        t.notes.append(f"yours: {data_label}; a constraint's rate counts the plans it was scored on (hard constraints "
                       "only where the query sets them and the plan is complete and in the sandbox)")
        pmc = tp[("hint", "pmc")]["all"]["official"]["constraints"]
        worst = min(pmc.items(), key=lambda kv: (kv[1]["passed"] / max(1, kv[1]["passed"] + kv[1]["failed"]), kv[0]),
                    default=None)
        t.reading = (f"{_who(ctx)} + PMC: weakest constraint {worst[0]} ({worst[1]['passed']}/"
                     f"{worst[1]['passed'] + worst[1]['failed']})" if worst else f"{_who(ctx)} + PMC: nothing scored")
        return t

    def _paired(self, ctx: StudyContext) -> StudyTable:
        """planprobe's: PMC against each baseline on the same queries (exact McNemar, Newcombe's interval)."""
        from ..analysis.stats import mcnemar_exact, paired_difference_ci

        t = StudyTable(id="pmc.paired", where="planprobe", row_header="comparison",
                       title="planprobe's: PMC against the baselines on the same queries (paired)",
                       columns=["PMC", "baseline", "PMC − baseline [95% CI]", "McNemar exact p"])
        pairs = [(f"TravelPlanner {'with' if h == 'hint' else 'without'} the hint: PMC vs {m}", f"tp-{h}-pmc",
                  f"tp-{h}-{key}") for h, _ in HINTS for key, _, _, m in TP_METHODS if key != "pmc"]
        pairs += [(f"API-Bank level 3 (runs passed): PMC vs {m}", "apibank-pmc", f"apibank-{key}")
                  for key, _, m in AB_METHODS if key != "pmc"]
        significant = []
        for label, a, b in pairs:
            ra, rb = _passes(Path(ctx.directory) / "runs" / a), _passes(Path(ctx.directory) / "runs" / b)
            shared = sorted(set(ra) & set(rb))
            both = sum(ra[c] and rb[c] for c in shared)
            only_a = sum(ra[c] and not rb[c] for c in shared)
            only_b = sum(rb[c] and not ra[c] for c in shared)
            lo, hi = paired_difference_ci(both, only_a, only_b, len(shared) - both - only_a - only_b)
            p = mcnemar_exact(only_a, only_b)
            none = Missing("no query in both runs")
            t.rows.append(TableRow(label, {
                "PMC": Measure(both + only_a, len(shared)), "baseline": Measure(both + only_b, len(shared)),
                "PMC − baseline [95% CI]": (f"{100 * (only_a - only_b) / len(shared):+.1f} pp [{100 * lo:+.1f}, "
                                            f"{100 * hi:+.1f}]" if shared else none),
                "McNemar exact p": f"{p:.3g}" if shared else none}, source="planprobe"))
            if shared and p < 0.05:
                significant.append(label)
        t.notes.append("TravelPlanner: the official final pass of each query (sole-planning and two-stage cases of "
                       "one query paired by its index); API-Bank: a run passes when every recorded call was made and "
                       "none was incorrect")
        t.reading = ("PMC and its baseline differ (p < 0.05) on: " + "; ".join(significant) if significant
                     else "no comparison differs at p < 0.05")
        return t

    def _api_bank(self, ctx: StudyContext, ab: dict[str, dict[str, Any]]) -> StudyTable:
        published = find_published("pmc.table4")
        pub_cols = list(published.columns) if published is not None else []
        col = _who(ctx)
        t = StudyTable(id="pmc.table4", where="Table 4", row_header="",
                       title="API-Bank level 3: correctness, completeness, ROUGE-L, tool repeats",
                       columns=pub_cols + [col])
        prows = {(norm(r.group or ""), norm(r.label)): r for r in published.rows} if published is not None else {}
        if published is None:
            t.notes.append(NOT_SHIPPED + " (pmc.table4); see the paper's Table 4")
        blocks = (("Correctness %", lambda f: Measure(f["unique_correct"], f["predictions"])),
                  ("Completeness %", lambda f: Measure(f["unique_correct"], f["required"])),
                  ("ROUGE", lambda f: _mean_text(f["rouge"])),
                  ("Tool Repeats", lambda f: str(f["repeats"])))
        for block, figure in blocks:
            for key, _, method in AB_METHODS:
                prow = prows.get((norm(block), norm(method)))
                cells: dict[str, Cell] = {c: (cell_text(prow, c) or "") for c in pub_cols}
                cells[col] = figure(ab[key]) if ab[key]["runs"] else Missing("no requirement run")
                t.rows.append(TableRow(f"{block}: {method}", cells))
        for key, _, method in AB_METHODS:
            t.rows.append(TableRow(f"planprobe: runs passed: {method}", {
                col: Measure(ab[key]["passed"], ab[key]["runs"])}, source="planprobe"))
        n = ab["pmc"]["runs"]
        t.notes.append(f"yours: {n} of API-Bank's 50 level-3 requirements, whole runs (docs/api-bank.md: PMC's metrics "
                       "as planprobe reads them: micro over runs; Tool Repeats a count); ROUGE-L: mean [95% normal "
                       "interval]")
        t.notes.append("planprobe: a run passes when every recorded call was made and no call was incorrect")
        t.reading = f"{col}: correctness " + ", ".join(
            f"{m} {Measure(ab[k]['unique_correct'], ab[k]['predictions']).text()}" for k, _, m in AB_METHODS)
        return t


def _mean_text(values: list[float]) -> str:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return f"{mean:.4f} [{max(0.0, mean - half):.4f}-{min(1.0, mean + half):.4f}] (n={n})"


def _passes(run: Path) -> dict[str, bool]:
    """Query -> passed (first trial; infrastructure failures left out); a TravelPlanner case id
    loses its mode so a sole-planning and a two-stage case of one query pair up."""
    from ..analysis.compare import outcomes
    from ..runner.store import RunStore

    store = RunStore(run)
    try:
        found = outcomes(store)
    finally:
        store.close()
    return {cid.removesuffix("-sole-planning").removesuffix("-two-stage"): trials[0][0]
            for cid, trials in found.items() if 0 in trials}


def tp_figures(run: Path) -> dict[str, dict[str, Any]]:
    """The official and strict tallies of a TravelPlanner run, over all queries and per level.
    Infrastructure failures are left out; an unfinished episode is not delivered."""
    from ..runner.store import RunStore
    from ..suites.travelplanner.evaluation import PlanEvaluation
    from ..suites.travelplanner.metrics import Tally

    tallies = {scope: {"official": Tally(), "strict": Tally()} for scope in ("all", *LEVELS)}
    store = RunStore(run)
    try:
        rows = store.db.execute("SELECT c.meta, r.infra, r.verdict FROM results r JOIN cases c ON c.case_id = "
                                "r.case_id ORDER BY c.ordinal, r.trial").fetchall()
    finally:
        store.close()
    for meta_json, infra, verdict_json in rows:
        labels = (json.loads(verdict_json).get("labels") or {}).get("travelplanner")
        if infra or labels is None:
            continue
        level = json.loads(meta_json).get("topic")
        for scope in ("all", level):
            if scope not in tallies:
                continue
            for reading, tally in tallies[scope].items():
                ev = PlanEvaluation.from_json(labels[reading]) if labels.get("delivered") else None
                tally.add(int(labels["hard_total"]), ev)
    return {scope: {k: t.to_json() for k, t in readings.items()} for scope, readings in tallies.items()}


def ab_figures(run: Path) -> dict[str, Any]:
    """PMC's API-Bank figures of a run of level-3 run cases, summed over runs (docs/api-bank.md)."""
    from ..runner.store import RunStore

    out: dict[str, Any] = {"runs": 0, "passed": 0, "predictions": 0, "required": 0, "unique_correct": 0,
                           "repeats": 0, "rouge": []}
    store = RunStore(run)
    try:
        rows = store.db.execute("SELECT infra, verdict FROM results ORDER BY case_id, trial").fetchall()
    finally:
        store.close()
    for infra, verdict_json in rows:
        labels = (json.loads(verdict_json).get("labels") or {}).get("api_bank") or {}
        if infra or labels.get("kind") != "run":
            continue
        out["runs"] += 1
        complete = int(labels.get("unique_correct") or 0) == int(labels.get("required") or 0)
        out["passed"] += complete and not int(labels.get("incorrect") or 0)
        for key in ("predictions", "required", "unique_correct", "repeats"):
            out[key] += int(labels.get(key) or 0)
        out["rouge"].append(float(labels.get("rouge_l") or 0.0))
    return out


STUDY = PMCStudy()
