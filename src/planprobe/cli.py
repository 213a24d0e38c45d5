"""The ``planprobe`` command: a thin layer that parses options and calls the library.

Every problem a user can cause ends in one line on stderr naming the file, line
or option, and a non-zero exit — never a traceback (``main`` turns file-system,
database and other failures into that line too; exit codes are in docs/format.md).
The consoles print text as it is: user text (file names, run names, model output)
is never read as rich markup or emoji codes.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import TextColumn

from . import __version__
from .errors import ContextLimitError, InfrastructureError, PlanprobeError
from .atomic import write_text_atomic
from .option_checks import check, check_limits, check_sampling
from .cli_common import _progress, app, err_console, generate_app, labelled, out_console, parse_range  # noqa: F401
from .cli_pddl import pddl_app  # noqa: E402
from .cli_scale import (ADDRESS_HELP, BACKEND_HELP, RPM_HELP, TPM_HELP, WORKERS_HELP,  # noqa: E402
                        dissect_recipe, install_local_limits, scale_options, scaled, scaled_runner)
app.add_typer(pddl_app, name="pddl")


@app.callback(invoke_without_command=True)
def _root(version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if version:
        out_console.print(f"planprobe {__version__}")
        raise typer.Exit()


# ---------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------


@generate_app.command("constraints")
def generate_constraints(
    output: Path = typer.Option(..., "-o", "--output", help="Suite file to write (JSONL)."),
    actions: str = typer.Option("3-5", help="Actions per case |A|: a number or a range like 3-5 (the difficulty)."),
    n: int = typer.Option(100, "--n", help="Number of cases."),
    seed: int = typer.Option(0, help="Seed; the same seed gives a byte-identical suite."),
    extended: bool = typer.Option(False, help="Extended mode: time windows, durations, start_time, restarts."),
    max_sentences: Optional[int] = typer.Option(
        None, help="Max sentences per requirement (N in Alg. 1; 1-100). Default: |A|-1 (more above |A| = 9), "
                   "enough for every action to be constrained."),
    max_iterations: int = typer.Option(20, help="Max candidate sentences tried per sentence (K in Alg. 1; "
                                                "1-10000)."),
    allow_unconstrained: bool = typer.Option(False, help="Keep requirements that leave some action unconstrained "
                                                         "(by default every action is linked to the others)."),
    style: str = typer.Option("planprobe", help="planprobe (task list, defined terms, planprobe's error classes) "
                                                "| paper (PDoctor's own templates, tools and error classes); "
                                                "see docs/constraints.md."),
    max_duration: int = typer.Option(3, help="Extended mode: task durations are 1..this many hours."),
    topic: Optional[str] = typer.Option(None, help="Use only this job of the lexicon as topic."),
    lexicon: Optional[Path] = typer.Option(None, help="A lexicon file to use instead of the embedded one."),
    workers: Optional[int] = typer.Option(None, help="Processes to generate with (default: all cores for "
                                                      "2000+ cases); the output is the same for any number."),
    transform: list[str] = typer.Option([], "--transform", help="Robustness variant: extraneous:K | broken | "
                                         "unsolvable[:removal|contradiction|missing-info] | cost. Repeatable; "
                                         "they compose (see docs/robustness.md)."),
    protocol: str = typer.Option("execute", help="execute (run the tools) | holistic (answer the whole plan as "
                                                 "JSON) | stepwise (predict the next steps after a gold prefix); "
                                                 "see docs/protocols.md."),
    steps: int = typer.Option(1, help="--protocol stepwise: how many next steps to predict (1-3)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> None:
    """Synthesize PDoctor-style planning tasks whose constraints are the oracle."""
    from .suites.constraints.generator import ConstraintSuiteOptions, generate_lines
    from .suites.constraints.lexicon import load_lexicon
    from .suites.constraints.synthesis import SynthesisOptions
    from .suites.io import write_suite_lines

    opts = ConstraintSuiteOptions(
        actions=parse_range(actions), n=n, seed=seed, extended=extended, max_duration=max_duration,
        topic=topic, lexicon=load_lexicon(lexicon), style=style, allow_unconstrained=allow_unconstrained,
        synthesis=SynthesisOptions(max_sentences=max_sentences, max_iterations=max_iterations),
    )
    opts.check()
    check("--workers", workers, at_least=1)
    with _progress(quiet or n < 2000) as progress:
        task = progress.add_task("generating", total=n)
        lines = generate_lines(opts, workers)
        if transform:
            from .suites.robust.transforms import parse_transforms, transform_lines

            lines = transform_lines(lines, parse_transforms(transform), seed)
        if protocol != "execute" or steps != 1:
            from .suites.protocols import wrap_lines

            lines = wrap_lines(lines, protocol, steps, seed)
        count = write_suite_lines(lines, output, on_line=lambda _: progress.advance(task))
    err_console.print(f"wrote {count} cases to {output}")


# ---------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------


def prepare_agent(agent_name: Optional[str], model_spec: Optional[str], model_options, params, seed: int,
                  check_first=lambda: None):
    """The agent (and its models, if it takes any) for --agent/--model, checking the
    options before ``check_first`` (e.g. reading a suite) and before loading a model.
    ``--model`` is one model for every role or ROLE=MODEL,… (models/roles.py). Whether an
    agent needs or takes models, and which roles it has, is its registry entry's say
    (agents/registry.py). The models come back as one ``RoleModels``."""
    from .agents import agent_entries, agent_entry, make_agent
    from .models.roles import parse_role_specs

    agent_name = agent_name or ("tools" if model_spec else "oracle")
    entry = agent_entry(agent_name)  # an unknown name fails here, first
    if model_spec and not (entry.needs_model or entry.accepts_model):
        entries = agent_entries().values()
        names = [e.usage.split("<")[0] if e.argument else e.name for e in entries if e.needs_model]
        others = [e.usage.split("<")[0] if e.argument else e.name for e in entries
                  if e.accepts_model and not e.needs_model]
        listed = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        also = f" (and {', '.join(others)} agents)" if others else ""
        raise PlanprobeError(f"--model is used by the {listed} agents{also}, not by --agent {agent_name}")
    if entry.needs_model and not model_spec:
        raise PlanprobeError(f"--agent {agent_name} needs a model: add --model local or --model openai:<model>")
    if model_spec:  # a malformed role list, a role the agent lacks or an unknown kind is refused before loading
        from .models import model_entry

        specs = parse_role_specs(model_spec)
        extra = sorted(set(specs) - {"*"} - set(entry.roles)) if entry.roles is not None else []
        if extra:
            roles = entry.roles or ()
            have = (f"its one role is {roles[0]!r}: give one model" if len(roles) == 1
                    else f"its roles: {', '.join(roles)}")
            raise PlanprobeError(f"--model names role {extra[0]!r}, which --agent {agent_name} does not have ({have})")
        for spec in specs.values():
            model_entry(spec)
    agent = None if model_spec else make_agent(agent_name, seed)  # check the name before anything else
    check_first()
    models = None
    if model_spec:
        from .models import make_model
        from .models.roles import build_role_models

        def build(spec: str):
            try:
                return make_model(spec, model_options)  # loading a local model takes a moment: after the checks
            except ValueError as exc:  # llama.cpp refuses a file that is not a GGUF model with a ValueError
                path = getattr(model_options, "model_path", None)
                raise PlanprobeError(f"cannot load the model{f' {path}' if path else ''}: "
                                     f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None

        models = build_role_models(model_spec, build)
        try:
            agent = make_agent(agent_name, seed, model=models, params=params)
        except BaseException:
            import asyncio as _asyncio

            _asyncio.run(models.aclose())
            raise
    return agent_name, agent, models


def uses_local(model_spec: Optional[str]) -> bool:
    """Whether any role runs on the embedded model (--model local, or ROLE=local)."""
    from .models.roles import parse_role_specs

    return bool(model_spec) and "local" in parse_role_specs(model_spec or "").values()


def effective_concurrency(model_spec: Optional[str], concurrency: int) -> int:
    """A backend that answers one call at a time (the embedded model; its registry entry says
    ``serial``) would make cases run side by side wait for each other, and the waiting would
    count against each case's time limit as spurious Timeouts."""
    from .models.registry import serves_one_call_at_a_time
    from .models.roles import parse_role_specs

    serial = [spec for spec in (parse_role_specs(model_spec).values() if model_spec else ())
              if serves_one_call_at_a_time(spec)]
    if serial and concurrency > 1:
        err_console.print(f"note: the model {serial[0]} serves one call at a time; running cases one at a time "
                          "(--concurrency 1) so waiting is not counted against each case's time limit",
                          highlight=False)
        return 1
    return concurrency


