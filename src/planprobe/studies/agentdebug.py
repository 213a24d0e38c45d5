"""The AgentDebug study (seed 003: "Where LLM Agents Fail and How They Can Learn from Failures"):
critical-error detection (§4.1, Table 1; Fig. 7b) and downstream debugging by re-rollouts
(§4.2, Fig. 5; Fig. 7a/7c) on one agent and model, with planprobe's formal labels as the truth.

The paper's environments (ALFWorld, WebShop, GAIA) are not planprobe's; three families with
formal labels stand in, one per environment, in Table 1's column order (``FAMILIES``). Steps,
each the library code of a planprobe command, in ``DIR``:

1. ``run FAMILY``: the agent on the family's cases (``planprobe generate`` + ``run``);
2. ``label FAMILY``: every failure labelled formally, the error bench written in AgentDebug's
   trajectory format (``planprobe errorbench``) to ``bench/FAMILY.jsonl``;
3. ``detect``: each detector's picks on each family (a file per family and detector) (``planprobe detect -o``), scored against
   the formal labels: Step, Step+Module, All correct (Table 1), and planprobe's within [E, PNR];
4. ``repair FAMILY CONDITION``: re-rollouts from the detected step with feedback (AgentDebug),
   restarts without feedback (Best-of-N) and with the failure as feedback (Self-Refine), and
   planprobe's from the formal E and from a random step (``planprobe debug``).

Every step writes its file when it is done; a re-run reads finished files back.
"""

from __future__ import annotations

import asyncio
import functools
import json
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
from .paper_data import add_published_rows, find_published, norm
from .runs import run_study_suite

PAPER = ("Zhu et al., Where LLM Agents Fail and How They Can Learn from Failures (AgentDebug: AgentErrorTaxonomy, "
         "AgentErrorBench), seed 003")
# (key, title, the paper's environment it stands in for)
FAMILIES = (("blocksworld", "Blocksworld", "ALFWorld"), ("constraints", "Constraints", "WebShop"),
            ("logistics", "Logistics", "GAIA"))
METRICS = (("S", "step"), ("S+M", "step_module"), ("ALL", "all_correct"))
PAPER_DETECTORS = (("direct", "Direct Prompting"), ("brute-force", "Brute Force"),
                   ("binary-search", "Binary Search"), ("agentdebug", "AgentDebug"))
PLANPROBE_DETECTORS = (("random", "planprobe: random pick (chance)"),
                       ("oracle", "planprobe: oracle (the formal label: the ceiling)"))
DETECTORS = tuple(d for d, _ in PAPER_DETECTORS + PLANPROBE_DETECTORS)
REPAIRS = (("agentdebug", "AgentDebug"), ("none", "Best-of-N"), ("self-refine", "Self-Refine"))
PLANPROBE_REPAIRS = (("oracle", "planprobe: from the formal E (oracle pick)"),
                     ("random", "planprobe: from a random step"))
CONDITIONS = tuple(c for c, _ in REPAIRS + PLANPROBE_REPAIRS)
NO_FAILURE = "no failed trajectory to score: every case passed (or failed with no step to name)"


@dataclass(frozen=True)
class AgentDebugSize:
    cases: tuple[int, int, int]  # per family, in FAMILIES' order
    iterations: int
    timeout: float
    rounds: int
    detector_tokens: int
    blocks: tuple[int, int]
    actions: tuple[int, int]
    cities: tuple[int, int]  # logistics
    locations: tuple[int, int]
    packages: tuple[int, int]
    repairs: tuple[str, ...] = CONDITIONS  # the repair conditions run


SIZES = {
    # full: planprobe's generator defaults for the worlds (the paper's environments are not these)
    "full": AgentDebugSize(cases=(100, 50, 50), iterations=50, timeout=180.0, rounds=5, detector_tokens=400,
                           blocks=(3, 5), actions=(3, 5), cities=(2, 3), locations=(1, 3), packages=(1, 3)),
    # quick: minutes-to-tens-of-minutes on the embedded model; a perfect agent still fits every case in
    # the cap (3 blocks take at most 8 actions); the paper's repair conditions only
    "quick": AgentDebugSize(cases=(1, 1, 1), iterations=10, timeout=600.0, rounds=1, detector_tokens=160,
                            blocks=(3, 3), actions=(3, 3), cities=(2, 2), locations=(1, 1), packages=(1, 1),
                            repairs=("agentdebug", "none", "self-refine")),
    "tiny": AgentDebugSize(cases=(2, 2, 2), iterations=24, timeout=180.0, rounds=2, detector_tokens=200,
                           blocks=(3, 4), actions=(3, 4), cities=(2, 2), locations=(1, 2), packages=(1, 2)),
}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    from ..atomic import write_lines_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines_atomic(path, [json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows])


def _key(metadata: dict[str, Any]) -> str:
    return f"{metadata.get('task_id')}#{metadata.get('trial', 0)}"


