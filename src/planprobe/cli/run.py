"""``planprobe run``: a suite against an agent, stored as each case finishes (resumable).

A thin layer over ``runner.suite_run.run_suite`` (the one run path) and
``agents.prepare.prepare_agent``: it reads the options, shows progress and prints
the summary; the rules live in the library.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import typer
from rich.progress import TextColumn

from ..errors import PlanprobeError
from ..option_checks import check, check_limits
from .common import (
    EXIT_INFRA,
    _progress,
    err_console,
    first_cause,
    interrupt_reported,
    stop_exit_code,
    stopped_by,
)
from .options import (
    Address,
    AgentName,
    ApiKeyEnv,
    Backend,
    BaseUrl,
    Cache,
    CachePath,
    Concurrency,
    Ctx,
    MaxIterations,
    MaxTokens,
    ModelPath,
    ModelSpec,
    PriceIn,
    PriceOut,
    Quiet,
    RequestTimeout,
    Retries,
    RetryBudget,
    Rpm,
    RunOut,
    Temperature,
    Threads,
    Timeout,
    ToolResultsAs,
    Tpm,
    Trials,
    Workers,
    chat_params,
    check_retry_options,
    model_options,
    scale_options,
)
from .show import show_run


def run_suite_cli(suite: Path, agent_name: str | None, out: Path, concurrency: int, trials: int,
                  max_iterations: int, timeout: float, seed: int, quiet: bool, model_spec: str | None = None,
                  model_options: Any = None, params: Any = None, infra_attempts: int = 3, scale: Any = None) -> None:
    from ..agents.prepare import prepare_agent
    from ..environment import Limits
    from ..runner.engine import RunConfig
    from ..runner.suite_run import (
        RunInterrupted,
        effective_concurrency,
        params_identity,
        read_suite_for_run,
        record_model_path,
        run_suite,
    )
    from ..scale import WorkerRecipe, install_local_limits, scaled_runner
    from ..schema import Trace, Verdict
    from ..suites.io import iter_suite

    check_limits(concurrency, max_iterations, timeout, trials)
    if infra_attempts < 1:
        raise PlanprobeError("--infra-attempts must be at least 1")
    if model_spec and ("openai:" in model_spec or "litellm:" in model_spec) and model_options.request_timeout >= timeout:
        raise PlanprobeError(f"--request-timeout ({model_options.request_timeout:g} s) must be below --timeout "
                             f"({timeout:g} s), so that a stalled request is cut and retried before the case's "
                             "time runs out")
    checked: list[tuple[int, str]] = []
    # the suite is checked (streaming, nothing kept) before a model is loaded; the run then
    # streams it into the store, and runs the cases from there a page at a time
    agent_name, agent, model = prepare_agent(agent_name, model_spec, model_options, params, seed,
                                             check_first=lambda: checked.append(read_suite_for_run(
                                                 suite, "pmc" if (agent_name or "") == "pmc" else "")))
    _count, digest = checked[0]
    concurrency = effective_concurrency(model_spec, concurrency,
                                        lambda note: err_console.print(note, highlight=False))
    config = RunConfig(agent=agent_name, model=model.name if model else None, models=model.names() if model else {},
                       trials=trials, concurrency=concurrency,
                       limits=Limits(max_iterations=max_iterations, timeout_s=timeout), seed=seed,
                       model_params=params_identity(params, model_options) if model else "",
                       infra_attempts=infra_attempts)
    tally: dict[str, Any] = {"passed": 0, "judged": 0, "tokens": 0, "cost": None}

    progress = _progress(quiet, TextColumn("pass {task.fields[rate]}"), TextColumn("{task.fields[usage]}"))
    with ExitStack() as shown:  # the bar starts once the run is open: a refused directory prints one line only
        tasks: list[Any] = []

        def on_open(store: Any, total: int, done_before: int) -> None:
            record_model_path(store, model_spec, model_options)
            shown.enter_context(progress)
            tasks.append(progress.add_task("running", total=total, completed=done_before, rate="-", usage=""))

        def on_result(trace: Trace, verdict: Verdict) -> None:
            if not verdict.infra:
                tally["judged"] += 1
                tally["passed"] += verdict.passed
            u = trace.usage
            tally["tokens"] += u.prompt_tokens + u.completion_tokens
            if u.cost_usd is not None:
                tally["cost"] = (tally["cost"] or 0.0) + u.cost_usd
            usage = f"{tally['tokens']:,} tok" if tally["tokens"] else ""
            if tally["cost"] is not None:
                usage += f" ${tally['cost']:.4f}"
            rate = f"{100 * tally['passed'] / tally['judged']:.0f}%" if tally["judged"] else "-"
            progress.update(tasks[0], advance=1, rate=rate, usage=usage)

        def warn(line: str) -> None:
            progress.console.print(f"warning: {line}", highlight=False, markup=False, soft_wrap=True)

        # scaled out, the workers build their own agents and this process only merges (planprobe.scale)
        runner = scaled_runner(scale, WorkerRecipe(agent_name, model_spec, model_options, params), config, warn)
        install_local_limits(scale)
        try:
            infra = run_suite(out, iter_suite(suite), agent, config, suite_name=str(suite), digest=digest,
                              on_open=on_open, on_result=on_result,
                              aclose=model.aclose if model is not None else None, runner=runner).infra
        except RunInterrupted as stop:
            progress.stop()
            err_console.print(
                f"{stopped_by()}: {stop.saved}/{stop.total} results are saved in {out}; "
                f"resume by running the same command again", highlight=False, soft_wrap=True,
            )
            interrupt_reported.append(True)
            raise typer.Exit(stop_exit_code()) from None
    show_run(out, as_json=False, infra_note=False)
    if infra:
        retry_left = sum(1 for _, _, attempts, _ in infra if attempts < infra_attempts)
        what = (f"re-run the same command to retry {retry_left} of them" if retry_left else
                f"each has had its {infra_attempts} attempts; raise --infra-attempts to try again")
        err_console.print(f"error: {len(infra)} result(s) failed for infrastructure reasons and are not counted; "
                          f"first cause: {first_cause(infra[0][3])}; {what}", highlight=False, markup=False,
                          soft_wrap=True)
        raise typer.Exit(EXIT_INFRA)


def run(
    suite: Path = typer.Argument(..., help="Suite file (JSONL) to run."),
    agent: AgentName = None,
    out: RunOut = ...,  # type: ignore[assignment]
    model: ModelSpec = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    temperature: Temperature = 0.0,
    max_tokens: MaxTokens = 512,
    request_timeout: RequestTimeout = 60.0,
    retries: Retries = 6,
    retry_budget: RetryBudget = 120.0,
    infra_attempts: int = typer.Option(3, help="Attempts per case whose result is infra (the service failed), "
                                               "counting resumes: re-running the command retries them."),
    price_in: PriceIn = None,
    price_out: PriceOut = None,
    tool_results_as: ToolResultsAs = "tool",
    cache: Cache = True,
    cache_path: CachePath = None,
    model_path: ModelPath = None,
    threads: Threads = None,
    ctx: Ctx = 4096,
    concurrency: Concurrency = 8,
    trials: Trials = 1,
    max_iterations: MaxIterations = 50,
    timeout: Timeout = 180.0,
    seed: int = typer.Option(0, help="Seed passed to the agent and the model."),
    quiet: Quiet = False,
    workers: Workers = 1,
    backend: Backend = "processes",
    address: Address = None,
    rpm: Rpm = None,
    tpm: Tpm = None,
) -> None:
    """Run a suite against an agent; results are stored in RUN_DIR as each case finishes (resumable)."""
    from ..models import Prices, RetryPolicy

    if tool_results_as not in ("tool", "user"):
        raise PlanprobeError("--tool-results-as must be 'tool' or 'user'")
    check_limits(concurrency, max_iterations, timeout, trials)
    params = chat_params(temperature, max_tokens, seed)
    check_retry_options(request_timeout, retries, retry_budget)
    check("--price-in", price_in, at_least=0)
    check("--price-out", price_out, at_least=0)
    check("--threads", threads, at_least=1)
    check("--ctx", ctx, at_least=1)
    prices = Prices(price_in or 0.0, price_out or 0.0) if (price_in is not None or price_out is not None) else None
    options = model_options(
        base_url=base_url, api_key_env=api_key_env, tool_results_as=tool_results_as, cache=cache,
        request_timeout=request_timeout, retry=RetryPolicy(max_attempts=max(1, retries), max_total_s=retry_budget),
        prices=prices, model_path=model_path, threads=threads, n_ctx=ctx, cache_path=cache_path,
    )
    scale = scale_options(workers, backend, address, rpm, tpm)
    run_suite_cli(suite, agent, out, concurrency, trials, max_iterations, timeout, seed, quiet, model, options, params,
                  infra_attempts, scale)


def register(app: typer.Typer) -> None:
    app.command()(run)