def read_suite_for_run(suite: Path, needs_tools: str = "") -> tuple[int, str]:
    """Check every case of the suite (streaming) and fingerprint it: (cases, digest).
    ``needs_tools`` names an agent that cannot run a case without tools (PMC's executors act through them)."""
    from .runner.store import SuiteDigest
    from .suites.io import stream_suite

    digest = SuiteDigest()
    for case in stream_suite(suite):
        if needs_tools and not case.tools:
            raise PlanprobeError(f"{suite}: case {case.id!r} (family {case.family}) has no tools; --agent "
                                 f"{needs_tools} runs only on families with tools")
        digest.update(case)
    return digest.count, digest.hexdigest()


def run_suite_cli(suite: Path, agent_name: Optional[str], out: Path, concurrency: int, trials: int,
                  max_iterations: int, timeout: float, seed: int, quiet: bool, model_spec: Optional[str] = None,
                  model_options=None, params=None, infra_attempts: int = 3, scale=None) -> None:
    from .environment import Limits
    from .runner.engine import RunConfig, open_run, pending_total, run_pending
    from .suites.io import iter_suite

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
    concurrency = effective_concurrency(model_spec, concurrency)
    config = RunConfig(agent=agent_name, model=model.name if model else None, models=model.names() if model else {},
                       trials=trials, concurrency=concurrency,
                       limits=Limits(max_iterations=max_iterations, timeout_s=timeout), seed=seed,
                       model_params=_params_identity(params, model_options) if model else "",
                       infra_attempts=infra_attempts)
    try:
        store = open_run(out, iter_suite(suite), config, suite_name=str(suite), digest=digest)
    except BaseException:
        if model is not None:
            asyncio.run(model.aclose())
        raise
    record_model_path(store, model_spec, model_options)
    total = store.case_count() * trials
    done_before = total - pending_total(store, config)
    tally: dict[str, Any] = {"passed": 0, "judged": 0, "tokens": 0, "cost": None}

    with _progress(quiet, TextColumn("pass {task.fields[rate]}"), TextColumn("{task.fields[usage]}")) as progress:
        task = progress.add_task("running", total=total, completed=done_before, rate="-", usage="")

        def on_result(trace, verdict) -> None:
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
            progress.update(task, advance=1, rate=rate, usage=usage)

        async def go() -> None:
            try:
                if not scaled(scale):
                    install_local_limits(scale)
                    await run_pending(store, agent, config, on_result)
            finally:
                if model is not None:
                    await model.aclose()

        try:
            asyncio.run(go())
            if scaled(scale):  # the workers build their own agents; the coordinator only merges (planprobe.scale)
                from .scale import WorkerRecipe, run_scaled

                run_scaled(store, WorkerRecipe(agent_name, model_spec, model_options, params), config, scale,
                           on_result, warn=lambda line: progress.console.print(f"warning: {line}", highlight=False,
                                                                               markup=False, soft_wrap=True))
            infra = store.infra_rows()
        except KeyboardInterrupt:
            progress.stop()
            saved = store.result_count(trials)
            err_console.print(
                f"interrupted: {saved}/{total} results are saved in {out}; "
                f"resume by running the same command again", highlight=False, soft_wrap=True,
            )
            _interrupt_reported.append(True)
            raise typer.Exit(EXIT_INTERRUPTED)
        finally:
            store.close()
    show_run(out, as_json=False, infra_note=False)
    if infra:
        retry_left = sum(1 for _, _, attempts, _ in infra if attempts < infra_attempts)
        what = (f"re-run the same command to retry {retry_left} of them" if retry_left else
                f"each has had its {infra_attempts} attempts; raise --infra-attempts to try again")
        err_console.print(f"error: {len(infra)} result(s) failed for infrastructure reasons and are not counted; "
                          f"first cause: {_cause(infra[0][3])}; {what}", highlight=False, markup=False,
                          soft_wrap=True)
        raise typer.Exit(EXIT_INFRA)


