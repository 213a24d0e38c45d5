# ruff: noqa: UP045  (Optional kept as these commands were written)
"""``planprobe import travelplanner`` and ``planprobe travelplanner score|submission``:
TravelPlanner on the command line. A thin layer over suites.travelplanner; it
cli/root.py registers it. Bad input is one line naming the file,
line and field (exit 2 via ``cli.main``); nothing is written then."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import typer

from ..errors import PlanprobeError
from .common import _progress, err_console, out_console

tp_app = typer.Typer(help="TravelPlanner: score submission files, write a run's plans as a submission.",
                     no_args_is_help=True)


def import_travelplanner_cmd(
    split_file: Optional[Path] = typer.Argument(None, help="A split of the HF data set osunlp/TravelPlanner "
                                                           "(CSV as distributed, or JSONL with the same fields)."),
    output: Path = typer.Option(..., "-o", "--output", help="Suite file to write (JSONL)."),
    database: Optional[Path] = typer.Option(None, help="TravelPlanner's database directory (flights/, "
                                                       "accommodations/, …) for a split file."),
    train_dir: Optional[Path] = typer.Option(None, help="Instead: the training files (train_queries_and_plans.jsonl, "
                                                        "train_ref_info.jsonl); the sandbox is rebuilt from them."),
    mode: list[str] = typer.Option(["sole-planning"], "--mode", help="sole-planning and/or two-stage (repeatable)."),
    strict: bool = typer.Option(False, help="Pass/fail by the strict reading (both readings are always recorded)."),
    split: Optional[str] = typer.Option(None, help="Split name in case ids (default: the file's name)."),
) -> None:
    """TravelPlanner queries -> cases (sole-planning: reference information given; two-stage: search tools)."""
    from ..importers.travelplanner import import_travelplanner
    from ..suites.travelplanner.sandbox import check_layout

    if database is not None:
        check_layout(database)
    with _database_progress(database is not None) as progress:
        count = import_travelplanner(output, modes=list(mode), strict=strict, train_dir=train_dir,
                                     split_file=split_file, database=database, split=split, progress=progress)
    err_console.print(f"wrote {count} TravelPlanner cases to {output}")


@contextmanager
def _database_progress(active: bool) -> Iterator[Optional[Callable[[str], None]]]:
    """A bar over the database's tables while they are read (the flights table takes about a minute)."""
    if not active or not err_console.is_terminal:
        yield None
        return
    from ..suites.travelplanner.sandbox import TABLES

    with _progress(False) as bar:
        task = bar.add_task("reading the TravelPlanner database", total=len(TABLES) - 1)
        yield lambda table: bar.advance(task)


def _queries_and_sandbox(split_file: Optional[Path], database: Optional[Path], train_dir: Optional[Path]):
    from ..suites.travelplanner.cases import sandbox_for

    if train_dir is not None:
        from ..suites.travelplanner.training import load_training

        directory = str(train_dir.resolve())
        return [t.fields for t in load_training(train_dir)], sandbox_for("training", directory)
    if split_file is None or database is None:
        raise PlanprobeError("give --train-dir DIR, or --queries FILE with --database DIR")
    from ..importers.travelplanner_splits import load_split
    from ..suites.travelplanner.sandbox import check_layout

    fields = [o.fields for o in load_split(split_file)]
    check_layout(database)
    with _database_progress(True) as progress:
        return fields, sandbox_for("database", str(database.resolve()), progress)


def score_cmd(
    submission: Path = typer.Argument(..., help="A submission file: JSONL of {idx, query, plan}."),
    queries: Optional[Path] = typer.Option(None, "--queries", help="The split the plans answer (HF CSV/JSONL)."),
    database: Optional[Path] = typer.Option(None, help="TravelPlanner's database directory."),
    train_dir: Optional[Path] = typer.Option(None, help="Instead: the training files (sandbox rebuilt from them)."),
    as_json: bool = typer.Option(False, "--json", help="Figures and every constraint of every plan as JSON."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> None:
    """Check a submission like TravelPlanner's format checker, then give the official figures and the strict ones."""
    from ..suites.travelplanner.metrics import figure_lines
    from ..suites.travelplanner.submission import read_submission, score

    fields, box = _queries_and_sandbox(queries, database, train_dir)
    plans = read_submission(submission, fields)
    with _progress(quiet) as progress:
        task = progress.add_task("scoring", total=len(plans))
        result = score(fields, plans, box, lambda: progress.advance(task))
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
        return
    for reading, title in (("official", "official"), ("strict", "--strict")):
        for line in figure_lines(result[reading], f"TravelPlanner ({title})"):
            out_console.print(line, highlight=False, soft_wrap=True)


def submission_cmd(
    run_dir: Path = typer.Argument(..., help="A run of TravelPlanner cases (one mode)."),
    output: Path = typer.Option(..., "-o", "--output", help="Submission file to write (JSONL)."),
) -> None:
    """Write a run's plans as a TravelPlanner submission file (plan null where none was delivered)."""
    from ..suites.travelplanner.submission import write_submission

    count = write_submission(run_dir, output)
    err_console.print(f"wrote {count} plans to {output}")


def register(app: typer.Typer) -> None:
    app.add_typer(tp_app, name="travelplanner")
    tp_app.command("score")(score_cmd)
    tp_app.command("submission")(submission_cmd)


def register_import(import_app: typer.Typer) -> None:
    import_app.command("travelplanner")(import_travelplanner_cmd)
