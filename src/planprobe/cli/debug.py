# ruff: noqa: UP045  (Optional kept as these commands were written)
"""``planprobe label``, ``planprobe errorbench`` and ``planprobe import agentdebug``:
AgentDebug's ground truth from the formal oracles, on the command line. A thin layer
over planprobe.debug; cli/root.py registers its commands."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Optional

import typer

from ..errors import PlanprobeError
from ..option_checks import check
from .common import _progress, err_console, out_console
from .options import Address, Backend, ProcessWorkers, Quiet, scale_options


def _json_line(obj) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def _warn_unfinished(note: str | None) -> None:
    if note is not None:
        err_console.print(f"warning: {note}", highlight=False, soft_wrap=True)


def _distinct(runs: list[Path]) -> list[Path]:
    """Each run once (a run named twice would write each of its trajectories twice), with a note."""
    seen: dict[Path, Path] = {}
    for run in runs:
        key = run.resolve()
        if key in seen:
            again = "named more than once" if run == seen[key] else f"the same run as {seen[key]}"
            err_console.print(f"{run}: {again}; read once", highlight=False, soft_wrap=True)
            continue
        seen[key] = run
    return list(seen.values())


def label(
    run_dir: Path = typer.Argument(..., help="A run directory (planprobe run --out …)."),
    output: Optional[Path] = typer.Option(None, "-o", "--output",
                                          help="Labels file to write (JSONL; default: RUN/labels.jsonl)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    quiet: Quiet = False,
    workers: ProcessWorkers = 1,
    backend: Backend = "processes",
    address: Address = None,
) -> None:
    """Formal labels for every failed trace: the earliest error E (step, module, type), the point of
    no return, the budget point of no return, a minimum correction and module-level labels."""
    from ..atomic import write_lines_atomic
    from ..debug.run_labels import (
        LabelCounts,
        count_failed,
        label_run,
        require_labellable,
        unfinished_note,
    )

    check("--workers", workers, at_least=1)
    scale_options(workers, backend, address)  # one line for a bad option, before any work
    _warn_unfinished(unfinished_note(run_dir))
    counts = LabelCounts()
    by_type: collections.Counter[str] = collections.Counter()
    pnr = budget = oracle_calls = 0
    total = count_failed(run_dir)
    out_path = output or run_dir / "labels.jsonl"

    def lines():
        nonlocal pnr, budget, oracle_calls
        for _case, _trace, labels in label_run(run_dir, counts, workers=workers, backend=backend, address=address):
            if labels.critical is not None:
                by_type[f"{labels.critical.module}/{labels.critical.type}"] += 1
            pnr += labels.pnr.step is not None
            budget += labels.budget_pnr is not None and labels.budget_pnr.step is not None
            oracle_calls += labels.pnr.oracle_calls
            yield _json_line(labels.model_dump(mode="json"))

    with _progress(quiet or total < 200) as progress:
        task = progress.add_task("labelling", total=total)
        written = write_lines_atomic(out_path, lines(), on_line=lambda _: progress.advance(task))
    if written == 0 and counts.other_family:
        out_path.unlink(missing_ok=True)
        require_labellable(str(run_dir), counts)
    summary = {"labelled": written, "passed": counts.passed, "infra_skipped": counts.infra,
               "unlabellable": counts.other_family, "critical": dict(by_type.most_common()),
               "with_pnr": pnr, "with_budget_pnr": budget,
               "pnr_oracle_calls_mean": round(oracle_calls / written, 2) if written else None,
               "output": str(out_path)}
    if as_json:
        out_console.print(json.dumps(summary, sort_keys=True), soft_wrap=True, highlight=False)
        return
    if written == 0:
        out_console.print(f"{run_dir}: no failed trace to label ({counts.passed} passed)", highlight=False)
        return
    out_console.print(f"labelled {written} failed traces -> {out_path}", highlight=False)
    for key, n in by_type.most_common():
        out_console.print(f"  E {key}: {n}", highlight=False)
    out_console.print(f"  point of no return: {pnr} traces ({summary['pnr_oracle_calls_mean']} oracle calls "
                      f"per trace); budget point of no return: {budget}", highlight=False)
    if counts.other_family:
        err_console.print(f"not labelled (no formal labels for these families): {counts.other_family}")


def errorbench(
    runs: list[Path] = typer.Argument(..., help="Run directories."),
    output: Path = typer.Option(..., "-o", "--output", help="Benchmark file to write (JSONL)."),
    quiet: Quiet = False,
) -> None:
    """Failed trajectories with their formal labels, in AgentDebug's trajectory format
    (metadata + messages, one assistant message per step) plus planprobe's labels."""
    from ..atomic import write_lines_atomic
    from ..debug.bench import bench_record
    from ..debug.run_labels import (
        LabelCounts,
        count_failed,
        label_run,
        no_labels_message,
        unfinished_note,
    )

    runs = _distinct(runs)
    for run in runs:
        _warn_unfinished(unfinished_note(run))
    totals = {str(r): count_failed(r) for r in runs}
    seen_families: dict[str, int] = {}
    labelled = stepless = 0

    def lines():
        nonlocal labelled, stepless
        for run in runs:
            counts = LabelCounts()
            for case, trace, labels in label_run(run, counts):
                labelled += 1
                record = bench_record(case, trace, labels, run=run.name)
                stepless += record["critical_error"] is None and labels.critical is not None
                yield _json_line(record)
            for fam, n in counts.other_family.items():
                seen_families[fam] = seen_families.get(fam, 0) + n

    with _progress(quiet or sum(totals.values()) < 200) as progress:
        task = progress.add_task("labelling", total=sum(totals.values()))
        written = write_lines_atomic(output, lines(), on_line=lambda _: progress.advance(task))
    if written == 0 and seen_families:
        output.unlink(missing_ok=True)
        raise PlanprobeError(no_labels_message(", ".join(map(str, runs)), seen_families))
    out_console.print(f"wrote {written} labelled failed trajectories to {output}", highlight=False)
    if stepless:
        err_console.print(f"{stepless} of them have no step (no action and no answer): critical_error is null "
                          "there (AgentDebug's critical step names a step), and detect does not score them",
                          highlight=False, soft_wrap=True)
    if seen_families:
        err_console.print(f"not included (no formal labels for these families): {seen_families}")


def import_agentdebug_cmd(
    files: list[Path] = typer.Argument(..., help="AgentDebug trajectories: .json (one, or a list) or .jsonl."),
    output: Path = typer.Option(..., "-o", "--output", help="Benchmark file to write (JSONL)."),
) -> None:
    """AgentDebug trajectories (metadata + messages, annotations optional) -> a planprobe error
    benchmark file, checked field by field (a bad file stops with FILE:LINE: field)."""
    from ..atomic import write_lines_atomic
    from ..debug.bench import read_trajectories

    def lines():
        for f in files:
            for record in read_trajectories(f):
                yield _json_line(record)

    records = list(lines())  # read and check everything before writing anything
    count = write_lines_atomic(output, records)
    err_console.print(f"wrote {count} trajectories to {output}")


def register(app: typer.Typer) -> None:
    app.command()(label)
    app.command()(errorbench)


def register_import(import_app: typer.Typer) -> None:
    import_app.command("agentdebug")(import_agentdebug_cmd)