def detector_model(ctx: StudyContext) -> Any | None:
    """The user's model, which the detectors ask (the agent's own; None without --model)."""
    if not ctx.config.model:
        return None
    model = getattr(ctx.agent, "model", None) or getattr(ctx.agent, "models", None)  # python: agents keep models
    get = getattr(model, "get", None)  # a RoleModels: the agent role's model (or the default)
    return get("agent") if callable(get) and hasattr(model, "models") else model


async def release_connections(model: Any) -> None:
    """Close the HTTP connections an endpoint model opened in this event loop, keeping the model
    (the agent's) for the next loop (``OpenAIModel.release``). Left open, they would be closed from a
    later loop and fail there, noisily. A model without connections (the embedded one, the solver)
    has no ``release``: nothing to do."""
    seen = 0
    while model is not None and seen < 8:  # through wrappers (the record/replay cache) to the backend
        release = getattr(model, "release", None)
        if release is not None:
            await release()
        model, seen = getattr(model, "inner", None), seen + 1


class ReleasingAgent:
    """The study's agent for one re-rollout (its own event loop): it closes the endpoint connections
    it opened before that loop ends (``release_connections``)."""

    def __init__(self, agent: Any, model: Any) -> None:
        self.agent, self.model, self.name = agent, model, agent.name
        self.resumable = bool(getattr(agent, "resumable", True))

    async def __call__(self, case: Any, env: Any) -> str | None:
        try:
            return await self.agent(case, env)
        finally:
            await release_connections(self.model)

    async def resume(self, case: Any, env: Any, prefix: Any) -> str | None:
        try:
            return await self.agent.resume(case, env, prefix)
        finally:
            await release_connections(self.model)


@dataclass
class FamilyResult:
    """One family's run, bench, picks and repairs, as read from its files."""

    key: str
    cases: int = 0
    passed: int = 0
    bench: list[dict[str, Any]] | None = None  # every labelled failure (critical_error None: no step)
    picks: dict[str, list[dict[str, Any]]] | None = None  # detector -> rows
    repairs: dict[str, list[dict[str, Any]]] | None = None  # condition -> CaseRepair rows
    unlabellable: int = 0

    @property
    def scored(self) -> list[dict[str, Any]]:
        return [r for r in self.bench or [] if r["critical_error"] is not None]


