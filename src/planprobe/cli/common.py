"""What the command modules share: the consoles, the progress bar, labelled lines,
the exit codes and the range parser. Every module under ``cli/`` may import this one;
it imports none of them, so each command module imports alone and the root
(``cli/root.py``) imports them all without an import cycle."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..errors import PlanprobeError

err_console = Console(stderr=True, markup=False, emoji=False)
out_console = Console(markup=False, emoji=False)


def labelled(label: str, text: str, style: str = "yellow", console: Console | None = None) -> None:
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


# Exit codes (docs/format.md): 0 done; 1 a check failed (gate) or the output pipe closed;
# 2 an error the user can fix (bad input or option, a file or disk problem, a run directory
# in use); 3 a run ended with infra results, or stopped because the model service is unusable;
# 70 an internal error (a bug: please report it); 130 interrupted (Ctrl-C); 143 serve stopped by
# SIGTERM (finished results kept).
EXIT_ERROR = 2
EXIT_INFRA = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, what a shell reports for a process SIGTERM ended
interrupt_reported: list[bool] = []  # a command that said what Ctrl-C kept (run) sets this
terminated: list[bool] = []  # SIGTERM arrived: Ctrl-C's path is taken, the exit code is 143


def stop_on_sigterm() -> None:
    """Make SIGTERM (``kill``, a service manager, a CI time limit) stop a command the way Ctrl-C
    does — results kept, one line said, resumable — instead of Python's silent exit 143.

    The handler hands over to the SIGINT handler in force: inside ``asyncio.run`` that is the
    runner's, which cancels the main task cleanly; elsewhere (or when SIGINT is ignored, as in a
    background job) it raises ``KeyboardInterrupt`` itself. Commands with their own SIGTERM
    handling (``serve``, ``proxy``) replace this one while their loop runs."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def on_sigterm(signum: int, frame: Any) -> None:
        terminated.append(True)
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler) and handler is not signal.default_int_handler:
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)


def stopped_by() -> str:
    """How a stopped command says why: ``interrupted`` (Ctrl-C) or ``terminated (SIGTERM)``."""
    return "terminated (SIGTERM)" if terminated else "interrupted"


def stop_exit_code() -> int:
    """130 after Ctrl-C, 143 after SIGTERM: what a shell reports for either signal."""
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def first_cause(causes: list[str]) -> str:
    """The latest cause of an infra result, with any key a server echoed redacted."""
    from ..models.redact import redact

    return redact(causes[-1]) if causes else "unknown"


def exit_on_infra(infra: list[tuple[str, int, int, list[str]]], what_next: str) -> None:
    """Exit 3 when a command stored infra results (``RunStore.infra_rows()``), as ``run`` does:
    one line with how many, the first cause and ``what_next``; nothing when there are none."""
    if not infra:
        return
    import typer

    err_console.print(f"error: {len(infra)} result(s) failed for infrastructure reasons and are not counted; "
                      f"first cause: {first_cause(infra[0][3])}; {what_next}", highlight=False, markup=False,
                      soft_wrap=True)
    raise typer.Exit(EXIT_INFRA)
