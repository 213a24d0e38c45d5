# ruff: noqa: UP045  (Optional kept as these commands were written)
"""``planprobe detect`` (critical-error detectors scored against formal labels) and
``planprobe debug`` (re-rollouts from the detected step with feedback). A thin layer over
planprobe.debug.detectors / detect_score / repair; registers itself on the main app."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Optional

import typer

from ..errors import PlanprobeError
from .common import _progress, out_console
from .options import (
    Address,
    ApiKeyEnv,
    Backend,
    BaseUrl,
    Cache,
    Ctx,
    ProcessWorkers,
    Quiet,
    Threads,
    model_options,
    scale_options,
)


def _factory(model: Optional[str], base_url: Optional[str], api_key_env: str, cache: bool, threads: Optional[int],
             ctx: int):
    from ..models.factory import model_factory

    return model_factory(model, model_options(base_url=base_url, api_key_env=api_key_env, cache=cache,
                                              threads=threads, n_ctx=ctx))


def _check_local(threads: Optional[int], ctx: int) -> None:
    """One line for a bad embedded-model option, before any file is read."""
    from ..option_checks import check

    check("--threads", threads, at_least=1)
    check("--ctx", ctx, at_least=1)


def detect(
    bench: list[Path] = typer.Argument(..., help="Error benchmark files (planprobe errorbench -o …, or import agentdebug)."),
    detector: str = typer.Option(..., "--detector", help="agentdebug | direct | brute-force | binary-search | oracle | random."),
    model: Optional[str] = typer.Option(None, help="The detector's model: local or openai:<model>."),
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    cache: Cache = True,
    threads: Threads = None,
    ctx: Ctx = 4096,
    max_tokens: int = typer.Option(400, help="Max tokens per detector reply."),
    seed: int = typer.Option(0, help="Seed of the random detector."),
    limit: Optional[int] = typer.Option(None, help="Score only the first N labelled trajectories (at least 1; default: all)."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write every pick and its score (JSONL)."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON."),
    quiet: Quiet = False,
) -> None:
    """Score a critical-error detector against formal labels: Step, Step+Module, All-correct (95% CIs),
    within [E, PNR] and the distance in steps from E."""
    from ..atomic import write_lines_atomic
    from ..debug.bench import read_trajectories
    from ..debug.detect_score import Score
    from ..debug.detectors import (
        MODEL_DETECTORS,
        ModelAsker,
        check_detector,
        detect_one,
    )
    from ..option_checks import check

    check_detector(detector)
    _check_local(threads, ctx)
    check("--limit", limit, at_least=1)  # 0 or less would score nothing: leave --limit out to score all
    if detector in MODEL_DETECTORS and model is None:
        raise PlanprobeError(f"--detector {detector} needs a model: add --model local or --model openai:<model>")
    read = [r for f in bench for r in read_trajectories(f)]
    records = [r for r in read if r["critical_error"] is not None]
    unlabelled = len(read) - len(records)  # no critical_error: not annotated, or no step to name
    if not records:
        raise PlanprobeError(f"{', '.join(map(str, bench))}: no trajectory with a critical_error label to score "
                             "against (write one with planprobe errorbench RUN -o bench.jsonl)")
    records = records[:limit] if limit is not None else records
    make = _factory(model if detector in MODEL_DETECTORS else None, base_url, api_key_env, cache, threads, ctx)
    score, lines = Score(), []
    replayed = 0  # calls answered from the record/replay cache: counted as calls, their tokens are not

    async def run_all(progress, task) -> None:
        m = make() if make is not None else None
        ask = ModelAsker(m, max_tokens) if m is not None else None
        try:
            for r in records:
                pick = await detect_one(detector, r, seed, ask)
                row = score.add(r["critical_error"], r.get("labels"), pick)
                lines.append(json.dumps({"task_id": r["metadata"].get("task_id"), "truth": r["critical_error"],
                                         "pick": pick.to_json(), "score": row}, sort_keys=True, ensure_ascii=False))
                progress.advance(task)
        finally:
            if m is not None:
                nonlocal replayed
                replayed = ask.replayed if ask is not None else 0
                await m.aclose()

    with _progress(quiet or len(records) < 20) as progress:
        asyncio.run(run_all(progress, progress.add_task(f"detect ({detector})", total=len(records))))
    if output is not None:
        write_lines_atomic(output, lines)
    summary = {"detector": detector, "model": model, **score.to_json(), "replayed_calls": replayed,
               "unlabelled": unlabelled}
    if as_json:
        out_console.print(json.dumps(summary, sort_keys=True), soft_wrap=True, highlight=False)
        return
    out_console.print(f"{detector}: {score.n} labelled failed trajectories ({score.answered} answered)"
                      + (f"; {unlabelled} without a critical_error not scored" if unlabelled else ""), highlight=False)
    for key, label in (("step", "Step"), ("step_module", "Step+Module"), ("all_correct", "All correct"),
                       ("within_e_pnr", "within [E, PNR]")):
        s = summary[key]
        out_console.print(f"  {label:<16} {s['rate']:.1%}  95% CI [{s['ci95'][0]:.1%}, {s['ci95'][1]:.1%}]  "
                          f"({s['k']}/{score.n})", highlight=False)
    out_console.print(f"  distance from E: mean {summary['distance_mean']} median {summary['distance_median']} "
                      f"steps; {score.calls} model calls ({replayed} replayed from the cache, their tokens not counted), "
                      f"{score.tokens} tokens", highlight=False)


def debug(
    run_dir: Path = typer.Argument(..., help="A run directory (planprobe run --out …)."),
    detector: str = typer.Option("agentdebug", "--detector",
                                 help="agentdebug | direct | brute-force | binary-search | oracle | random | none "
                                      "(Best-of-N restarts) | self-refine."),
    max_rounds: int = typer.Option(5, "--max-rounds", help="Re-rollouts per failed case at most."),
    agent: Optional[str] = typer.Option(None, help="The agent that continues (default: the run's)."),
    model: Optional[str] = typer.Option(None, help="Model of the agent and of a model detector."),
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    cache: Cache = True,
    threads: Threads = None,
    ctx: Ctx = 4096,
    seed: int = typer.Option(0, help="Seed of the agent, the model and the random detector."),
    limit: Optional[int] = typer.Option(None, help="Debug only the first N failed cases (at least 1; default: all)."),
    restart_temperature: float = typer.Option(
        0.7, "--restart-temperature",  # debug.restarts.RESTART_TEMPERATURE (not imported: a light CLI)
        help="Sampling temperature of the Best-of-N restarts (--detector none), each with its own seed and "
             "cache entry; the repairs with feedback keep the run's settings."),
    html: Optional[Path] = typer.Option(None, "--html", help="Also write the step timelines and rounds as HTML."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    quiet: Quiet = False,
    workers: ProcessWorkers = 1,
    backend: Backend = "processes",
    address: Address = None,
) -> None:
    """Repair failed runs: re-roll out from the detected critical step with feedback naming the error
    type and what to do instead, refined after each failed attempt (AgentDebug Alg. 1, stage 3)."""
    from ..analysis.stats import mcnemar_exact
    from ..atomic import write_lines_atomic
    from ..debug.detectors import MODEL_DETECTORS
    from ..debug.parallel import DebugJob, debug_elsewhere, debug_one
    from ..debug.repair import REPAIR_DETECTORS, rounds_summary
    from ..debug.restarts import agent_maker
    from ..debug.run_labels import LabelCounts, failed_results, no_labels_message
    from ..option_checks import check

    if detector not in REPAIR_DETECTORS:
        raise PlanprobeError(f"unknown detector {detector!r}: use one of {', '.join(REPAIR_DETECTORS)}")
    check("--max-rounds", max_rounds, at_least=1)
    check("--limit", limit, at_least=1)  # 0 or less would debug nothing: leave --limit out to debug all
    check("--workers", workers, at_least=1)
    check("--restart-temperature", restart_temperature, at_least=0)
    _check_local(threads, ctx)
    scale_options(workers, backend, address)  # one line for a bad option, before any work
    counts = LabelCounts()
    failed = list(failed_results(run_dir, counts))
    if not failed:
        if counts.other_family:
            raise PlanprobeError(no_labels_message(str(run_dir), counts.other_family))
        out_console.print(f"{run_dir}: all {counts.passed} results passed; nothing to debug", highlight=False)
        return
    failed = failed[:limit] if limit is not None else failed
    if model is None and detector in MODEL_DETECTORS:
        raise PlanprobeError(f"--detector {detector} needs a model: add --model local or --model openai:<model>")
    spec = agent or failed[0][1].agent
    make = _factory(model, base_url, api_key_env, cache, threads, ctx)

    new_agent = agent_maker(spec, seed, make, None, restart_temperature)
    the_agent = new_agent(0)
    from ..agents.prefix import can_resume

    if not can_resume(the_agent):
        raise PlanprobeError(f"agent {spec!r} cannot continue from a step (no resume); debug with --agent tools, "
                             "react, modular or a python: agent that takes 'prefix'")
    results, all_labels = [], []
    with _progress(quiet or len(failed) < 5) as progress:
        task = progress.add_task(f"debug ({detector})", total=len(failed))
        job = DebugJob(run_dir, detector, spec, seed, max_rounds, model, base_url, api_key_env, cache, threads, ctx,
                       restart_temperature)
        elsewhere = backend == "ray" or (workers > 1 and len(failed) > 1)
        if elsewhere:  # repaired elsewhere (processes or Ray), stored here (the one holder of the lock)
            from ..runner.store import RunStore
            from ..scale.pool import ordered_map
            from ..schema import Trace, Verdict

            with RunStore(run_dir, write=True) as store:
                for labels_json, repair, attempts in ordered_map(debug_elsewhere, ((job, *f) for f in failed),
                                                                 workers, chunk=1, what="repair",
                                                                 backend=backend, address=address):
                    for raw_trace, raw_verdict in attempts:
                        store.add_rerollout(Trace.model_validate_json(raw_trace),
                                            Verdict.model_validate_json(raw_verdict))
                    all_labels.append(labels_json)
                    results.append(repair)
                    progress.advance(task)
        for case, trace, verdict, limit_steps in ([] if elsewhere else failed):
            labels_json, repair = debug_one(job, case, trace, verdict, limit_steps, make, new_agent)
            all_labels.append(labels_json)
            results.append(repair)
            progress.advance(task)
    out_path = run_dir / f"debug-{detector}.jsonl"
    write_lines_atomic(out_path, [json.dumps(r.to_json(), sort_keys=True, ensure_ascii=False) for r in results])
    if html is not None:
        from ..atomic import write_text_atomic
        from ..debug.timeline_html import render

        write_text_atomic(html, render(str(run_dir), detector, [{"labels": lab, "repair": r.to_json()}
                                                                 for lab, r in zip(all_labels, results)]))
    n = len(results)
    rounds = rounds_summary(results, max_rounds)
    fixed = rounds[-1]["fixed"]
    summary = {"detector": detector, "agent": spec, "model": model, "failed": n, "passed_before": counts.passed,
               "rounds": rounds, "fixed": fixed,
               **({"restart_temperature": restart_temperature} if detector == "none" else {}),
               "paired": {"before_fail_after_pass": fixed, "before_pass_after_fail": 0,
                          "mcnemar_p": round(mcnemar_exact(0, fixed), 6)},
               "output": str(out_path)}
    if as_json:
        out_console.print(json.dumps(summary, sort_keys=True), soft_wrap=True, highlight=False)
        return
    out_console.print(f"debugged {n} failed cases with {detector} (agent {spec}); results -> {out_path}",
                      highlight=False)
    for r in rounds:
        out_console.print(f"  after round {r['round']}: {r['fixed']}/{n} fixed ({r['rate']:.1%}, 95% CI "
                          f"[{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}]), {r['tokens']} tokens"
                          + (f" ({r['replayed_calls']} calls replayed from the cache, their tokens not counted)"
                             if r["replayed_calls"] else ""), highlight=False)
    total = n + counts.passed
    out_console.print(f"  success on the run: {counts.passed}/{total} before, {counts.passed + fixed}/{total} after "
                      f"(exact McNemar p = {summary['paired']['mcnemar_p']})", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(detect)
    app.command()(debug)