class AgentDebugStudy:
    name = "agentdebug"
    paper = PAPER
    description = ("AgentDebug §4: critical-error detection (Table 1, Fig. 7b) scored against planprobe's formal "
                   "labels, and repair by re-rollouts from the detected step (Fig. 5, 7a) against Best-of-N and "
                   "Self-Refine")
    needs = "nothing to download: planprobe generates the cases and labels every failure formally"
    model_agent = "modular"  # §3, Fig. 7c: AgentDebug's agents roll out modularly

    def limits(self, size: str) -> tuple[int, float]:
        s = SIZES[size]
        return s.iterations, s.timeout

    def settings(self, size: str) -> list[Setting]:
        s = SIZES[size]
        fams = ", ".join(f"{title} for {env}" for _, title, env in FAMILIES)
        return [
            Setting("environments", fams,
                    "§4.1: ALFWorld, WebShop, GAIA (not in planprobe). planprobe's families with formal labels stand in, "
                    "one per environment in Table 1's order: Blocksworld (an embodied world acted on one action at a "
                    "time, as ALFWorld's PDDL-based household tasks), Constraints (a goal under stated constraints "
                    "reached by tool calls, as WebShop's structured constraints), Logistics (longer multi-tool plans; "
                    "no analogue of GAIA's open-domain questions)", chosen=True),
            Setting("cases per family", "/".join(str(n) for n in s.cases),
                    "§2.2: AgentErrorBench holds 100 ALFWorld, 50 WebShop and 50 GAIA failed trajectories; planprobe "
                    "runs that many cases per family and benches every failure (so at most that many)", chosen=True),
            Setting("worlds", f"Blocksworld: blocks {_span(s.blocks)}; Constraints: actions {_span(s.actions)}; "
                              f"Logistics: cities {_span(s.cities)}, locations per city {_span(s.locations)}, "
                              f"packages {_span(s.packages)}",
                    "not in the paper: planprobe's generator defaults" if size == "full" else
                    "small worlds that a perfect agent finishes within the iteration cap", chosen=True),
            Setting("agent", "--agent given; with --model and no --agent: modular (memory, reflection, plan, action)",
                    "§3 and Figs. 17-19: the modular rollout; Fig. 7c: it beats ReAct, Reflection, Act-only"),
            Setting("iterations per case", s.iterations,
                    "not in the paper (its Step Limit Exhaustion type implies a cap)" if size == "full" else
                    "a small cap so the stage-1 prompts (4 per step) stay few at this size", chosen=True),
            Setting("time per case", f"{s.timeout:g} s", "not in the paper", chosen=True),
            Setting("truth", "the formal earliest error E (step, module, type; planprobe label)",
                    "§2.2: human annotators' root cause (Cohen's κ 0.55). planprobe's truth is formal: the earliest "
                    "formally detectable error (docs/debugging.md)", chosen=True),
            Setting("detector model", "the --model given (the agent's), temperature 0",
                    "§4.1: GPT-4.1 at temperature 0; Fig. 7b: other base models"),
            Setting("detector reply", f"at most {s.detector_tokens} tokens", "not in the paper", chosen=True),
            Setting("detectors", "Direct Prompting, Brute Force, Binary Search, AgentDebug (two-stage); planprobe's "
                                 "random and oracle",
                    "§4.1 Baselines; Brute Force and Binary Search ask the model whether the run is still "
                    "recoverable instead of re-rolling out (deviation: docs/debugging.md)"),
            Setting("metrics", "Step (S), Step+Module (S+M), All correct (ALL); Fig. 7b's Error: the type alone",
                    "§4.1 Evaluation Metric; Average: pooled over the trajectories (the paper's average of the three "
                    "environments' rates)"),
            Setting("re-rollouts", f"up to {s.rounds} per failed case, from the detected step",
                    "§4.2 Implementation: up to N = 5 re-rollouts, each beginning at the identified critical step"
                    if size == "full" else "§4.2: N = 5; fewer at this size", chosen=size != "full"),
            Setting("repair baselines", "Best-of-N (fresh restarts, no feedback), Self-Refine (restart with the "
                                        "failure as feedback), at the same number of attempts"
                    + ("; planprobe's: from the formal E and from a random step" if "oracle" in s.repairs else
                       "; planprobe's (from the formal E, from a random step) not at this size"),
                    "§4.2 Baselines (also Vanilla Debugger and ToT, not built); the paper matches token budgets, "
                    "planprobe matches attempts and reports tokens"),
            Setting("success", "cases passed at the first attempt, and passed or fixed within the re-rollouts",
                    "§4.2 and Fig. 5: first attempt against AgentDebug"),
        ]

    def steps(self, size: str) -> list[str]:
        out = [f"run {f}" for f, _, _ in FAMILIES] + [f"label {f}" for f, _, _ in FAMILIES]
        out += ["detect"]
        out += [f"repair {f} {c}" for f, _, _ in FAMILIES for c in CONDITIONS]
        return out

    # -- the steps ------------------------------------------------------------------------

    def run(self, ctx: StudyContext) -> StudyOutcome:
        from ..agents.prefix import can_resume

        s = SIZES[ctx.size]
        model = detector_model(ctx)
        resumable = can_resume(ctx.agent)
        results = {f: FamilyResult(f) for f, _, _ in FAMILIES}
        out = StudyOutcome()
        for (fam, _, _), n in zip(FAMILIES, s.cases):
            ctx.step(f"run {fam}", functools.partial(self._run_family, ctx, fam, n))
            out.runs.append(f"runs/{fam}")
        for fam, _, _ in FAMILIES:
            _count(ctx, results[fam])
        for fam, _, _ in FAMILIES:
            results[fam].bench = ctx.step(f"label {fam}", functools.partial(self._bench, ctx, fam))
        detectors = [d for d in DETECTORS if model is not None or d not in ("agentdebug", "direct", "brute-force",
                                                                            "binary-search")]
        picks = ctx.step("detect", functools.partial(self._detect, ctx, results, detectors, model, s.detector_tokens))
        for fam, _, _ in FAMILIES:
            results[fam].picks = picks[fam]
        for fam, _, _ in FAMILIES:
            repairs: dict[str, list[dict[str, Any]]] = {}
            results[fam].repairs = repairs
            if not resumable:
                continue
            for cond in s.repairs:
                if cond not in ("none", "self-refine") and cond not in picks[fam]:
                    continue
                if not results[fam].bench:
                    repairs[cond] = []  # no failure: nothing to re-roll out
                    continue
                repairs[cond] = ctx.step(f"repair {fam} {cond}", functools.partial(
                    self._repair, ctx, fam, cond, results[fam], s.rounds))
        why_no_model = "the model detectors need a model: run with --model"
        why_no_repair = (f"agent {ctx.config.agent} cannot continue from a step: repair needs --agent modular, react, "
                         "tools or a python: agent taking 'prefix'")
        out.tables += [self._bench_table(ctx, results), self._table1(ctx, results, why_no_model),
                       self._formal(ctx, results), self._figure7b(ctx, results, why_no_model),
                       self._figure5(ctx, results, why_no_model, why_no_repair, s.rounds),
                       self._repair_table(ctx, results, why_no_model, why_no_repair, s.rounds),
                       self._figure7c(ctx, results)]
        out.plots.append(self._plot(ctx, results, s.rounds))
        return out

    def _run_family(self, ctx: StudyContext, fam: str, n: int) -> None:
        from ..suites.io import write_suite

        s = SIZES[ctx.size]
        suite = Path(ctx.directory) / "suites" / f"{fam}.jsonl"
        if not suite.exists():  # written atomically: a file that exists is whole; the same seed, the same bytes
            write_suite(self._cases(fam, n, ctx.seed, s), suite)
        model = detector_model(ctx)
        run_study_suite(ctx, suite, fam,
                        aclose=(lambda: release_connections(model)) if model is not None else None)

    @staticmethod
    def _cases(fam: str, n: int, seed: int, s: AgentDebugSize) -> list:
        if fam == "constraints":
            from ..suites.constraints import generator

            return list(generator.generate_cases(generator.ConstraintSuiteOptions(n=n, seed=seed, actions=s.actions)))
        from ..suites.pddl_agent import PDDLSuiteOptions, generate_cases

        opts = (PDDLSuiteOptions(domain="blocksworld", n=n, seed=seed, blocks=s.blocks) if fam == "blocksworld" else
                PDDLSuiteOptions(domain="logistics", n=n, seed=seed, cities=s.cities, locations=s.locations,
                                 packages=s.packages))
        opts.check()
        return list(generate_cases(opts))

    def _bench(self, ctx: StudyContext, fam: str) -> list[dict[str, Any]]:
        """Every failure of the family's run, labelled, in AgentDebug's trajectory format."""
        from ..debug.bench import bench_record
        from ..debug.run_labels import LabelCounts, label_run

        path = Path(ctx.directory) / "bench" / f"{fam}.jsonl"
        if path.exists():
            return _lines(path)
        run = Path(ctx.directory) / "runs" / fam
        counts = LabelCounts()
        labelled = label_run(run, counts, workers=ctx.workers, backend=ctx.backend, address=ctx.address)
        rows = [bench_record(case, trace, labels, run=fam) for case, trace, labels in labelled]
        _write(path, rows)
        ctx.say(f"  {fam}: {len(rows)} failure(s) labelled, {counts.passed} passed")
        return rows

    def _detect(self, ctx: StudyContext, results: dict[str, FamilyResult], detectors: list[str], model: Any,
                tokens: int) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """Each detector's pick on every trajectory with a step, beside its truth (``detect -o``), one
        file per family and detector (read back when it exists); one event loop for all of them."""
        from ..debug.detectors import MODEL_DETECTORS, ModelAsker, Pick, detect_one
        from ..errors import ContextLimitError

        async def go() -> dict[str, dict[str, list[dict[str, Any]]]]:
            out: dict[str, dict[str, list[dict[str, Any]]]] = {}
            try:
                for fam, _, _ in FAMILIES:
                    out[fam] = {}
                    for det in detectors:
                        path = Path(ctx.directory) / "detect" / f"{fam}-{det}.jsonl"
                        if path.exists():
                            out[fam][det] = _lines(path)
                            continue
                        ask = ModelAsker(model, tokens) if det in MODEL_DETECTORS else None
                        rows = []
                        for r in results[fam].scored:
                            row = {"task_id": r["metadata"]["task_id"], "trial": r["metadata"].get("trial", 0),
                                   "truth": r["critical_error"]}
                            try:
                                row["pick"] = (await detect_one(det, r, ctx.seed, ask)).to_json()
                            except ContextLimitError as exc:  # the trajectory does not fit the model: no answer
                                row["pick"], row["no_answer"] = Pick().to_json(), f"context limit: {exc}"[:300]
                            rows.append(row)
                        _write(path, rows)
                        out[fam][det] = rows
            finally:
                if model is not None:
                    await release_connections(model)
            return out

        return asyncio.run(go())

    def _repair(self, ctx: StudyContext, fam: str, cond: str, result: FamilyResult, rounds: int) -> list[dict[str, Any]]:
        """Every labelled failure re-rolled out under ``cond`` (``planprobe debug``), in the run's order."""
        from ..debug.repair import repair_case
        from ..debug.run_labels import LabelCounts, failed_results

        path = Path(ctx.directory) / "repair" / f"{fam}-{cond}.jsonl"
        if path.exists():
            return _lines(path)
        model = detector_model(ctx)
        picks = {f"{p['task_id']}#{p['trial']}": p["pick"] for p in (result.picks or {}).get(cond, [])}
        run = Path(ctx.directory) / "runs" / fam
        rows = []
        for case, trace, verdict, _limit in list(failed_results(run, LabelCounts())):
            pick = _pick(picks.get(f"{case.id}#{trace.trial}")) if cond not in ("none", "self-refine") else None
            repaired = repair_case(run, case.id, trace.trial, verdict, cond, pick,
                                   lambda: ReleasingAgent(ctx.agent, model), rounds, ctx.config.model)
            rows.append(repaired.to_json())
        _write(path, rows)
        fixed = sum(r["fixed_at"] is not None for r in rows)
        ctx.say(f"  {fam} {cond}: {fixed}/{len(rows)} fixed")
        return rows

    # -- the tables -----------------------------------------------------------------------

    def _bench_table(self, ctx: StudyContext, results: dict[str, FamilyResult]) -> StudyTable:
        from collections import Counter

        t = StudyTable(id="agentdebug.bench", where="planprobe", row_header="family (in the place of)",
                       title="planprobe's error bench: the failures of your agent, labelled formally",
                       columns=["cases", "first-attempt success", "failures labelled", "with a step to name",
                                "E by module"])
        for fam, title, env in FAMILIES:
            r = results[fam]
            mods = Counter(x["critical_error"]["critical_module"] for x in r.scored)
            t.rows.append(TableRow(f"{title} ({env})", {
                "cases": str(r.cases), "first-attempt success": Measure(r.passed, r.cases),
                "failures labelled": str(len(r.bench or [])), "with a step to name": str(len(r.scored)),
                "E by module": ", ".join(f"{m} {k}" for m, k in sorted(mods.items(), key=lambda kv: (-kv[1], kv[0])))
                or "—"}, source="planprobe"))
        total = sum(len(r.scored) for r in results.values())
        t.notes.append("E: the earliest formally detectable error of each failed trace (planprobe label); a failure "
                       "with no step (no action, no answer) is labelled but has no step to name, as in errorbench")
        t.reading = (f"{yours(ctx)}: {total} failed trajectories with a step to name make the bench" if total else
                     f"{yours(ctx)}: no failed trajectory with a step: the detection tables have nothing to score")
        return t

    def _table1(self, ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str) -> StudyTable:
        from ..debug.detectors import MODEL_DETECTORS

        cols = [f"{env} / {title} {m}" for _, title, env in FAMILIES for m, _ in METRICS]
        cols += [f"Average {m}" for m, _ in METRICS]
        t = StudyTable(id="agentdebug.table1", where="Table 1", row_header="Method",
                       title="critical-error detection accuracy: Step (S), Step+Module (S+M), All correct (ALL)",
                       columns=cols)
        published = find_published("agentdebug.table1")
        if published is not None:  # the paper's "ALFWorld S" goes under "ALFWorld / Blocksworld S"
            place = {norm(f"{env} {m}"): f"{env} / {title} {m}" for _, title, env in FAMILIES for m, _ in METRICS}
            place.update({norm(f"Average {m}"): f"Average {m}" for m, _ in METRICS})
            for prow in published.rows:
                cells: dict[str, Any] = {place[norm(k)]: v.text for k, v in prow.cells.items() if norm(k) in place}
                t.rows.append(TableRow(prow.label, cells, source="paper"))
        else:
            add_published_rows(t)  # says it is not shipped
        for det, title in PAPER_DETECTORS + PLANPROBE_DETECTORS:
            label = f"yours: {title} ({ctx.config.model or 'no model'})" if det in MODEL_DETECTORS else title
            cells = {}
            for fam, ftitle, env in FAMILIES:
                scores = _score(results[fam], det)
                for m, key in METRICS:
                    cells[f"{env} / {ftitle} {m}"] = _cell(scores, key, det, why_no_model, results[fam])
            pooled = _pooled(results, det)
            for m, key in METRICS:
                cells[f"Average {m}"] = (Missing(why_no_model) if pooled is None and det in MODEL_DETECTORS else
                                         Missing(NO_FAILURE) if pooled is None or not pooled.n else
                                         Measure(getattr(pooled, key), pooled.n))
            t.rows.append(TableRow(label, cells, source="yours" if det in MODEL_DETECTORS else "planprobe"))
        t.notes.append("the paper's rows: its environments (left of each '/'), human-annotated truth; yours: "
                       "planprobe's family in that place (right), the formal labels as truth")
        t.notes.append("planprobe's Brute Force and Binary Search name a step only (a yes/no question per prefix, "
                       "docs/debugging.md): their S+M and ALL are 0 by construction")
        t.notes.append("Average: the paper averages the three environments' rates; planprobe pools the trajectories "
                       "(each figure with its 95% Wilson interval)")
        chance = _chance(results)
        if chance is not None:
            t.notes.append(f"chance: a uniform pick names the step with probability {100 * chance:.1f}% on average "
                           "(1/n over each trajectory's n steps)")
        t.reading = _reading_table1(ctx, results)
        return t

    def _formal(self, ctx: StudyContext, results: dict[str, FamilyResult]) -> StudyTable:
        t = StudyTable(id="agentdebug.formal", where="planprobe", row_header="detector",
                       title="planprobe's: the detectors against the formal labels beyond Table 1",
                       columns=["answered", "within [E, PNR]", "mean |distance| from E", "model calls", "tokens"])
        best = None
        for det, title in PAPER_DETECTORS + PLANPROBE_DETECTORS:
            pooled = _pooled(results, det)
            if pooled is None:
                continue
            label = f"{title} ({ctx.config.model})" if not title.startswith("planprobe") else title
            if not pooled.n:
                t.rows.append(TableRow(label, {c: Missing(NO_FAILURE) for c in t.columns}, source="planprobe"))
                continue
            dist = (f"{sum(pooled.distances) / len(pooled.distances):.2f} steps" if pooled.distances
                    else Missing("no pick answered"))
            t.rows.append(TableRow(label, {"answered": Measure(pooled.answered, pooled.n),
                                           "within [E, PNR]": Measure(pooled.within, pooled.n),
                                           "mean |distance| from E": dist, "model calls": str(pooled.calls),
                                           "tokens": str(pooled.tokens)}, source="planprobe"))
            if det != "oracle" and (best is None or pooled.within > best[1]):
                best = (title, pooled.within, pooled.n)
        overflow = sum(1 for r in results.values() for rows in (r.picks or {}).values() for p in rows
                       if p.get("no_answer"))
        if overflow:
            t.notes.append(f"{overflow} pick(s) without an answer: the trajectory did not fit the model's context "
                           "window; counted in n, never guessed")
        t.notes.append("within [E, PNR]: the pick lies between the earliest error and the point of no return (or the "
                       "budget PNR) — every step there still leads to the loss; the paper has no such notion")
        t.reading = (f"closest to the formal labels (within [E, PNR], the oracle aside): {best[0]} "
                     f"({Measure(best[1], best[2]).text()})" if best and best[2] else NO_FAILURE)
        return t

    def _figure7b(self, ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str) -> StudyTable:
        t = StudyTable(id="agentdebug.figure7b", where="Fig. 7b", row_header="Base Model",
                       title="AgentDebug's detection accuracy by its base model: Step, Error (type), Step+M, All",
                       columns=["Step", "Error", "Step+M", "All"])
        add_published_rows(t)
        pooled = _pooled(results, "agentdebug")
        label = f"yours: {ctx.config.model or 'no model'}"
        if pooled is None:
            t.rows.append(TableRow(label, {c: Missing(why_no_model) for c in t.columns}))
            t.reading = "no model: AgentDebug's detector was not run"
        elif not pooled.n:
            t.rows.append(TableRow(label, {c: Missing(NO_FAILURE) for c in t.columns}))
            t.reading = NO_FAILURE
        else:
            rows = [p for fam in results.values() for p in (fam.picks or {}).get("agentdebug", [])]
            error = sum(1 for p in rows if p["pick"].get("error_type") and p["truth"] and
                        p["pick"]["error_type"] == p["truth"]["error_type"])
            t.rows.append(TableRow(label, {"Step": Measure(pooled.step, pooled.n), "Error": Measure(error, pooled.n),
                                           "Step+M": Measure(pooled.step_module, pooled.n),
                                           "All": Measure(pooled.all_correct, pooled.n)}))
            t.reading = (f"{label} as AgentDebug's detector: step {Measure(pooled.step, pooled.n).text()}, all correct "
                         f"{Measure(pooled.all_correct, pooled.n).text()}"
                         + _paper("agentdebug.figure7b", "GPT-4.1", ("Step", "All"), "GPT-4.1 in the paper"))
        t.notes.append("pooled over the three families; Error: the error type alone right, at any step")
        return t

    def _success(self, results: dict[str, FamilyResult], fams: list[str], cond: str,
                 rounds: int) -> Measure | None:
        total = sum(results[f].cases for f in fams)
        passed = sum(results[f].passed for f in fams)
        fixed = 0
        for f in fams:
            rows = (results[f].repairs or {}).get(cond)
            if rows is None:
                if results[f].bench:  # failures, and this condition was not run
                    return None
                continue
            fixed += sum(1 for r in rows if r["fixed_at"] is not None and r["fixed_at"] <= rounds)
        return Measure(passed + fixed, total)

    def _figure5(self, ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str, why_no_repair: str,
                 rounds: int) -> StudyTable:
        from ..agents.prefix import can_resume

        t = StudyTable(id="agentdebug.figure5_text", where="Fig. 5", row_header="agent backbone",
                       title=f"task success: first attempt and after up to {_times(rounds)}",
                       columns=["First attempt", "AgentDebug", "Best-of-N", "Self-Refine"])
        add_published_rows(t)
        for row in t.rows:
            for c in ("Best-of-N", "Self-Refine"):
                row.cells[c] = Missing("the paper's baselines are only plotted (Fig. 5): not shipped")
        fams = [[f] for f, _, _ in FAMILIES] + [[f for f, _, _ in FAMILIES]]
        for group in fams:
            name = (next(f"{title}, in {env}'s place" for f, title, env in FAMILIES if f == group[0])
                    if len(group) == 1 else "all families")
            cells: dict[str, Any] = {"First attempt": Measure(sum(results[f].passed for f in group),
                                                              sum(results[f].cases for f in group))}
            for cond, col in REPAIRS:
                m = self._success(results, group, cond, rounds)
                cells[col] = m if m is not None else Missing(
                    why_no_repair if not can_resume(ctx.agent) else why_no_model)
            t.rows.append(TableRow(f"{yours(ctx)} ({name})", cells))
        t.notes.append("the paper's figures are ALFWorld's (read from its text: 'from 21 (first attempt) to 55'); its "
                       "Blocksworld row stands in for ALFWorld; success counts a case passed at the first attempt or "
                       "fixed within the re-rollouts")
        first = t.rows[-1].cells["First attempt"]
        after = t.rows[-1].cells["AgentDebug"]
        if isinstance(first, Measure) and isinstance(after, Measure):
            t.reading = f"{yours(ctx)}: {first.text()} at the first attempt, {after.text()} with AgentDebug"
        elif isinstance(first, Measure):
            t.reading = f"{yours(ctx)}: {first.text()} at the first attempt; no AgentDebug repair (see '—')"
        return t

    def _repair_table(self, ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str,
                      why_no_repair: str, rounds: int) -> StudyTable:
        from ..agents.prefix import can_resume
        from ..analysis.stats import mcnemar_exact

        t = StudyTable(id="agentdebug.repair", where="planprobe", row_header="repair",
                       title=f"planprobe's: failed cases fixed within {_times(rounds)}, paired against Best-of-N",
                       columns=[title for _, title, _ in FAMILIES] + ["all", "tokens", "vs Best-of-N (McNemar p)"])
        failed = sum(len(r.bench or []) for r in results.values())
        base = self._fixed_set(results, "none", rounds)
        for cond, title in REPAIRS + PLANPROBE_REPAIRS:
            why = (why_no_repair if not can_resume(ctx.agent) else
                   f"not run at size {ctx.size} (the paper's repairs only)" if cond not in SIZES[ctx.size].repairs
                   else why_no_model)
            cells: dict[str, Any] = {}
            fixed_all, n_all, tokens, ran = 0, 0, 0, True
            for fam, ftitle, _ in FAMILIES:
                rows = (results[fam].repairs or {}).get(cond)
                if rows is None:
                    ran = ran and not results[fam].bench
                    cells[ftitle] = Missing(why) if results[fam].bench else Missing("no failure to repair")
                    continue
                k = sum(1 for r in rows if r["fixed_at"] is not None)
                fixed_all, n_all = fixed_all + k, n_all + len(rows)
                tokens += sum(x.get("tokens", 0) for r in rows for x in r["rounds"])
                cells[ftitle] = Measure(k, len(rows)) if rows else Missing("no failure to repair")
            cells["all"] = Measure(fixed_all, n_all) if ran and n_all else Missing(why if not ran else
                                                                                   "no failure to repair")
            cells["tokens"] = str(tokens) if ran and n_all else Missing(why if not ran else "no failure to repair")
            mine = self._fixed_set(results, cond, rounds)
            if cond == "none":
                cells["vs Best-of-N (McNemar p)"] = "—"
            elif not failed:
                cells["vs Best-of-N (McNemar p)"] = Missing("no failure to repair")
            elif mine is None or base is None or not n_all:
                cells["vs Best-of-N (McNemar p)"] = Missing("both repairs are needed for the paired test")
            else:
                b, c = len(mine - base), len(base - mine)
                cells["vs Best-of-N (McNemar p)"] = f"{mcnemar_exact(b, c):.3g} (+{b} / −{c})"
            t.rows.append(TableRow(title, cells, source="yours" if not title.startswith("planprobe") else "planprobe"))
        t.notes.append("each failed case is re-rolled out under every repair (its attempts stored in its run, "
                       "planprobe debug); paired: the cases one repair fixes and the other does not (+ / −)")
        if not failed:
            t.reading = "no failure: nothing to repair"
        else:
            m = self._fixed_set(results, "agentdebug", rounds)
            t.reading = (f"AgentDebug fixed {len(m)} of {failed} failed cases, Best-of-N {len(base)}"
                         if m is not None and base is not None else
                         "AgentDebug's repair did not run (see '—')")
        return t

    def _fixed_set(self, results: dict[str, FamilyResult], cond: str, rounds: int) -> set[str] | None:
        out: set[str] = set()
        for fam, r in results.items():
            rows = (r.repairs or {}).get(cond)
            if rows is None:
                if r.bench:
                    return None
                continue
            out |= {f"{fam}:{x['case_id']}#{x['trial']}" for x in rows
                    if x["fixed_at"] is not None and x["fixed_at"] <= rounds}
        return out

    def _figure7c(self, ctx: StudyContext, results: dict[str, FamilyResult]) -> StudyTable:
        t = StudyTable(id="agentdebug.figure7c", where="Fig. 7c", row_header="Rollout Strategy",
                       title="first-attempt success by rollout strategy (the paper's: ALFWorld, zero-shot)",
                       columns=["Success Rate"])
        add_published_rows(t)
        bw = results["blocksworld"]
        t.rows.append(TableRow(f"{yours(ctx)} (Blocksworld)", {"Success Rate": Measure(bw.passed, bw.cases)}))
        t.notes.append("the paper's figures are fractions of ALFWorld's tasks; yours: Blocksworld in its place. Run "
                       "the study with another --agent (react, tools, modular) for another strategy's row")
        t.reading = f"{yours(ctx)}: {Measure(bw.passed, bw.cases).text()} of the Blocksworld cases at the first attempt"
        return t

    def _plot(self, ctx: StudyContext, results: dict[str, FamilyResult], rounds: int) -> dict[str, Any]:
        fams = [f for f, _, _ in FAMILIES]
        series = []
        for cond, title in REPAIRS + PLANPROBE_REPAIRS:
            pts = []
            for k in range(rounds + 1):
                m = (Measure(sum(results[f].passed for f in fams), sum(results[f].cases for f in fams)) if k == 0
                     else self._success(results, fams, cond, k))
                if m is None:
                    break
                lo, hi = m.ci95
                pts.append({"x": k, "y": m.value, "lo": lo, "hi": hi})
            if len(pts) > 1:
                series.append({"label": title, "points": pts})
        return {"id": "agentdebug-attempts", "title": "Task success over re-rollouts (Fig. 7a)",
                "x": "re-rollouts", "series": series}


