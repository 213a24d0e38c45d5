# ruff: noqa: UP045  (Optional kept as these commands were written)
"""APB mode on the command line: ``judge --style apb`` (called from cli_judge),
``apb predictions`` (a run's replies as APB's prediction file) and ``apb score``
(APB's scores from an APB judgement file)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import TextColumn
from rich.table import Table

from ..atomic import write_text_atomic
from ..errors import PlanprobeError
from ..suites.judged.apb_format import HOLISTIC_SPLITS, SPLITS, STEP_WISE_SPLITS
from .common import (
    _progress,
    err_console,
    labelled,
    out_console,
    stop_exit_code,
    stopped_by,
)

apb_app = typer.Typer(help="The Agent Planning Benchmark's own files: predictions, judgements, scores.",
                      no_args_is_help=True)


def resolve_splits(value: str) -> tuple[str, ...]:
    """APB's --splits: all, holistic|offline, step_wise|online, or a comma-separated list."""
    if value == "all":
        return SPLITS
    if value in ("holistic", "offline"):
        return HOLISTIC_SPLITS
    if value in ("step_wise", "online"):
        return STEP_WISE_SPLITS
    chosen = tuple(s.strip() for s in value.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SPLITS]
    if unknown or not chosen:
        raise PlanprobeError(f"--splits: unknown split {unknown[0] if unknown else value!r} "
                             f"(all, holistic, step_wise or some of {', '.join(SPLITS)})")
    return chosen


def is_run_dir(path: Path) -> bool:
    return path.is_dir()


def judge_apb(source: Path, *, judge_model: str, model_options: Any, out: Optional[Path], scores: Optional[Path],
              splits: str, max_tokens: Optional[int], json_mode: bool, concurrency: int, limit: Optional[int],
              skip_invalid: bool, as_json: bool, quiet: bool, apb_code: Optional[Path] = None) -> None:
    """Judge a run directory's APB cases, or an APB prediction file, the way APB does."""
    from ..importers.apb_prompts import load
    from ..llm_judge.apb import JUDGE_MAX_TOKENS
    from ..llm_judge.apb_run import (
        FAILURES_NAME,
        JUDGEMENTS_NAME,
        PREDICTIONS_NAME,
        check_judge_prompts,
        from_predictions,
        from_run,
        judge_all,
        judged_keys,
        key,
        read_judgements,
        same_model,
        write_predictions,
    )
    from ..llm_judge.apb_score import counted_correct
    from ..models import make_model

    chosen = set(resolve_splits(splits))
    if limit is not None and limit < 1:
        raise PlanprobeError("--limit must be at least 1")
    if max_tokens is not None and max_tokens < 16:
        raise PlanprobeError("--max-tokens must be at least 16")
    if not source.exists():
        raise PlanprobeError(f"{source}: neither a run directory nor an APB prediction file")
    prompts = load(apb_code)  # before anything is written
    if is_run_dir(source):
        src = from_run(source)
        default_out = source / JUDGEMENTS_NAME
        write_predictions(src.records, source / PREDICTIONS_NAME)
    elif source.is_file():
        src = from_predictions(source, skip_invalid, lambda m: labelled("skipped:", m))
        default_out = source.with_name(source.stem + ".judgements.jsonl")
    else:
        raise PlanprobeError(f"{source}: neither a run directory nor an APB prediction file")
    out = out or default_out
    failures = out.with_name(FAILURES_NAME) if is_run_dir(source) else out.with_name(out.stem + ".unreadable.jsonl")
    records = [r for r in src.records if r.get("split") in chosen]
    if not records:
        raise PlanprobeError(f"{source}: no APB predictions to judge" + ("" if splits == "all" else " in --splits"))
    if limit is not None:
        records = records[:limit]
    model = make_model(judge_model, model_options)
    check_judge_prompts(out, model.name, prompts)
    done = judged_keys(out, model.name)
    pending = [r for r in records if key(r) not in done]
    tally = {"counted": 0, "correct": 0}  # APB's accuracy: rows whose judgement has is_correct
    with _progress(quiet, TextColumn("accuracy {task.fields[acc]}")) as progress:
        task = progress.add_task("judging (APB)", total=len(records), completed=len(records) - len(pending), acc="-")

        def on_row(row: Optional[dict[str, Any]]) -> None:
            verdict = None if row is None else counted_correct(row)
            if verdict is not None:
                tally["counted"] += 1
                tally["correct"] += verdict
            acc = f"{100 * tally['correct'] / tally['counted']:.1f}%" if tally["counted"] else "-"
            progress.update(task, advance=1, acc=acc)

        async def go() -> tuple[int, int]:
            try:
                return await judge_all(model, pending, out, failures, max_tokens=max_tokens or JUDGE_MAX_TOKENS,
                                       json_mode=json_mode, concurrency=concurrency, on_row=on_row,
                                       prompts=prompts)
            finally:
                await model.aclose()

        try:
            judged, unreadable = asyncio.run(go())
        except KeyboardInterrupt:
            progress.stop()
            err_console.print(f"{stopped_by()}: the records judged so far are in {out}; run the same command again "
                              "to resume")
            raise typer.Exit(stop_exit_code()) from None
    for note in src.notes() + src.prompt_notes(prompts) + [prompts.describe()]:
        labelled("note:", note)
    if unreadable:
        labelled("note:", f"{unreadable} judge repl(ies) APB's runner cannot read or write (not JSON, or a lone "
                          f"surrogate): not written to {out} (APB's runner would stop at the first); raw replies "
                          f"in {failures}")
    err_console.print(f"judged {judged} new record(s) with {model.name}; {len(records) - len(pending)} already "
                      f"judged; judgements in {out}")
    rows = [r for r in read_judgements(out) if same_model(r.get("judge_model"), model.name)]
    show_scores(rows, tuple(sorted(chosen, key=SPLITS.index)), scores, as_json)


