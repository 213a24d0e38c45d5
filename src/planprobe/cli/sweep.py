"""``planprobe sweep`` and ``planprobe dissect``: PDoctor's capability sweep and error
dissection (§6.2, Alg. 2), over the library's ``analysis.sweep`` and ``analysis.dissect``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer

from ..errors import PlanprobeError
from ..option_checks import check, check_limits
from .common import EXIT_INFRA, err_console, labelled, out_console
from .options import (
    Address,
    AgentName,
    ApiKeyEnv,
    AsJson,
    Backend,
    BaseUrl,
    Cache,
    Concurrency,
    IterationLimit,
    MaxTokens,
    ModelPath,
    ModelSpec,
    ProcessWorkers,
    Quiet,
    RerunAgent,
    RerunMaxIterations,
    RerunMaxTokens,
    RerunModel,
    RerunModelPath,
    RerunTemperature,
    RerunTimeout,
    Rpm,
    Temperature,
    Timeout,
    ToolResultsAs,
    Tpm,
    Workers,
    chat_params,
    model_options,
    scale_options,
    worker_recipe,
)


def sweep(
    out: Path = typer.Option(..., "--out", help="Sweep directory (suites and one run per action count); resumable."),
    agent: AgentName = None,
    model: ModelSpec = None,
    model_path: ModelPath = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    tool_results_as: ToolResultsAs = "tool",
    temperature: Temperature = 0.0,
    max_tokens: MaxTokens = 512,
    cache: Cache = True,
    extended: bool = typer.Option(False, help="Sweep the extended mode (time windows, durations)."),
    k: int = typer.Option(20, help="Cases per n are k * C(n, 2) (the seed's k = 20) ..."),
    cap: int = typer.Option(300, help="... capped at this many per n (the seed's 300)."),
    threshold: float = typer.Option(0.2, help="Stop at the first n whose success rate is below this (0.2 = 20%); "
                                              "0 runs every n up to --stop (the whole curve, no limit)."),
    start: int = typer.Option(2, help="First action count."),
    stop: int | None = typer.Option(None, help="Last action count to try (default 20; 12 extended)."),
    concurrency: Concurrency = 8,
    iteration_limit: IterationLimit = 50,
    timeout: Timeout = 180.0,
    max_sentences: int | None = typer.Option(None, help="Suites: max sentences per requirement (N in Alg. 1; "
                                                           "default grows with |A|, see 'generate constraints')."),
    max_iterations: int = typer.Option(20, help="Suites: candidate sentences per sentence (K in Alg. 1)."),
    allow_unconstrained: bool = typer.Option(False, help="Suites: keep requirements that leave an action "
                                                         "unconstrained."),
    style: str = typer.Option("planprobe", help="Suites: planprobe | paper (PDoctor's own templates, tools "
                                                "and error classes)."),
    seed: int = typer.Option(0, help="Seed for the suites (n uses seed*1000+n), agent and model."),
    as_json: AsJson = False,
    quiet: Quiet = False,
    workers: Workers = 1,
    backend: Backend = "processes",
    address: Address = None,
    rpm: Rpm = None,
    tpm: Tpm = None,
) -> None:
    """Capability sweep (PDoctor §6.2): raise the number of actions until success falls below the
    threshold. The planning limit is the first n below it (both it and the last n at or above are
    printed); OUT/sweep.json keeps the figures for 'planprobe dissect OUT'."""
    from ..agents.prepare import prepare_agent
    from ..analysis.sweep import run_sweep
    from ..environment import Limits
    from ..runner.engine import RunConfig
    from ..runner.suite_run import (
        effective_concurrency,
        params_identity,
        record_model_path,
    )
    from ..scale import WorkerRecipe, local_limits, scaled_runner

    if not 0 <= threshold <= 1 or k < 1 or cap < 1 or start < 2:
        raise PlanprobeError("--threshold must be in [0, 1], --k and --cap at least 1, --start at least 2")
    if stop is not None and stop < start:
        raise PlanprobeError(f"--stop {stop}: below --start {start}")
    check_limits(concurrency, iteration_limit, timeout)
    params = chat_params(temperature, max_tokens, seed)
    from ..suites.constraints.generator import ConstraintSuiteOptions
    from ..suites.constraints.synthesis import SynthesisOptions

    synthesis = SynthesisOptions(max_sentences=max_sentences, max_iterations=max_iterations)
    ConstraintSuiteOptions(style=style, synthesis=synthesis).check()  # one line naming a bad option
    options = model_options(base_url=base_url, api_key_env=api_key_env, tool_results_as=tool_results_as, cache=cache,
                            model_path=model_path)
    scale = scale_options(workers, backend, address, rpm, tpm)
    if scale is not None and scale.rate:  # one pacing state for every point, not a fresh one per point
        from dataclasses import replace

        scale = replace(scale, rate_file=out.resolve() / "ratelimit.json")
    agent_name, agent_obj, model_obj = prepare_agent(agent, model, options, params, seed)
    concurrency = effective_concurrency(model, concurrency, lambda note: err_console.print(note, highlight=False))
    config = RunConfig(agent=agent_name, model=model_obj.name if model_obj else None, concurrency=concurrency,
                       models=model_obj.names() if model_obj else {},
                       limits=Limits(max_iterations=iteration_limit, timeout_s=timeout), seed=seed,
                       model_params=params_identity(params, options) if model_obj else "")

    def on_point(p) -> None:
        if not quiet:
            lo, hi = p.ci95
            err_console.print(f"n={p.actions:<3} {p.cases:>4} cases  success {100 * p.rate:5.1f}% "
                              f"[{100 * lo:.1f}-{100 * hi:.1f}]" + (f"  ({p.infra} infra)" if p.infra else ""),
                              highlight=False)

    try:
        with local_limits(scale):  # --rpm/--tpm in this process (workers: the rate file or Ray's actor)
            result = run_sweep(out, agent_obj, config, extended=extended, k=k, cap=cap, threshold=threshold,
                               start=start, synthesis=synthesis, style=style, allow_unconstrained=allow_unconstrained,
                               stop=stop, seed=seed, on_point=on_point,
                               on_store=lambda store: record_model_path(store, model, options),
                               runner=scaled_runner(scale, WorkerRecipe(agent_name, model,
                                                                        options if model else None, params), config))
    finally:
        if model_obj is not None:
            asyncio.run(model_obj.aclose())
        if scale is not None and scale.rate_file is not None:
            scale.rate_file.unlink(missing_ok=True)
    if as_json:
        print(json.dumps(result.to_json(), indent=2, sort_keys=True))
    else:
        out_console.print(result.describe(), highlight=False)
    if result.infra_at is not None:
        if as_json:
            err_console.print(result.describe(), highlight=False)
        raise typer.Exit(EXIT_INFRA)


def _format_share(count: int, share: float, ci) -> str:
    return f"{count:>5}  {100 * share:5.1f}% [{100 * ci[0]:4.1f}-{100 * ci[1]:5.1f}]"


def dissect(
    path: Path = typer.Argument(..., help="A run directory, or a sweep directory (then the failures with n up to "
                                          "its planning limit)."),
    agent: RerunAgent = None,
    model: RerunModel = None,
    model_path: RerunModelPath = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    tool_results_as: ToolResultsAs = "tool",
    temperature: RerunTemperature = None,
    max_tokens: RerunMaxTokens = None,
    cache: Cache = True,
    k: int = typer.Option(3, help="Mutants tried per stage (Terminal, Topic, Structure); K in Alg. 2."),
    sample: int = typer.Option(100, help="Failures to dissect: a uniform seeded sample of those within the "
                                         "limit (the paper's 100)."),
    max_actions: int | None = typer.Option(None, help="Only failures with at most this many actions (default: "
                                                         "a sweep's planning limit; a run's every case)."),
    baseline: bool = typer.Option(True, help="Also measure the chance baseline (re-runs of the unchanged case in "
                                             "place of each mutation); --no-baseline halves the cost but leaves "
                                             "the shares without a yardstick."),
    phrasing: bool = typer.Option(True, help="Try the Phrasing stage before Terminal: each connective word "
                                             "reworded away alone, so a word can be named as the cause; "
                                             "--no-phrasing runs the seed's Alg. 2 as published."),
    max_iterations: RerunMaxIterations = None,
    timeout: RerunTimeout = None,
    seed: int = typer.Option(0, help="Seed for the sample, the mutations, the agent and the model."),
    as_json: AsJson = False,
    quiet: Quiet = False,
    workers: ProcessWorkers = 1,
    backend: Backend = "processes",
    address: Address = None,
) -> None:
    """Error dissection (PDoctor Alg. 2, §6.2): root causes — Probability, Phrasing (a connective
    word), Terminal, Topic, Structure or Constraint — of a random sample of failures within the
    planning limit, each next to its chance baseline with a significance test. Each settled case
    goes to its run's dissect.jsonl at once (resumable)."""
    from ..agents.prepare import prepare_agent
    from ..analysis.dissect import CAUSES, DissectInfraError, dissect_run
    from ..analysis.rerun import choose_rerun, stored_limits, stored_params
    from ..analysis.sweep import SWEEP_FILE, run_dir
    from ..environment import Limits
    from ..runner.engine import RunConfig
    from ..runner.store import RunStore

    check_limits(1, max_iterations, timeout)
    chat_params(temperature, max_tokens, seed)  # checks the sampling options
    check("--k", k, at_least=1)
    check("--sample", sample, at_least=1)
    scale_options(workers, backend, address)  # one line for a bad option, before any work
    if max_actions is not None and max_actions < 2:
        raise PlanprobeError(f"--max-actions {max_actions}: must be at least 2")
    first_run = path
    if (path / SWEEP_FILE).exists():
        from ..analysis.sweep import read_sweep

        points = read_sweep(path)["points"]
        if not points:
            raise PlanprobeError(f"{path}: the sweep has no finished action count yet")
        first_run = run_dir(path, points[0]["actions"])
    store = RunStore(first_run)
    meta = store.meta()
    store.close()
    choice = choose_rerun(meta, str(path), agent, model, model_path)
    run_iterations, run_timeout = stored_limits(meta)
    run_temperature, run_max_tokens = stored_params(meta)
    if (max_iterations is not None and max_iterations < 1) or (timeout is not None and not timeout > 0) \
            or (max_tokens is not None and max_tokens < 1):
        raise PlanprobeError("--max-iterations and --max-tokens must be at least 1, --timeout above 0")
    max_iterations = max_iterations if max_iterations is not None else (run_iterations or 50)
    timeout = timeout if timeout is not None else (run_timeout or 180.0)
    params = chat_params(temperature if temperature is not None else (run_temperature or 0.0),
                         max_tokens if max_tokens is not None else (run_max_tokens or 512), seed)
    options = model_options(base_url=base_url, api_key_env=api_key_env, tool_results_as=tool_results_as, cache=cache,
                            model_path=choice.model_path)
    agent_name, agent_obj, model_obj = prepare_agent(choice.agent, choice.model, options, params, seed)
    config = RunConfig(agent=agent_name, model=model_obj.name if model_obj else None,
                       models=model_obj.names() if model_obj else {},
                       limits=Limits(max_iterations=max_iterations, timeout_s=timeout), seed=seed)
    recorded = meta.get("model") or None
    if model_obj is not None and recorded and model_obj.name != recorded and not quiet:
        err_console.print(f"note: the run used {recorded}; re-running with {model_obj.name}",
                          highlight=False)

    def on_plan(population: int, todo: int) -> None:
        if not quiet and not as_json:
            err_console.print(f"{population} failures within the limit; {todo} of the sample still to dissect",
                              highlight=False)

    def on_case(row) -> None:
        if not quiet and not as_json:
            base = f"; baseline {row['baseline_cause']}" if "baseline_cause" in row else ""
            runs = len(row["attempts"]) + len(row.get("baseline_attempts", []))
            cause = row["cause"] + (f" ({', '.join(row['connectives'])})" if row.get("connectives") else "")
            err_console.print(f"{row['case_id']}: {cause}{base} ({runs} re-runs)", highlight=False)

    try:
        report = dissect_run(path, agent_obj, config, k=k, sample=sample, seed=seed, baseline=baseline,
                             max_actions=max_actions, phrasing=phrasing, on_case=on_case, on_plan=on_plan, workers=workers,
                             recipe=worker_recipe(workers, agent_name, choice.model, options, params, backend),
                             backend=backend, address=address)
    except DissectInfraError as exc:
        labelled("error:", str(exc), style="red")
        raise typer.Exit(EXIT_INFRA)
    finally:
        if model_obj is not None:
            asyncio.run(model_obj.aclose())
    data = report.to_json()
    if as_json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return
    _print_dissection(data, CAUSES)