def _paper(table_id: str, row: str, columns: tuple[str, ...], what: str) -> str:
    """" (what: a and b)" from the published data; empty when it is not shipped."""
    published = find_published(table_id)
    try:
        texts = [published.cell(row, c).text for c in columns] if published is not None else []
    except LookupError:
        texts = []
    return f" ({what}: {' and '.join(texts)})" if texts else ""


def _times(rounds: int) -> str:
    return f"{rounds} re-rollout{'s' if rounds != 1 else ''}"


def _span(r: tuple[int, int]) -> str:
    return str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"


def _pick(data: dict[str, Any] | None) -> Any:
    from ..debug.detectors import Pick

    if not data or data.get("critical_step") is None:
        return None
    return Pick(step=data["critical_step"], module=data.get("critical_module", ""), type=data.get("error_type", ""),
                root_cause=data.get("root_cause", ""), evidence=data.get("evidence", ""),
                guidance=data.get("correction_guidance", ""))


def _count(ctx: StudyContext, result: FamilyResult) -> None:
    from ..analysis.compare import outcomes
    from ..runner.store import RunStore

    store = RunStore(Path(ctx.directory) / "runs" / result.key)
    try:
        got = {cid: trials[0][0] for cid, trials in outcomes(store).items() if 0 in trials}
    finally:
        store.close()
    result.cases, result.passed = len(got), sum(got.values())


