"""The AgentDebug study's steps (``agentdebug.py`` runs them in order): the agent's run of each
family, the formal labels of its failures (the error bench), the detectors' picks and the
re-rollouts. Each step writes its file when it is done, and a re-run reads finished files back.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from .agentdebug_setup import FAMILIES, SIZES, AgentDebugSize, FamilyResult
from .base import StudyContext
from .runs import run_study_suite


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(path: Path, rows: list[dict[str, Any]]) -> None:
    from ..atomic import write_lines_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines_atomic(path, [json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows])


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


def run_family(ctx: StudyContext, fam: str, n: int) -> None:
    """The agent on the family's cases (``generate`` + ``run``), resumed where it stopped."""
    from ..suites.io import write_suite

    s = SIZES[ctx.size]
    suite = Path(ctx.directory) / "suites" / f"{fam}.jsonl"
    if not suite.exists():  # written atomically: a file that exists is whole; the same seed, the same bytes
        write_suite(family_cases(fam, n, ctx.seed, s), suite)
    model = detector_model(ctx)
    run_study_suite(ctx, suite, fam,
                    aclose=(lambda: release_connections(model)) if model is not None else None)

def family_cases(fam: str, n: int, seed: int, s: AgentDebugSize) -> list:
    """The family's cases at this size, from the seed (the same seed, the same cases)."""
    if fam == "constraints":
        from ..suites.constraints import generator

        return list(generator.generate_cases(generator.ConstraintSuiteOptions(n=n, seed=seed, actions=s.actions)))
    from ..suites.pddl_agent import PDDLSuiteOptions, generate_cases

    opts = (PDDLSuiteOptions(domain="blocksworld", n=n, seed=seed, blocks=s.blocks) if fam == "blocksworld" else
            PDDLSuiteOptions(domain="logistics", n=n, seed=seed, cities=s.cities, locations=s.locations,
                             packages=s.packages))
    opts.check()
    return list(generate_cases(opts))

def bench(ctx: StudyContext, fam: str) -> list[dict[str, Any]]:
    """Every failure of the family's run, labelled, in AgentDebug's trajectory format."""
    from ..debug.bench import bench_record
    from ..debug.run_labels import LabelCounts, label_run

    path = Path(ctx.directory) / "bench" / f"{fam}.jsonl"
    if path.exists():
        return lines(path)
    run = Path(ctx.directory) / "runs" / fam
    counts = LabelCounts()
    labelled = label_run(run, counts, workers=ctx.workers, backend=ctx.backend, address=ctx.address)
    rows = [bench_record(case, trace, labels, run=fam) for case, trace, labels in labelled]
    write(path, rows)
    ctx.say(f"  {fam}: {len(rows)} failure(s) labelled, {counts.passed} passed")
    return rows

def detect(ctx: StudyContext, results: dict[str, FamilyResult], detectors: list[str], model: Any,
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
                        out[fam][det] = lines(path)
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
                    write(path, rows)
                    out[fam][det] = rows
        finally:
            if model is not None:
                await release_connections(model)
        return out

    return asyncio.run(go())

def repair(ctx: StudyContext, fam: str, cond: str, result: FamilyResult, rounds: int) -> list[dict[str, Any]]:
    """Every labelled failure re-rolled out under ``cond`` (``planprobe debug``), in the run's order."""
    from ..debug.repair import repair_case
    from ..debug.run_labels import LabelCounts, failed_results

    path = Path(ctx.directory) / "repair" / f"{fam}-{cond}.jsonl"
    if path.exists():
        return lines(path)
    model = detector_model(ctx)
    picks = {f"{p['task_id']}#{p['trial']}": p["pick"] for p in (result.picks or {}).get(cond, [])}
    run = Path(ctx.directory) / "runs" / fam
    rows = []
    for case, trace, verdict, _limit in list(failed_results(run, LabelCounts())):
        pick = _pick(picks.get(f"{case.id}#{trace.trial}")) if cond not in ("none", "self-refine") else None
        repaired = repair_case(run, case.id, trace.trial, verdict, cond, pick,
                               lambda draw: ReleasingAgent(restart_agent(ctx, draw), model), rounds,
                               ctx.config.model)
        rows.append(repaired.to_json())
    write(path, rows)
    fixed = sum(r["fixed_at"] is not None for r in rows)
    ctx.say(f"  {fam} {cond}: {fixed}/{len(rows)} fixed")
    return rows

def restart_agent(ctx: StudyContext, draw: int) -> Any:
    """The study's agent for an attempt: draw 0 the agent itself (the repairs with feedback), draw
    k >= 1 Best-of-N restart k, a sample of its own (``debug.restarts``; study setting "Best-of-N
    restarts")."""
    if draw == 0:
        return ctx.agent
    from ..debug.restarts import RESTART_TEMPERATURE, agent_maker

    models = ctx.models
    return agent_maker(ctx.config.agent, ctx.seed, (lambda: models) if models is not None else None,
                       ctx.params if models is not None else None, RESTART_TEMPERATURE)(draw)

# -- the tables -----------------------------------------------------------------------


def _pick(data: dict[str, Any] | None) -> Any:
    from ..debug.detectors import Pick

    if not data or data.get("critical_step") is None:
        return None
    return Pick(step=data["critical_step"], module=data.get("critical_module", ""), type=data.get("error_type", ""),
                root_cause=data.get("root_cause", ""), evidence=data.get("evidence", ""),
                guidance=data.get("correction_guidance", ""))


def count(ctx: StudyContext, result: FamilyResult) -> None:
    from ..analysis.compare import outcomes
    from ..runner.store import RunStore

    store = RunStore(Path(ctx.directory) / "runs" / result.key)
    try:
        got = {cid: trials[0][0] for cid, trials in outcomes(store).items() if 0 in trials}
    finally:
        store.close()
    result.cases, result.passed = len(got), sum(got.values())