def _p_text(p: float) -> str:
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def _print_dissection(data: dict, causes: tuple[str, ...]) -> None:
    """The root-cause table, each cause beside its chance baseline and its test; then the
    connective words the Phrasing stage named."""
    total, base, tests = data["cases"], data["baseline"], data["significance"]
    out_console.print(f"root causes of {total} failures sampled from {data['failures_within_limit']} within the "
                      f"limit ({data['scope']}; seed Alg. 2, Tables 4 and 7):", highlight=False)
    head = f"  {'cause':<12} {'cases':>5}  {'share [95% CI]':<20}"
    if base is not None:
        head += "  chance baseline [95% CI]   p (> baseline)"
    out_console.print(head, highlight=False)
    for c in causes:
        if c == "Phrasing" and not data["phrasing"]:
            continue
        line = f"  {c:<12} " + _format_share(data["causes"][c], data["shares"][c], data["ci95"][c])
        if base is not None:
            line += "  " + _format_share(base["causes"][c], base["shares"][c], base["ci95"][c])
            line += "   = by construction" if c == "Probability" else f"   {_p_text(tests[c]['p_value'])}"
        out_console.print(line, highlight=False)
    if base is None:
        out_console.print("no chance baseline (some cases were dissected with --no-baseline): a share cannot be "
                          "told from noise", highlight=False)
    else:
        out_console.print("chance baseline: " + base["method"] + "; a share no higher than its baseline is not "
                          "evidence of that cause", highlight=False)
        out_console.print(base["probability"] + "; p: " + tests["method"], highlight=False)
    if data["connectives"]:
        out_console.print("connective words named by the Phrasing stage (cases whose minimal pair without the word "
                          "passed; alone: the only word that did):", highlight=False)
        for e in data["connectives"]:
            line = f"  {e['word']!r:<14} " + _format_share(e["cases"], e["share"], e["ci95"]) + f"  alone {e['alone']:>3}"
            if base is not None:
                line += (f"  baseline {e['baseline_cases']:>3}  difference {100 * e['difference']:+5.1f} pp "
                         f"[{100 * e['difference_ci95'][0]:+.1f}, {100 * e['difference_ci95'][1]:+.1f}]  "
                         f"p {_p_text(e['p_value'])} (Holm {_p_text(e['p_holm'])})")
            out_console.print(line, highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(sweep)
    app.command()(dissect)