def _score(result: FamilyResult, det: str) -> Any | None:
    """The detector's Score on the family (None when it did not run)."""
    from ..debug.detect_score import Score
    from ..debug.detectors import Pick

    rows = (result.picks or {}).get(det)
    if rows is None:
        return None
    labels = {_key(r["metadata"]): r.get("labels") for r in result.bench or []}
    score = Score()
    for row in rows:
        p = row["pick"]
        score.add(row["truth"], labels.get(f"{row['task_id']}#{row['trial']}"),
                  Pick(step=p.get("critical_step"), module=p.get("critical_module", ""), type=p.get("error_type", ""),
                       calls=p.get("model_calls", 0), tokens=p.get("tokens", 0)))
    return score


def _pooled(results: dict[str, FamilyResult], det: str) -> Any | None:
    from ..debug.detect_score import Score

    scores = [_score(r, det) for r in results.values()]
    if any(s is None for s in scores):
        return None
    total = Score()
    for s in scores:
        assert s is not None
        for f in ("n", "step", "step_module", "all_correct", "within", "answered", "calls", "tokens"):
            setattr(total, f, getattr(total, f) + getattr(s, f))
        total.distances += s.distances
    return total


def _cell(score: Any | None, key: str, det: str, why_no_model: str, result: FamilyResult) -> Any:
    if score is None:
        return Missing(why_no_model)
    if not score.n:
        return Missing(NO_FAILURE)
    return Measure(getattr(score, key), score.n)


def _chance(results: dict[str, FamilyResult]) -> float | None:
    from ..debug.detectors import last_step

    ns = [last_step(r) for fam in results.values() for r in fam.scored]
    return sum(1 / n for n in ns) / len(ns) if ns else None


def _reading_table1(ctx: StudyContext, results: dict[str, FamilyResult]) -> str:
    n = sum(len(r.scored) for r in results.values())
    if not n:
        return f"{yours(ctx)}: {NO_FAILURE}"
    mine = _pooled(results, "agentdebug")
    rnd = _pooled(results, "random")
    parts = []
    if mine is not None:
        parts.append(f"AgentDebug with {ctx.config.model}: S {Measure(mine.step, mine.n).text()}, ALL "
                     f"{Measure(mine.all_correct, mine.n).text()}"
                     + _paper("agentdebug.table1", "AgentDebug", ("Average S", "Average ALL"), "the paper's average"))
    else:
        parts.append("no model: the paper's detectors were not run")
    if rnd is not None:
        parts.append(f"random: S {Measure(rnd.step, rnd.n).text()}")
    return f"{n} failed trajectories scored; " + "; ".join(parts)


STUDY = AgentDebugStudy()
