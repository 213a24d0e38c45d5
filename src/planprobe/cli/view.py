"""``planprobe view [DIR]``: a local, read-only web app over a directory of runs, sweeps and studies."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import out_console


def view(
    directory: Path = typer.Argument(Path("."), help="A directory of run directories, sweeps and studies "
                                                     "(or one run directory)."),
    port: int = typer.Option(0, help="Port on 127.0.0.1 (0: a free one)."),
) -> None:
    """Browse runs, sweeps and studies in a browser: the run list (following runs still being
    written), a run's plots and case table, a case's trace as a timeline, comparisons and studies.
    Listens on 127.0.0.1 only; the printed URL carries a token every request needs. Read-only."""
    from ..view.server import serve

    def ready(url: str) -> None:
        out_console.print(f"planprobe view of {directory}: {url}", soft_wrap=True)
        out_console.print("(read-only; Ctrl-C stops it)")

    try:
        serve(directory, port, ready)
    except KeyboardInterrupt:  # Ctrl-C is how a viewer is stopped: not an error
        out_console.print("stopped")


def register(app: typer.Typer) -> None:
    app.command()(view)
