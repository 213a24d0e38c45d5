"""``planprobe export inspect`` and ``planprobe import inspect``: a suite as an Inspect AI task,
and an Inspect log graded against a suite into a planprobe run (integrations/inspect_io.py).
``register`` adds the ``export`` group, ``register_import`` the ``import inspect`` command."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import err_console, exit_on_infra
from .show import show_run


def export_inspect_cmd(
    suite: Path = typer.Argument(..., help="Suite file (JSONL)."),
    out: Path = typer.Option(..., "-o", "--out", help="Folder to write the Inspect task into."),
    message_limit: int | None = typer.Option(None, "--message-limit",
                                             help="Inspect's message limit per sample (default: none)."),
) -> None:
    """Write an Inspect AI task (dataset, the cases' tools, a scorer calling planprobe's oracle):
    run it with `inspect eval DIR/planprobe_task.py --model PROVIDER/MODEL`."""
    from ..integrations.inspect_io import TASK_FILE, export_inspect

    count = export_inspect(suite, out, message_limit)
    err_console.print(f"wrote an Inspect task with {count} cases to {out}; run: inspect eval {out / TASK_FILE} "
                      "--model <provider/model>", highlight=False, soft_wrap=True)


def import_inspect_cmd(
    log: Path = typer.Argument(..., help="An Inspect log (.eval or .json)."),
    suite: Path = typer.Option(..., "--suite", help="The suite the log's samples are cases of."),
    out: Path = typer.Option(..., "--out", help="Run directory to store the judged samples in."),
) -> None:
    """Grade an Inspect log against a suite with planprobe's oracle; stores a normal run (one trial per epoch)."""
    from ..integrations.inspect_io import import_inspect
    from ..runner.store import RunStore

    cases, trials = import_inspect(log, suite, out)
    err_console.print(f"judged {cases} case(s) x {trials} epoch(s) from {log} into {out}", highlight=False)
    show_run(out, as_json=False, infra_note=False)
    store = RunStore(out)
    try:
        infra = store.infra_rows()
    finally:
        store.close()
    exit_on_infra(infra, "samples that errored under Inspect (or are missing from the log) are infra: run them "
                         "again with Inspect (inspect eval-retry) and import the new log into the same --out")


def register(app: typer.Typer) -> None:
    export_app = typer.Typer(help="Export a suite for another evaluation tool.", no_args_is_help=True)
    export_app.command("inspect")(export_inspect_cmd)
    app.add_typer(export_app, name="export")


def register_import(import_app: typer.Typer) -> None:
    import_app.command("inspect")(import_inspect_cmd)
