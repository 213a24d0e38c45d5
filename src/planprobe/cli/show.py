"""``planprobe show``: a run's summary (pass rate with its interval, failures by class and
by action count, and each family's own figures), as text or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .common import first_cause, out_console


def show_run(run_dir: Path, as_json: bool, infra_note: bool = True) -> None:
    from ..analysis.apibank import api_bank_lines, api_bank_metrics
    from ..analysis.robustness import robustness, robustness_lines
    from ..analysis.summary import summarize
    from ..report.table import difficulty_table, summary_table
    from ..runner.findings import underspecified_lines, underspecified_rows
    from ..runner.store import RunStore
    from ..suites.travelplanner.submission import run_figure_lines, run_figures

    store = RunStore(run_dir)
    try:
        summary = summarize(store)
        robust = robustness(store)
        travel = run_figures(store)
        api_bank = api_bank_metrics(store)
        infra = store.infra_rows() if summary.infra else []
        underspecified = underspecified_rows(store)
    finally:
        store.close()
    if as_json:
        data = summary.to_json()
        if robust:
            data["robustness"] = robust
        if travel:
            data["travelplanner"] = travel
        if api_bank:
            data["api_bank"] = api_bank
        if underspecified:
            data["solver_underspecified"] = [{"case_id": c, "trial": t, "missing": f} for c, t, f in underspecified]
        if infra:
            data["infra_first_cause"] = first_cause(infra[0][3])
        from ..llm_judge.apb_run import apb_scores

        apb = apb_scores(run_dir)
        if apb:
            data["apb_scores"] = apb
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        out_console.print(summary_table(summary))
        extra = difficulty_table(summary)
        if extra is not None:
            out_console.print(extra)
        for line in robustness_lines(robust):
            out_console.print(line, highlight=False)
        for line in run_figure_lines(travel):
            out_console.print(line, highlight=False, soft_wrap=True)
        from ..llm_judge.apb_run import judgement_lines

        for line in judgement_lines(run_dir):
            out_console.print(line, highlight=False, markup=False, soft_wrap=True)
        for line in api_bank_lines(api_bank):
            out_console.print(line, highlight=False, markup=False, soft_wrap=True)
        for line in underspecified_lines(underspecified):
            out_console.print(line, highlight=False, markup=False, soft_wrap=True)
        if infra and infra_note:
            out_console.print(f"infrastructure failures: first cause: {first_cause(infra[0][3])}; re-running the run's "
                              "command retries them", highlight=False, markup=False, soft_wrap=True)


def show(
    run_dir: Path = typer.Argument(..., help="A run directory written by 'planprobe run'."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable summary."),
) -> None:
    """Summarize a run: pass rate with 95% CI, failures by class, by action count."""
    show_run(run_dir, as_json)


def register(app: typer.Typer) -> None:
    app.command()(show)
