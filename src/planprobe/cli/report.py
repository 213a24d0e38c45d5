"""``planprobe report``: one self-contained HTML file over one or more runs."""

from __future__ import annotations

from pathlib import Path

import typer

from ..atomic import write_text_atomic
from .common import labelled, out_console


def report(
    run_dirs: list[Path] = typer.Argument(..., help="One run directory, or several to compare (the first is "
                                                    "the baseline of the paired comparisons)."),
    out: Path = typer.Option(Path("report.html"), "-o", "--out", help="The HTML file to write."),
    title: str = typer.Option("", help="Report title (default: the run names)."),
    plots: Path | None = typer.Option(None, help="Also write every plot into this directory."),
    plot_format: list[str] = typer.Option(["svg"], "--plot-format", help="png and/or svg (repeatable)."),
) -> None:
    """A self-contained HTML report (of a study directory: its study section — the paper's tables
    and plots): summary, pass rate by difficulty with 95% CIs, error and
    root-cause distributions, a filterable case table with drill-down; paired comparisons for
    several runs. Opens offline; all suite and model text is escaped."""
    from ..report.data import load_run
    from ..report.html import render_report
    from ..report.plots import export_figures

    if len(run_dirs) == 1 and (run_dirs[0] / "study.json").exists():  # a study directory: its study section
        from ..report.study import render_study_report
        from ..studies.directory import read_study

        page = render_study_report(read_study(run_dirs[0]))
        write_text_atomic(out, page)
        out_console.print(f"wrote {out} (study {run_dirs[0]})")
        return
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


def register(app: typer.Typer) -> None:
    app.command()(report)
