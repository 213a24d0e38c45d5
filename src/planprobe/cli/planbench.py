"""``planprobe import planbench-results``: re-score PlanBench's recorded responses
with planprobe's parser, validator and planner, and compare with PlanBench's
verdicts. A thin layer over ``importers.planbench``; it registers itself
on the ``import`` group (registered by cli/root.py).

Bad input — a missing file, a line that is not JSON (named ``file:line``), a
missing instance file — is one line on stderr and exit code 2 (via ``cli.main``).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from ..errors import PlanprobeError
from .common import err_console, out_console


def import_planbench_results_cmd(
    file: Path = typer.Argument(..., help="PlanBench results: JSONL or JSONL.gz, one response per line "
                                          "(instance_id, query, llm_raw_response, domain, task, llm_correct…)."),
    instances: Path = typer.Option(..., "--instances", help="PlanBench's 'instances' folder "
                                                            "(DIR/<domain>/generated_basic/instance-N.pddl)."),
    as_json: bool = typer.Option(False, "--json", help="Print {instances, agree, disagreements, …} as JSON."),
    rules: str = typer.Option("planbench", help="How to read replies: 'planbench' (PlanBench's own readers, bug for "
                                                "bug, as they scored its published results), 'planbench-code' (as "
                                                "its code reads today: t7 answers also split at ' and ') or "
                                                "'planprobe' (planprobe's own, stricter reader)."),
    show: int = typer.Option(20, help="Disagreements to list in the table (all with --json)."),
) -> None:
    """Re-score PlanBench responses and compare with PlanBench's own verdicts (llm_correct; t3: llm_correct_binary)."""
    from ..importers.planbench import RULES, rescore_file

    if rules not in RULES:
        raise PlanprobeError(f"--rules {rules!r}: expected one of {', '.join(RULES)}")
    report = rescore_file(file, instances, rules)
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
        return
    pct = 100.0 * report.agreement
    out_console.print(
        f"{file}: {report.task or '-'} on {report.domain or '-'}, {report.instances} instances; "
        f"planprobe agrees with PlanBench on {report.agree}/{report.compared} ({pct:.1f}%); correct per "
        f"planprobe {sum(r.planprobe for r in report.results)}, per PlanBench "
        f"{sum(bool(r.planbench) for r in report.results)}", highlight=False, soft_wrap=True)
    if report.extraction_compared and rules != "planprobe":
        differs = ", ".join(str(r.instance_id) for r in report.extraction_differs[:show]) or "none"
        out_console.print(f"PlanBench's recorded extractions reproduced: extractions {report.extraction_agree}/"
                          f"{report.extraction_compared} (differ: {differs})", highlight=False, soft_wrap=True)
    rows = report.disagreements
    if rows:
        table = Table("instance", "PlanBench", "planprobe", "why", show_lines=False)
        for r in rows[:show]:
            table.add_row(str(r.instance_id), _yes(r.planbench), _yes(r.planprobe), r.reason)
        out_console.print(table)
        if len(rows) > show:
            err_console.print(f"… {len(rows) - show} more (use --show or --json)")


def _yes(value: bool | None) -> str:
    return "-" if value is None else ("correct" if value else "incorrect")


def register_import(import_app: typer.Typer) -> None:
    import_app.command("planbench-results")(import_planbench_results_cmd)