def show_scores(rows: list[dict[str, Any]], splits: tuple[str, ...], scores: Optional[Path], as_json: bool) -> None:
    from ..llm_judge.apb_score import collisions, group_dimension, score, scores_json

    summary = score(rows, splits)
    if scores is not None:
        write_text_atomic(scores, scores_json(summary))
    if as_json:
        print(scores_json(summary), end="")
        return
    print_scores(summary, group_dimension(rows), collisions(r for r in rows if r.get("split") in splits))


def print_scores(summary: dict[str, Any], dims: dict[str, str], notes: list[str]) -> None:
    t = Table(title=f"APB scores ({summary['total_records']} judged records)", title_justify="left")
    for col, just in (("group", "left"), ("by", "left"), ("records", "right"), ("accuracy", "right"),
                      ("mean grade", "right")):
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    order = {"overall": 0, "split": 1, "planning_regime": 2, "task_family": 3, "task_category": 4}
    for name, g in sorted(summary["groups"].items(),
                          key=lambda kv: (order.get(dims.get(kv[0], "").split("+")[0], 5), kv[0])):
        acc = "-" if g["accuracy"] is None else f"{100 * g['accuracy']:.1f}%"
        grade = "-" if g["average_grade"] is None else f"{g['average_grade']:.3f}"
        t.add_row(name, dims.get(name, "?").replace("planning_regime", "regime"), str(g["records"]), acc, grade)
    out_console.print(t)
    for note in notes:
        labelled("note:", note)


def score_cmd(
    judgements: Path = typer.Argument(..., help="An APB judgement file (JSONL), e.g. runs/x/apb_judgements.jsonl."),
    scores: Optional[Path] = typer.Option(None, "--scores", help="Also write APB's scores JSON here."),
    splits: str = typer.Option("all", help="all, holistic, step_wise, or a comma-separated list of splits."),
    as_json: bool = typer.Option(False, "--json", help="Print APB's scores JSON."),
    skip_invalid: bool = typer.Option(False, "--skip-invalid",
                                      help="Score as APB's score() does: name each bad row on stderr; rows APB "
                                           "scores are kept, lines that are not JSON objects are left out."),
) -> None:
    """APB's scores (accuracy = mean is_correct, mean grade) overall and by split, regime, family, category."""
    from ..llm_judge.apb_run import read_judgements

    chosen = resolve_splits(splits)  # options first, then the file
    named: list[str] = []

    def on_skip(message: str) -> None:
        named.append(message)
        labelled("skipped:" if message.endswith("left out") else "note:", message)

    rows = read_judgements(judgements, skip_invalid, on_skip)
    if named:
        left = sum(m.endswith("left out") for m in named)
        labelled("note:", f"{len(named)} bad row(s) named above: {left} left out, {len(named) - left} read as "
                          "APB's score() reads them")
    show_scores(rows, chosen, scores, as_json)


def predictions_cmd(
    run_dir: Path = typer.Argument(..., help="A run of APB cases imported with --protocol apb."),
    output: Path = typer.Option(..., "-o", "--output", help="APB prediction file to write (JSONL)."),
) -> None:
    """The run's replies as APB's prediction file (each record + tested_model + model_response)."""
    from ..llm_judge.apb_run import from_run, write_predictions

    src = from_run(run_dir)
    if not src.records:
        raise PlanprobeError(f"{run_dir}: no finished APB cases (import with --protocol apb)")
    write_predictions(src.records, output)
    for note in src.notes():
        labelled("note:", note)
    err_console.print(f"wrote {len(src.records)} APB prediction record(s) to {output}")


def register(app: typer.Typer) -> None:
    app.add_typer(apb_app, name="apb")
    apb_app.command("score")(score_cmd)
    apb_app.command("predictions")(predictions_cmd)