EXIT_INFRA = 3  # a run ended with infra results, or stopped because the model service is unusable


def _cause(causes: list[str]) -> str:
    from .models.redact import redact

    return redact(causes[-1]) if causes else "unknown"


def record_model_path(store, model_spec: Optional[str], model_options) -> None:
    """Keep the GGUF file a local run used (not the embedded model), so re-runs (dissect) use
    the same file or refuse; see analysis/rerun.py."""
    path = getattr(model_options, "model_path", None) if uses_local(model_spec) else None
    if path is not None:
        from .analysis.rerun import MODEL_PATH_META

        store.set_meta({MODEL_PATH_META: str(Path(path).resolve())})


def _params_identity(params, options=None) -> str:
    """The model settings that change results, as stored with a run (resuming must match them).
    Sending tool results as user messages changes every prompt after the first tool call."""
    if params is None:
        return ""
    text = f"temperature={params.temperature},max_tokens={params.max_tokens}"
    if getattr(options, "tool_result_role", "tool") != "tool":
        text += f",tool_results_as={options.tool_result_role}"
    return text


def agent_help() -> str:
    from .agents.registry import agent_choices

    return agent_choices(" | ", described=True)


def model_help() -> str:
    from .models.registry import model_choices

    return model_choices(" | ", described=True)


