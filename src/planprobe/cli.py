"""The ``planprobe`` command: a thin layer that parses options and calls the library.

Every problem a user can cause ends in one line on stderr naming the file, line
or option, and a non-zero exit — never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import __version__
from .errors import PlanprobeError

app = typer.Typer(
    help="planprobe: test, benchmark and diagnose the planning of LLM agents with exact oracles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
generate_app = typer.Typer(help="Generate a suite of cases (JSONL).", no_args_is_help=True)
app.add_typer(generate_app, name="generate")

err_console = Console(stderr=True)
out_console = Console()


def _progress(quiet: bool, *extra) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), *extra,
        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
        console=err_console, disable=quiet, transient=False,
    )


def parse_range(text: str, option: str = "--actions") -> tuple[int, int]:
    """'4' -> (4, 4); '3-5' -> (3, 5)."""
    parts = text.split("-")
    try:
        if len(parts) == 1:
            lo = hi = int(parts[0])
        elif len(parts) == 2:
            lo, hi = int(parts[0]), int(parts[1])
        else:
            raise ValueError
    except ValueError:
        raise PlanprobeError(f"{option} {text!r}: expected a number or a range like 3-5") from None
    return lo, hi


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
    max_sentences: int = typer.Option(3, help="Max sentences per requirement (N in Alg. 1)."),
    max_iterations: int = typer.Option(20, help="Max candidate sentences tried per sentence (K in Alg. 1)."),
    max_duration: int = typer.Option(3, help="Extended mode: task durations are 1..this many hours."),
    topic: Optional[str] = typer.Option(None, help="Use only this job of the lexicon as topic."),
    lexicon: Optional[Path] = typer.Option(None, help="A lexicon file to use instead of the embedded one."),
    workers: Optional[int] = typer.Option(None, help="Processes to generate with (default: all cores for "
                                                      "2000+ cases); the output is the same for any number."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> None:
    """Synthesize PDoctor-style planning tasks whose constraints are the oracle."""
    from .suites.constraints.generator import ConstraintSuiteOptions, generate_lines
    from .suites.constraints.lexicon import load_lexicon
    from .suites.constraints.synthesis import SynthesisOptions
    from .suites.io import write_suite_lines

    opts = ConstraintSuiteOptions(
        actions=parse_range(actions), n=n, seed=seed, extended=extended, max_duration=max_duration,
        topic=topic, lexicon=load_lexicon(lexicon),
        synthesis=SynthesisOptions(max_sentences=max_sentences, max_iterations=max_iterations),
    )
    opts.check()
    with _progress(quiet or n < 2000) as progress:
        task = progress.add_task("generating", total=n)
        count = write_suite_lines(generate_lines(opts, workers), output, on_line=lambda _: progress.advance(task))
    err_console.print(f"wrote {count} cases to {output}")


# ---------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------


def run_suite_cli(suite: Path, agent_name: str, out: Path, concurrency: int, trials: int,
                  max_iterations: int, timeout: float, seed: int, quiet: bool) -> None:
    from .agents import make_agent
    from .environment import Limits
    from .runner.engine import RunConfig, open_run, run_pending
    from .suites.io import load_suite

    if concurrency < 1 or trials < 1 or max_iterations < 1 or timeout <= 0:
        raise PlanprobeError("--concurrency, --trials and --max-iterations must be at least 1, --timeout above 0")
    agent = make_agent(agent_name, seed)
    cases = load_suite(suite)
    config = RunConfig(agent=agent_name, trials=trials, concurrency=concurrency,
                       limits=Limits(max_iterations=max_iterations, timeout_s=timeout), seed=seed)
    store = open_run(out, cases, config, suite_name=str(suite))
    done_before = len(store.done_keys())
    total = len(cases) * trials
    passed = judged = 0

    with _progress(quiet, TextColumn("pass {task.fields[rate]}")) as progress:
        task = progress.add_task("running", total=total, completed=done_before, rate="-")

        def on_result(trace, verdict) -> None:
            nonlocal passed, judged
            if not verdict.infra:
                judged += 1
                passed += verdict.passed
            progress.update(task, advance=1, rate=f"{100 * passed / judged:.0f}%" if judged else "-")

        try:
            asyncio.run(run_pending(store, cases, agent, config, on_result))
        except KeyboardInterrupt:
            progress.stop()
            err_console.print(
                f"interrupted: {len(store.done_keys())}/{total} results are saved in {out}; "
                f"resume with: planprobe run {suite} --agent {agent_name} --out {out}"
            )
            raise typer.Exit(130)
    show_run(out, as_json=False)


@app.command()
def run(
    suite: Path = typer.Argument(..., help="Suite file (JSONL) to run."),
    agent: str = typer.Option("oracle", help="oracle | random | faulty:<fault> (drop, duplicate, swap, "
                                             "unknown-tool, malformed-args, wrong-start-time, stall)."),
    out: Path = typer.Option(..., "--out", help="Run directory; re-run with the same one to resume."),
    concurrency: int = typer.Option(8, help="Cases run at the same time."),
    trials: int = typer.Option(1, help="Runs per case (for pass@k / pass^k)."),
    max_iterations: int = typer.Option(50, help="Per-case iteration limit (seed default 50)."),
    timeout: float = typer.Option(180.0, help="Per-case time limit in seconds (seed default 180)."),
    seed: int = typer.Option(0, help="Seed passed to the agent."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> None:
    """Run a suite against an agent; results are stored in RUN_DIR as each case finishes."""
    run_suite_cli(suite, agent, out, concurrency, trials, max_iterations, timeout, seed, quiet)


# ---------------------------------------------------------------------------
# show
# ---------------------------------------------------------------------------


def show_run(run_dir: Path, as_json: bool) -> None:
    from .analysis.summary import summarize
    from .report.table import summary_table
    from .runner.store import RunStore

    store = RunStore(run_dir)
    try:
        summary = summarize(store)
    finally:
        store.close()
    if as_json:
        print(json.dumps(summary.to_json(), indent=2, sort_keys=True))
    else:
        out_console.print(summary_table(summary))


@app.command()
def show(
    run_dir: Path = typer.Argument(..., help="A run directory written by 'planprobe run'."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable summary."),
) -> None:
    """Summarize a run: pass rate with 95% CI, failures by class, by action count."""
    show_run(run_dir, as_json)


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
    out: Path = typer.Option(Path("planprobe-demo"), "--out", help="Where the suites and runs go."),
    n: int = typer.Option(60, "--n", help="Cases per suite."),
    seed: int = typer.Option(0, help="Seed for the suites and agents."),
) -> None:
    """The main job with embedded defaults: generate suites, run the reference agents, print the results."""
    from .demo import run_demo

    run_demo(out, n, seed, out_console, err_console)


def main() -> None:
    """Entry point: typer reports usage errors itself; our own errors become one line."""
    try:
        app()
    except PlanprobeError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
