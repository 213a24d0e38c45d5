"""``planprobe study NAME``: a paper's experiments on your model in one resumable directory,
its tables printed as the paper lays them out with the published figures beside yours;
``study --list``; ``study compare DIR1 DIR2 …``. A thin layer over ``planprobe.studies``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import typer

from ..errors import PlanprobeError
from ..option_checks import check, check_limits
from .common import EXIT_INTERRUPTED, err_console, interrupt_reported, out_console
from .options import (
    Address,
    AgentName,
    ApiKeyEnv,
    AsJson,
    Backend,
    BaseUrl,
    Cache,
    CachePath,
    Concurrency,
    Ctx,
    MaxTokens,
    ModelPath,
    ModelSpec,
    Quiet,
    Rpm,
    Temperature,
    Threads,
    ToolResultsAs,
    Tpm,
    Workers,
    chat_params,
    model_options,
    scale_options,
    worker_recipe,
)


def study(
    name: str | None = typer.Argument(None, help="pdoctor | planbench | apb | pmc | agentdebug | compare."),
    dirs: list[Path] | None = typer.Argument(None, help="compare: two or more study directories."),
    list_: bool = typer.Option(False, "--list", help="List the studies, what each runs and the data it needs."),
    out: Path | None = typer.Option(None, "--out", help="Study directory; re-run the same command to resume."),
    agent: AgentName = None,
    model: ModelSpec = None,
    model_path: ModelPath = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    tool_results_as: ToolResultsAs = "tool",
    temperature: Temperature = 0.0,
    max_tokens: MaxTokens = 512,
    cache: Cache = True,
    cache_path: CachePath = None,
    threads: Threads = None,
    ctx: Ctx = 4096,
    quick: bool = typer.Option(False, "--quick", help="The same study at a small size (minutes with the embedded "
                                                      "model); its figures are not comparable with the paper's."),
    size: str = typer.Option("", "--size", hidden=True, help="full | quick | tiny (tests)."),
    max_steps: int | None = typer.Option(None, "--max-steps", hidden=True,
                                         help="Stop after this many steps, as an interruption would (tests)."),
    seed: int = typer.Option(0, help="Seed for the cases, the agent and the model."),
    concurrency: Concurrency = 8,
    as_json: AsJson = False,
    quiet: Quiet = False,
    workers: Workers = 1,
    backend: Backend = "processes",
    address: Address = None,
    rpm: Rpm = None,
    tpm: Tpm = None,
    travelplanner: Path | None = typer.Option(None, "--travelplanner", help="pmc: TravelPlanner's validation split "
                                              "(validation.csv) with its database/ directory, or its 45 training "
                                              "queries (train_queries_and_plans.jsonl, train_ref_info.jsonl)."),
    api_bank: Path | None = typer.Option(None, "--api-bank", help="pmc: API-Bank's folder (test-data/level-3.json)."),
    apb_data: Path | None = typer.Option(None, "--apb-data", help="apb: one of APB's split files (its data/*.jsonl); "
                                         "APB's prompts from --apb-code DIR or $PLANPROBE_APB_CODE."),
    apb_code: Path | None = typer.Option(None, "--apb-code", help="apb: your clone of APB's code "
                                         "(github.com/Mikivishy/AgentPlanningBenchmark)."),
    judge_model: str | None = typer.Option(None, "--judge-model", help="apb: the judge of APB's data (APB's judge) "
                                           "and of planprobe's κ row (rubric judge against the exact oracle)."),
) -> None:
    """Run a paper's study on your model: the paper's settings (each with its place in the paper),
    every run under --out (resumable), the paper's tables with the published figures beside yours
    and 95% intervals, and OUT/study.json. 'study compare DIR1 DIR2 …' sets studies side by side.

    The limits per case are the study's (PDoctor's 50 iterations and 180 s; fewer with --quick).
    --agent defaults to tools with --model (agentdebug: modular, the paper's agent), else oracle.
    Data: pmc needs --travelplanner and --api-bank; apb runs APB's own data with --apb-data.
    Exit 2: bad input, or --out holding another study, model, agent, size, seed or model settings
    (nothing is changed); 3: infrastructure failures (run again to retry); 130: interrupted (run
    the same command again to continue)."""
    from ..studies.registry import get_study, listing

    if list_:
        for study_name, description, needs in listing():
            out_console.print(f"{study_name:<11} {description}\n{'':<11} data: {needs}", highlight=False,
                              soft_wrap=True)
        return
    if name is None:
        raise PlanprobeError("name a study (planprobe study --list) or 'compare'")
    if name == "compare":
        _compare(dirs or [], as_json)
        return
    if dirs:
        raise PlanprobeError(f"study {name}: unexpected argument {str(dirs[0])!r} (only 'compare' takes directories)")
    chosen_study = get_study(name)  # unknown: one line before anything else
    if agent is None and model:  # a study may name the paper's agent (agentdebug: modular); else tools
        agent = getattr(chosen_study, "model_agent", None)
    if out is None:
        raise PlanprobeError(f"study {name}: --out DIR is required (the study directory; re-run to resume)")
    data: dict[str, Any] = {k: str(v) for k, v in (("travelplanner", travelplanner), ("api_bank", api_bank),
                                                   ("apb_data", apb_data), ("apb_code", apb_code),
                                                   ("judge_model", judge_model)) if v is not None}
    for option, owner in (("travelplanner", "pmc"), ("api_bank", "pmc"), ("apb_data", "apb"), ("apb_code", "apb"),
                          ("judge_model", "apb")):
        if option in data and name != owner:  # an option another study reads would be silently ignored
            raise PlanprobeError(f"--{option.replace('_', '-')} is an option of study {owner}, not of study {name}")
    check_data = getattr(chosen_study, "check_data", None)
    if check_data is not None:  # missing or other data: one line naming what to download, before anything runs
        check_data(out, data)
    if size and size not in ("full", "quick", "tiny"):
        raise PlanprobeError(f"--size {size!r}: expected full, quick or tiny")
    check("--threads", threads, at_least=1)
    check("--ctx", ctx, at_least=1)
    chosen = size or ("quick" if quick else "full")
    local = {"cache_path": cache_path, "threads": threads, "n_ctx": ctx}  # as run: the embedded model's options
    _run(name, out, chosen, agent, model, model_path, base_url, api_key_env, tool_results_as, temperature,
         max_tokens, cache, seed, concurrency, as_json, quiet, workers, backend, address, rpm, tpm, max_steps, data,
         local)


def _run(name: str, out: Path, size: str, agent: str | None, model: str | None, model_path: Path | None,
         base_url: str | None, api_key_env: str, tool_results_as: str, temperature: float, max_tokens: int,
         cache: bool, seed: int, concurrency: int, as_json: bool, quiet: bool, workers: int, backend: str,
         address: str | None, rpm: float | None, tpm: float | None, max_steps: int | None,
         data: dict[str, Any], local: dict[str, Any]) -> None:
    from ..agents.prepare import prepare_agent
    from ..environment import Limits
    from ..runner.engine import RunConfig
    from ..runner.suite_run import (
        effective_concurrency,
        params_identity,
        record_model_path,
    )
    from ..scale import WorkerRecipe, local_limits, scaled_runner
    from ..studies.base import StudyContext
    from ..studies.directory import Identity, open_study_dir
    from ..studies.execute import run_study
    from ..studies.registry import get_study
    from ..studies.tables import render_study

    iterations, timeout = 50, 180.0  # PDoctor §6.1; PlanBench's tasks are one reply each
    limits_of = getattr(get_study(name), "limits", None)  # a study with its own limits per case and size
    if limits_of is not None:
        iterations, timeout = limits_of(size)
    check_limits(concurrency, iterations, timeout)
    params = chat_params(temperature, max_tokens, seed)
    options = model_options(base_url=base_url, api_key_env=api_key_env, tool_results_as=tool_results_as, cache=cache,
                            model_path=model_path, **local)
    scale = scale_options(workers, backend, address, rpm, tpm)
    if data.get("judge_model"):
        data["model_options"] = options  # the judge reaches its server as the tested model does
    recipe = worker_recipe(workers, agent or ("tools" if model else "oracle"), model, options, params, backend)
    identity = Identity(name, model, agent or ("tools" if model else "oracle"), size, seed,
                        params_identity(params, options) if model else "")
    # another study's, model's or settings' directory: one line before a model is loaded
    open_study_dir(out, identity, get_study(name).settings(size))
    if scale is not None and scale.rate:
        from dataclasses import replace

        scale = replace(scale, rate_file=out.resolve() / "ratelimit.json")
    agent_name, agent_obj, model_obj = prepare_agent(agent, model, options, params, seed)
    concurrency = effective_concurrency(model, concurrency, lambda note: err_console.print(note, highlight=False))
    config = RunConfig(agent=agent_name, model=model_obj.name if model_obj else None, concurrency=concurrency,
                       models=model_obj.names() if model_obj else {},
                       limits=Limits(max_iterations=iterations, timeout_s=timeout), seed=seed,
                       model_params=params_identity(params, options) if model_obj else "")
    say = (lambda line: None) if quiet else (lambda line: err_console.print(line, highlight=False, soft_wrap=True))
    ctx = StudyContext(directory=out, agent=agent_obj, config=config, size=size, seed=seed,
                       runner=scaled_runner(scale, WorkerRecipe(agent_name, model, options if model else None, params),
                                            config),
                       workers=workers, recipe=recipe, backend=backend, address=address,
                       on_store=lambda store: record_model_path(store, model, options), say=say, max_steps=max_steps,
                       models=model_obj, params=params, data=data,
                       runner_for=lambda name, cfg: scaled_runner(scale, WorkerRecipe(name, model, options if model
                                                                                      else None, params), cfg))
    if size != "full":
        err_console.print("note: quick study: its figures are not comparable with the paper's", highlight=False)
    try:
        with local_limits(scale):
            outcome, data = run_study(out, identity, ctx)
    except KeyboardInterrupt:  # run_suite's RunInterrupted too: every finished case and step is kept
        err_console.print(f"interrupted: what finished is saved in {out}; run the same command again to continue",
                          highlight=False, soft_wrap=True)
        interrupt_reported.append(True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        if model_obj is not None:
            asyncio.run(model_obj.aclose())
        if scale is not None and scale.rate_file is not None:
            scale.rate_file.unlink(missing_ok=True)
    if outcome is None:
        err_console.print(f"stopped after {ctx.steps_done} step(s) (--max-steps); run the same command again to "
                          "continue", highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED)
    if as_json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        out_console.print(render_study(data), highlight=False, soft_wrap=True)


def _compare(dirs: list[Path], as_json: bool) -> None:
    from ..studies.compare import compare_studies, render_comparison

    data = compare_studies(dirs)
    if as_json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        out_console.print(render_comparison(data), highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(study)