@app.command()
def run(
    suite: Path = typer.Argument(..., help="Suite file (JSONL) to run."),
    agent: Optional[str] = typer.Option(
        None, help=f"{agent_help()}. Default: tools with --model, else oracle."),
    out: Path = typer.Option(..., "--out", help="Run directory; re-run with the same one to resume."),
    model: Optional[str] = typer.Option(
        None, help=f"{model_help()}; for an agent with roles one per role: ROLE=MODEL,ROLE=MODEL (a bare MODEL "
                   "is the default for the others)."),
    base_url: Optional[str] = typer.Option(None, help="Endpoint for openai:<model>, e.g. http://127.0.0.1:8000/v1."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="Environment variable holding the API key "
                                                           "(read at run time, never stored)."),
    temperature: float = typer.Option(0.0, help="Sampling temperature (the seed's setting: 0)."),
    max_tokens: int = typer.Option(512, help="Max tokens per model reply."),
    request_timeout: float = typer.Option(60.0, help="Seconds for one model request's whole reply before it is "
                                                     "abandoned and retried (below --timeout)."),
    retries: int = typer.Option(6, help="Attempts per model call on 429/5xx/timeouts/dropped connections."),
    retry_budget: float = typer.Option(120.0, help="Max seconds spent retrying one model call."),
    infra_attempts: int = typer.Option(3, help="Attempts per case whose result is infra (the service failed), "
                                               "counting resumes: re-running the command retries them."),
    price_in: Optional[float] = typer.Option(None, help="USD per million prompt tokens (enables cost)."),
    price_out: Optional[float] = typer.Option(None, help="USD per million completion tokens (enables cost)."),
    tool_results_as: str = typer.Option("tool", help="Send tool results as 'tool' messages, or as 'user' for "
                                                     "servers whose chat format drops tool content."),
    cache: bool = typer.Option(True, help="Record/replay model calls (re-runs cost no calls); --no-cache turns it off."),
    cache_path: Optional[Path] = typer.Option(None, help="Cache file (default ~/.cache/planprobe/model-calls.sqlite)."),
    model_path: Optional[Path] = typer.Option(None, help="local: a GGUF file instead of the embedded SmolLM2-135M."),
    threads: Optional[int] = typer.Option(None, help="local: CPU threads (default: all cores)."),
    ctx: int = typer.Option(4096, help="local: context size in tokens."),
    concurrency: int = typer.Option(8, help="Cases run at the same time (1 with the embedded model, which "
                                            "serves one call at a time)."),
    trials: int = typer.Option(1, help="Runs per case (for pass@k / pass^k)."),
    max_iterations: int = typer.Option(50, "--max-iterations", "--iteration-limit",
                                       help="Per-case iteration limit (seed default 50)."),
    timeout: float = typer.Option(180.0, help="Per-case time limit in seconds (seed default 180)."),
    seed: int = typer.Option(0, help="Seed passed to the agent and the model."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
    workers: int = typer.Option(1, help=WORKERS_HELP, rich_help_panel="Scaling out"),
    backend: str = typer.Option("processes", help=BACKEND_HELP, rich_help_panel="Scaling out"),
    address: Optional[str] = typer.Option(None, help=ADDRESS_HELP, rich_help_panel="Scaling out"),
    rpm: Optional[float] = typer.Option(None, help=RPM_HELP, rich_help_panel="Scaling out"),
    tpm: Optional[float] = typer.Option(None, help=TPM_HELP, rich_help_panel="Scaling out"),
) -> None:
    """Run a suite against an agent; results are stored in RUN_DIR as each case finishes (resumable)."""
    from .models import ModelOptions, Prices, RetryPolicy
    from .models.base import ChatParams

    if tool_results_as not in ("tool", "user"):
        raise PlanprobeError("--tool-results-as must be 'tool' or 'user'")
    check_limits(concurrency, max_iterations, timeout, trials)
    check_sampling(temperature, max_tokens)
    check("--request-timeout", request_timeout, above=0)
    check("--retries", retries, at_least=0)
    check("--retry-budget", retry_budget, at_least=0)
    check("--price-in", price_in, at_least=0)
    check("--price-out", price_out, at_least=0)
    check("--threads", threads, at_least=1)
    check("--ctx", ctx, at_least=1)
    prices = Prices(price_in or 0.0, price_out or 0.0) if (price_in is not None or price_out is not None) else None
    options = ModelOptions(
        base_url=base_url, api_key_env=api_key_env, request_timeout=request_timeout,
        retry=RetryPolicy(max_attempts=max(1, retries), max_total_s=retry_budget), prices=prices,
        tool_result_role=tool_results_as, model_path=model_path, threads=threads, n_ctx=ctx, cache=cache,
        cache_path=cache_path,
    )
    params = ChatParams(temperature=temperature, seed=seed, max_tokens=max_tokens)
    scale = scale_options(workers, backend, address, rpm, tpm)
    run_suite_cli(suite, agent, out, concurrency, trials, max_iterations, timeout, seed, quiet, model, options, params,
                  infra_attempts, scale)


# ---------------------------------------------------------------------------
# show
# ---------------------------------------------------------------------------


def show_run(run_dir: Path, as_json: bool, infra_note: bool = True) -> None:
    from .analysis.summary import summarize
    from .report.table import difficulty_table, summary_table
    from .runner.store import RunStore

    from .analysis.robustness import robustness, robustness_lines
    from .suites.travelplanner.submission import run_figure_lines, run_figures

    from .analysis.apibank import api_bank_lines, api_bank_metrics

    store = RunStore(run_dir)
    try:
        summary = summarize(store)
        robust = robustness(store)
        travel = run_figures(store)
        api_bank = api_bank_metrics(store)
        infra = store.infra_rows() if summary.infra else []
    finally:
        store.close()
    if as_json:
        data = summary.to_json()
        if robust:
            data["robustness"] = robust
        if travel:
            data["travelplanner"] = travel
        if api_bank:
            data["api_bank"] = api_bank
        if infra:
            data["infra_first_cause"] = _cause(infra[0][3])
        from .llm_judge.apb_run import apb_scores

        apb = apb_scores(run_dir)
        if apb:
            data["apb_scores"] = apb
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        out_console.print(summary_table(summary))
        extra = difficulty_table(summary)
        if extra is not None:
            out_console.print(extra)
        for line in robustness_lines(robust):
            out_console.print(line, highlight=False)
        for line in run_figure_lines(travel):
            out_console.print(line, highlight=False, soft_wrap=True)
        from .llm_judge.apb_run import judgement_lines

        for line in judgement_lines(run_dir):
            out_console.print(line, highlight=False, markup=False, soft_wrap=True)
        for line in api_bank_lines(api_bank):
            out_console.print(line, highlight=False, markup=False, soft_wrap=True)
        if infra and infra_note:
            out_console.print(f"infrastructure failures: first cause: {_cause(infra[0][3])}; re-running the run's "
                              "command retries them", highlight=False, markup=False, soft_wrap=True)


@app.command()
def show(
    run_dir: Path = typer.Argument(..., help="A run directory written by 'planprobe run'."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable summary."),
) -> None:
    """Summarize a run: pass rate with 95% CI, failures by class, by action count."""
    show_run(run_dir, as_json)


# ---------------------------------------------------------------------------
# statistics: trials, compare, gate
# ---------------------------------------------------------------------------


@app.command()
def trials(
    run_dir: Path = typer.Argument(..., help="A run made with --trials k."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """pass@k and pass^k over repeated trials, with 95% bootstrap CIs, and the flaky cases."""
    from .analysis.compare import trial_stats
    from .runner.store import RunStore

    store = RunStore(run_dir)
    stats = trial_stats(store)
    store.close()
    if as_json:
        print(json.dumps(stats.to_json(), indent=2, sort_keys=True))
        return
    out_console.print(f"{stats.cases} cases, {stats.trials} trials each (fewest finished)")
    for k in stats.pass_at:
        (v, (lo, hi)), (w, (lo2, hi2)) = stats.pass_at[k], stats.pass_hat[k]
        out_console.print(f"k={k:<3} pass@k {100 * v:5.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]   "
                          f"pass^k {100 * w:5.1f}% [{100 * lo2:.1f}-{100 * hi2:.1f}]")
    out_console.print(f"flaky cases (trials disagree): {len(stats.flaky)}")
    for cid, c, n in stats.flaky[:20]:
        out_console.print(f"  {cid}: {c}/{n} passed")


@app.command()
def compare(
    run_a: Path = typer.Argument(..., help="The first run (e.g. the baseline)."),
    run_b: Path = typer.Argument(..., help="The second run, of the same suite."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Paired comparison of two runs: pass rates, exact McNemar test, bootstrap CI of the difference."""
    from .analysis.compare import compare_runs
    from .runner.store import RunStore

    from .analysis.role_usage import usage_per_case

    a, b = RunStore(run_a), RunStore(run_b)
    try:
        c = compare_runs(a, b)
        paired = [(cid, t) for cid, trials in c.results_b.items() for t in trials]
        usage = {"a": usage_per_case(a, paired), "b": usage_per_case(b, paired)}  # per role, over the pairs
    finally:
        a.close()
        b.close()
    if as_json:
        print(json.dumps(c.to_json() | {"usage_per_case": usage}, indent=2, sort_keys=True))
        return
    for note in c.notes:
        labelled("note:", note)
    lo, hi = c.diff_ci
    out_console.print(f"{c.pairs} paired results over {c.shared_cases} cases")
    out_console.print(f"A {run_a}: {100 * c.rate_a:.1f}%   B {run_b}: {100 * c.rate_b:.1f}%")
    out_console.print(f"difference B - A: {100 * c.diff:+.1f} pp, 95% CI [{100 * lo:+.1f}, {100 * hi:+.1f}] "
                      "(paired bootstrap)")
    out_console.print(f"only A passed: {c.a_only}, only B passed: {c.b_only}, McNemar exact p = {c.p_value:.4g}")
    for name, roles in (("A", usage["a"]), ("B", usage["b"])):
        for role, u in roles.items():
            cost = "" if u["cost_usd"] is None else f", ${u['cost_usd']:.4f}"
            out_console.print(f"{name} per case, {role}: {u['model_calls']:g} model calls, "
                              f"{u['prompt_tokens']:g} + {u['completion_tokens']:g} tokens{cost}", highlight=False)


@app.command()
def gate(
    run_dir: Path = typer.Argument(..., help="The run to check."),
    baseline: Path = typer.Option(..., help="The baseline run of the same suite."),
    max_drop: str = typer.Option("2pp", help="Allowed drop in pass rate, in percentage points (e.g. 2pp)."),
    alpha: float = typer.Option(0.05, help="Significance level of the exact McNemar test."),
    junit: Optional[Path] = typer.Option(None, help="Write JUnit XML here (one test for the gate, one per case)."),
) -> None:
    """Exit 1 when the pass rate dropped by more than --max-drop and the drop is significant."""
    from .analysis.compare import gate as run_gate, junit_xml, parse_points
    from .runner.store import RunStore

    limit = parse_points(max_drop)
    if not 0 < alpha < 1:
        raise PlanprobeError("--alpha must be between 0 and 1")
    run_store, base_store = RunStore(run_dir), RunStore(baseline)
    try:
        result = run_gate(run_store, base_store, limit, alpha)
    finally:
        run_store.close()
        base_store.close()
    for note in result.comparison.notes:
        labelled("note:", note)
    if junit is not None:
        write_text_atomic(junit, junit_xml(result))
    out_console.print(result.reason)
    if not result.passed:
        raise typer.Exit(1)


@app.command()
def anatomy(
    run_dirs: list[Path] = typer.Argument(..., help="One or more run directories (e.g. one per agent or model)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    top: int = typer.Option(10, help="Rows to show for topics and constraint shapes."),
) -> None:
    """Error anatomy: error classes per run, failures per topic and difficulty, and the
    constraint phrasings agents violate most."""
    from rich.table import Table

    from .analysis.anatomy import anatomy as build
    from .runner.store import RunStore

    check("--top", top, at_least=1)
    stores: list = []
    try:
        for d in run_dirs:
            stores.append((str(d), RunStore(d)))
        result = build(stores)
    finally:
        for _, st in stores:
            st.close()
    data = result.to_json()
    if as_json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return
    classes = sorted({k for r in data["runs"] for k in r["error_distribution"]})
    t = Table(title="error classes among failures (share of failed cases)", title_justify="left")
    for col in ["run", "cases", "failed"] + classes:
        t.add_column(col, justify="left" if col == "run" else "right")
    for r in data["runs"]:
        t.add_row(r["run"], str(r["cases"]), str(r["cases"] - r["passed"]),
                  *[f"{100 * r['error_distribution'].get(k, 0):.1f}%" for k in classes])
    out_console.print(t)
    t = Table(title=f"topics with the most failures (top {top} per run)", title_justify="left")
    for col in ("run", "topic", "cases", "failed", "pass rate"):
        t.add_column(col, justify="left" if col in ("run", "topic") else "right")
    for r in data["runs"]:
        topics = sorted(r["by_topic"].items(), key=lambda kv: (-(kv[1]["cases"] - kv[1]["passed"]), kv[0]))
        for k, (name, v) in enumerate(topics[:top]):
            t.add_row(r["run"] if k == 0 else "", name, str(v["cases"]), str(v["cases"] - v["passed"]),
                      f"{100 * (v['pass_rate'] or 0):.1f}%", end_section=k == min(top, len(topics)) - 1)
    out_console.print(t)
    t = Table(title="by number of actions (per run)", title_justify="left")
    for col in ("run", "actions", "cases", "pass rate", "failures by primary class"):
        t.add_column(col)
    for r in data["runs"]:
        items = list(r["by_actions"].items())
        for k, (n, v) in enumerate(items):
            t.add_row(r["run"] if k == 0 else "", n, str(v["cases"]), f"{100 * (v['pass_rate'] or 0):.1f}%",
                      ", ".join(f"{e} {c}" for e, c in v["errors"].items()) or "-", end_section=k == len(items) - 1)
    out_console.print(t)
    t = Table(title=f"constraint phrasings violated most (top {top}, all runs; < before, > after)",
              title_justify="left")
    for col in ("shape", "stated", "violated", "violation rate"):
        t.add_column(col, justify="left" if col == "shape" else "right")
    for row in data["constraint_shapes"][:top]:
        t.add_row(row["shape"], str(row["stated"]), str(row["violated"]), f"{100 * row['violation_rate']:.1f}%")
    out_console.print(t)


@app.command()
def sweep(
    out: Path = typer.Option(..., "--out", help="Sweep directory (suites and one run per action count); resumable."),
    agent: Optional[str] = typer.Option(None, help="As for 'run' (default: tools with --model, else oracle)."),
    model: Optional[str] = typer.Option(None, help="local or openai:<model>, as for 'run'."),
    model_path: Optional[Path] = typer.Option(None, help="local: a GGUF file instead of the embedded SmolLM2-135M."),
    base_url: Optional[str] = typer.Option(None, help="Endpoint for openai:<model>."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="Environment variable holding the API key."),
    tool_results_as: str = typer.Option("tool", help="'tool' or 'user' (see 'run --help')."),
    temperature: float = typer.Option(0.0, help="Sampling temperature."),
    max_tokens: int = typer.Option(512, help="Max tokens per model reply."),
    cache: bool = typer.Option(True, help="Record/replay model calls."),
    extended: bool = typer.Option(False, help="Sweep the extended mode (time windows, durations)."),
    k: int = typer.Option(20, help="Cases per n are k * C(n, 2) (the seed's k = 20) ..."),
    cap: int = typer.Option(300, help="... capped at this many per n (the seed's 300)."),
    threshold: float = typer.Option(0.2, help="Stop at the first n whose success rate is below this (0.2 = 20%); "
                                              "0 runs every n up to --stop (the whole curve, no limit)."),
    start: int = typer.Option(2, help="First action count."),
    stop: Optional[int] = typer.Option(None, help="Last action count to try (default 20; 12 extended)."),
    concurrency: int = typer.Option(8, help="Cases run at the same time (1 with the embedded model, which "
                                            "serves one call at a time)."),
    iteration_limit: int = typer.Option(50, "--iteration-limit", help="Per-case iteration limit (the agent's "
                                                                      "steps; 'run --max-iterations')."),
    timeout: float = typer.Option(180.0, help="Per-case time limit in seconds."),
    max_sentences: Optional[int] = typer.Option(None, help="Suites: max sentences per requirement (N in Alg. 1; "
                                                           "default grows with |A|, see 'generate constraints')."),
    max_iterations: int = typer.Option(20, help="Suites: candidate sentences per sentence (K in Alg. 1)."),
    allow_unconstrained: bool = typer.Option(False, help="Suites: keep requirements that leave an action "
                                                         "unconstrained."),
    style: str = typer.Option("planprobe", help="Suites: planprobe | paper (PDoctor's own templates, tools "
                                                "and error classes)."),
    seed: int = typer.Option(0, help="Seed for the suites (n uses seed*1000+n), agent and model."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable result."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress output."),
    workers: int = typer.Option(1, help=WORKERS_HELP, rich_help_panel="Scaling out"),
    backend: str = typer.Option("processes", help=BACKEND_HELP, rich_help_panel="Scaling out"),
    address: Optional[str] = typer.Option(None, help=ADDRESS_HELP, rich_help_panel="Scaling out"),
) -> None:
    """Capability sweep (PDoctor §6.2): raise the number of actions until success falls below the
    threshold. The planning limit is the first n below it (both it and the last n at or above are
    printed); OUT/sweep.json keeps the figures for 'planprobe dissect OUT'."""
    from .analysis.sweep import run_sweep
    from .environment import Limits
    from .models import ModelOptions
    from .models.base import ChatParams
    from .runner.engine import RunConfig

    if not 0 <= threshold <= 1 or k < 1 or cap < 1 or start < 2:
        raise PlanprobeError("--threshold must be in [0, 1], --k and --cap at least 1, --start at least 2")
    if stop is not None and stop < start:
        raise PlanprobeError(f"--stop {stop}: below --start {start}")
    check_limits(concurrency, iteration_limit, timeout)
    check_sampling(temperature, max_tokens)
    from .suites.constraints.generator import ConstraintSuiteOptions
    from .suites.constraints.synthesis import SynthesisOptions

    synthesis = SynthesisOptions(max_sentences=max_sentences, max_iterations=max_iterations)
    ConstraintSuiteOptions(style=style, synthesis=synthesis).check()  # one line naming a bad option
    params = ChatParams(temperature=temperature, seed=seed, max_tokens=max_tokens)
    options = ModelOptions(base_url=base_url, api_key_env=api_key_env, tool_result_role=tool_results_as, cache=cache,
                           model_path=model_path)
    scale = scale_options(workers, backend, address, None, None)
    agent_name, agent_obj, model_obj = prepare_agent(agent, model, options, params, seed)
    concurrency = effective_concurrency(model, concurrency)
    config = RunConfig(agent=agent_name, model=model_obj.name if model_obj else None, concurrency=concurrency,
                       models=model_obj.names() if model_obj else {},
                       limits=Limits(max_iterations=iteration_limit, timeout_s=timeout), seed=seed,
                       model_params=_params_identity(params, options) if model_obj else "")

    def on_point(p) -> None:
        if not quiet:
            lo, hi = p.ci95
            err_console.print(f"n={p.actions:<3} {p.cases:>4} cases  success {100 * p.rate:5.1f}% "
                              f"[{100 * lo:.1f}-{100 * hi:.1f}]" + (f"  ({p.infra} infra)" if p.infra else ""),
                              highlight=False)

    try:
        result = run_sweep(out, agent_obj, config, extended=extended, k=k, cap=cap, threshold=threshold, start=start,
                           synthesis=synthesis, style=style, allow_unconstrained=allow_unconstrained,
                           stop=stop, seed=seed, on_point=on_point,
                           on_store=lambda store: record_model_path(store, model, options),
                           runner=scaled_runner(scale, agent_name, model, options, params, config))
    finally:
        if model_obj is not None:
            asyncio.run(model_obj.aclose())
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


@app.command()
def dissect(
    path: Path = typer.Argument(..., help="A run directory, or a sweep directory (then the failures with n up to "
                                          "its planning limit)."),
    agent: Optional[str] = typer.Option(None, help="The agent to re-run (default: the run's; a python: agent must "
                                                   "be given here, it is never imported from a run directory)."),
    model: Optional[str] = typer.Option(None, help="The run's model: local or openai:<model> (default: the run's "
                                                   "when it was local)."),
    model_path: Optional[Path] = typer.Option(None, help="local: the GGUF file (default: the one the run recorded)."),
    base_url: Optional[str] = typer.Option(None, help="Endpoint for openai:<model>."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="Environment variable holding the API key."),
    tool_results_as: str = typer.Option("tool", help="'tool' or 'user' (see 'run --help')."),
    temperature: Optional[float] = typer.Option(None, help="Sampling temperature (default: the run's)."),
    max_tokens: Optional[int] = typer.Option(None, help="Max tokens per model reply (default: the run's)."),
    cache: bool = typer.Option(True, help="Record/replay model calls."),
    k: int = typer.Option(3, help="Mutants tried per stage (Terminal, Topic, Structure); K in Alg. 2."),
    sample: int = typer.Option(100, help="Failures to dissect: a uniform seeded sample of those within the "
                                         "limit (the paper's 100)."),
    max_actions: Optional[int] = typer.Option(None, help="Only failures with at most this many actions (default: "
                                                         "a sweep's planning limit; a run's every case)."),
    baseline: bool = typer.Option(True, help="Also measure the chance baseline (re-runs of the unchanged case in "
                                             "place of each mutation); --no-baseline halves the cost but leaves "
                                             "the shares without a yardstick."),
    max_iterations: Optional[int] = typer.Option(None, "--max-iterations", "--iteration-limit",
                                                 help="Per-case iteration limit (default: the run's)."),
    timeout: Optional[float] = typer.Option(None, help="Per-case time limit in seconds (default: the run's)."),
    seed: int = typer.Option(0, help="Seed for the sample, the mutations, the agent and the model."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable result."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress output."),
    workers: int = typer.Option(1, help="Processes to dissect cases on, each with its own agent (rows are "
                                        "the same for any number).", rich_help_panel="Scaling out"),
) -> None:
    """Error dissection (PDoctor Alg. 2, §6.2): root causes — Probability, Terminal, Topic, Structure
    or Constraint — of a random sample of failures within the planning limit, each next to its
    chance baseline. Each settled case goes to its run's dissect.jsonl at once (resumable)."""
    from .analysis.dissect import CAUSES, DissectInfraError, dissect_run
    from .analysis.rerun import choose_rerun, stored_limits, stored_params
    from .analysis.sweep import SWEEP_FILE, run_dir
    from .environment import Limits
    from .models import ModelOptions
    from .models.base import ChatParams
    from .runner.engine import RunConfig
    from .runner.store import RunStore

    check_limits(1, max_iterations, timeout)
    check_sampling(temperature, max_tokens)
    check("--k", k, at_least=1)
    check("--sample", sample, at_least=1)
    if max_actions is not None and max_actions < 2:
        raise PlanprobeError(f"--max-actions {max_actions}: must be at least 2")
    first_run = path
    if (path / SWEEP_FILE).exists():
        from .analysis.sweep import read_sweep

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
    params = ChatParams(temperature=temperature if temperature is not None else (run_temperature or 0.0), seed=seed,
                        max_tokens=max_tokens if max_tokens is not None else (run_max_tokens or 512))
    options = ModelOptions(base_url=base_url, api_key_env=api_key_env, tool_result_role=tool_results_as, cache=cache,
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
            err_console.print(f"{row['case_id']}: {row['cause']}{base} ({runs} re-runs)", highlight=False)

    try:
        report = dissect_run(path, agent_obj, config, k=k, sample=sample, seed=seed, baseline=baseline,
                             max_actions=max_actions, on_case=on_case, on_plan=on_plan, workers=workers,
                             recipe=dissect_recipe(workers, agent_name, choice.model, options, params))
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
    total, base = data["cases"], data["baseline"]
    out_console.print(f"root causes of {total} failures sampled from {data['failures_within_limit']} within the "
                      f"limit ({data['scope']}; seed Alg. 2, Tables 4 and 7):", highlight=False)
    out_console.print(f"  {'cause':<12} {'cases':>5}  {'share [95% CI]':<20}  chance baseline [95% CI]",
                      highlight=False)
    for c in CAUSES:
        line = f"  {c:<12} " + _format_share(data["causes"][c], data["shares"][c], data["ci95"][c])
        if base is not None:
            line += "  " + _format_share(base["causes"][c], base["shares"][c], base["ci95"][c])
        out_console.print(line, highlight=False)
    if base is None:
        out_console.print("no chance baseline (some cases were dissected with --no-baseline): a share cannot be "
                          "told from noise", highlight=False)
    else:
        out_console.print("chance baseline: " + base["method"] + "; a share no higher than its baseline is not "
                          "evidence of that cause", highlight=False)


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------


@app.command()
def report(
    run_dirs: list[Path] = typer.Argument(..., help="One run directory, or several to compare (the first is "
                                                    "the baseline of the paired comparisons)."),
    out: Path = typer.Option(Path("report.html"), "-o", "--out", help="The HTML file to write."),
    title: str = typer.Option("", help="Report title (default: the run names)."),
    plots: Optional[Path] = typer.Option(None, help="Also write every plot into this directory."),
    plot_format: list[str] = typer.Option(["svg"], "--plot-format", help="png and/or svg (repeatable)."),
) -> None:
    """A self-contained HTML report: summary, pass rate by difficulty with 95% CIs, error and
    root-cause distributions, a filterable case table with drill-down; paired comparisons for
    several runs. Opens offline; all suite and model text is escaped."""
    from .report.data import load_run
    from .report.html import render_report
    from .report.plots import export_figures

    names = [p.name or str(p) for p in run_dirs]
    if len(set(names)) < len(names):
        names = [str(p) for p in run_dirs]
    runs = [load_run(p, name) for p, name in zip(run_dirs, names)]
    for i, run in enumerate(runs):
        for note in run.notes:
            labelled("note:", f"{run.name}: {note}")
    html = render_report(runs, title)
    write_text_atomic(out, html)
    out_console.print(f"wrote {out} ({len(html.encode('utf-8')) / 1e6:.2f} MB, {sum(len(r.rows) for r in runs)} results)")
    if plots is not None:
        for path in export_figures(runs, plots, plot_format):
            out_console.print(f"wrote {path}")


# ---------------------------------------------------------------------------
# grammar, demo
# ---------------------------------------------------------------------------


@app.command()
def grammar() -> None:
    """How many ways the task grammar can expand a sub-sentence."""
    from .suites.constraints.grammar import count_expansions

    for mode, extended in (("basic", False), ("extended", True)):
        c = count_expansions(extended)
        out_console.print(
            f"{mode:9s} sub-sentence skeletons: {c['sub_sentence_shapes']:>5}   "
            f"with terminal words: {c['with_terminal_words']:,}   conjunctions: {c['conjunctions']}"
        )


@app.command()
def demo(
    out: Path = typer.Option(Path("planprobe-demo"), "--out", help="Where the suite and runs go."),
    n: int = typer.Option(6, "--n", help="Cases in the suite."),
    seed: int = typer.Option(0, help="Seed for the suite, agents and model."),
    model: Optional[str] = typer.Option("local", help="Model for the tools/react agents ('none' to skip)."),
) -> None:
    """The main job: generate a small suite, run it against the embedded local model and the
    reference agents, print the results. Offline; model answers are cached, so a re-run is instant."""
    from .demo import run_demo

    run_demo(out, n, seed, out_console, err_console, None if model == "none" else model)


from . import cli_judge  # noqa: E402,F401  (registers 'judge' and 'import apb')
from . import cli_apb  # noqa: E402,F401  (registers 'apb score' and 'apb predictions')
from . import cli_generate_pddl  # noqa: E402,F401  (registers 'generate pddl')
from . import cli_generate_planbench  # noqa: E402,F401  (registers 'generate planbench')
from . import cli_generate_travel  # noqa: E402,F401  (registers 'generate travel')
from . import cli_planbench  # noqa: E402,F401  (registers 'import planbench-results')
from . import cli_travelplanner  # noqa: E402,F401  (registers 'import travelplanner', 'travelplanner')
from . import cli_debug  # noqa: E402,F401  (registers 'label', 'errorbench', 'import agentdebug')
from . import cli_generate_plugins  # noqa: E402,F401  (registers 'generate NAME' for plug-in families)
from . import cli_apibank  # noqa: E402,F401  (registers 'import api-bank')
from . import cli_detect  # noqa: E402,F401  (registers 'detect', 'debug')
from . import cli_serve  # noqa: E402,F401  (registers 'serve', 'proxy', 'check')
from . import cli_inspect  # noqa: E402,F401  (registers 'export inspect', 'import inspect')


# Exit codes (docs/format.md): 0 done; 1 a check failed (gate) or the output pipe closed;
# 2 an error the user can fix (bad input or option, a file or disk problem, a run directory
# in use); 70 an internal error (a bug: please report it); 130 interrupted (Ctrl-C).
EXIT_ERROR = 2
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
_interrupt_reported: list[bool] = []  # a command that said what Ctrl-C kept (run) sets this


def _fail(message: str, code: int = EXIT_ERROR) -> None:
    labelled("error:", message, style="red")
    sys.exit(code)


def main() -> None:
    """Entry point: typer reports usage errors itself; every other failure becomes one
    line on stderr and a non-zero exit. PLANPROBE_TRACEBACK=1 shows the traceback of an
    unexpected error."""
    import os
    import sqlite3

    from .atomic import describe_os_error

    try:
        app()
    except SystemExit as exc:  # typer turns Ctrl-C into a silent exit 130: say it, once
        if exc.code == EXIT_INTERRUPTED and not _interrupt_reported:
            labelled("error:", "interrupted", style="red")
        raise
    except (PlanprobeError, InfrastructureError, ContextLimitError) as exc:
        # a model failure that escapes a command (e.g. the judge's) is one line too: exit 3 for the
        # service, 2 for a prompt that does not fit the context window
        from .models.redact import redact

        code = getattr(exc, "exit_code", EXIT_INFRA if isinstance(exc, InfrastructureError) else EXIT_ERROR)
        _fail(redact(str(exc)), code)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        try:  # the reader went away (planprobe show … | head): nothing left to say
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        sys.exit(1)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else "a file"
        _fail(describe_os_error(where, exc, verb="use"))
    except sqlite3.Error as exc:
        _fail(f"run database: {exc}")
    except RecursionError:
        _fail("the input is nested too deeply to read")
    except MemoryError:
        _fail("out of memory")
    except Exception as exc:
        if os.environ.get("PLANPROBE_TRACEBACK"):
            raise
        _fail(f"internal error ({type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else '-'}); "
              "please report it — PLANPROBE_TRACEBACK=1 shows where", EXIT_INTERNAL)


if __name__ == "__main__":
    main()
