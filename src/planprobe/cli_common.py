"""What every ``cli_*`` module registers its commands on (the root app, ``generate``),
and the console helpers they share. The command modules import this module, never
``cli`` itself, so each of them can be imported alone and ``cli`` imports them all
without an import cycle."""

from __future__ import annotations

from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

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

err_console = Console(stderr=True, markup=False, emoji=False)
out_console = Console(markup=False, emoji=False)


def labelled(label: str, text: str, style: str = "yellow", console: Optional[Console] = None) -> None:
    """``label: text`` with only the label styled; the text is printed as is."""
    from rich.text import Text

    (console or err_console).print(Text.assemble((label, style), " ", text), highlight=False, soft_wrap=True)


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
