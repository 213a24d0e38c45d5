"""``planprobe grammar`` and ``planprobe demo``: how far the task grammar reaches, and the
main job run end to end offline (``planprobe.demo``)."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import err_console, out_console


def grammar() -> None:
    """How many ways the task grammar can expand a sub-sentence."""
    from ..suites.constraints.grammar import count_expansions

    for mode, extended in (("basic", False), ("extended", True)):
        c = count_expansions(extended)
        out_console.print(
            f"{mode:9s} sub-sentence skeletons: {c['sub_sentence_shapes']:>5}   "
            f"with terminal words: {c['with_terminal_words']:,}   conjunctions: {c['conjunctions']}"
        )


def demo(
    out: Path = typer.Option(Path("planprobe-demo"), "--out", help="Where the suite and runs go."),
    n: int = typer.Option(6, "--n", help="Cases in the suite."),
    seed: int = typer.Option(0, help="Seed for the suite, agents and model."),
    model: str | None = typer.Option("local", help="Model for the tools/react agents ('none' to skip)."),
) -> None:
    """The main job: generate a small suite, run it against the embedded local model and the
    reference agents, print the results. Offline; model answers are cached, so a re-run is instant."""
    from ..demo import run_demo

    run_demo(out, n, seed, out_console, err_console, None if model == "none" else model)


def register(app: typer.Typer) -> None:
    app.command()(grammar)
    app.command()(demo)
