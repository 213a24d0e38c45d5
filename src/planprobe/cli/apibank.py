# ruff: noqa: UP045  (Optional kept as these commands were written)
"""``planprobe import api-bank``: API-Bank's data as a planprobe suite. A thin layer
over ``suites.apibank``; cli/root.py registers it on the ``import``
group. Bad input is one line naming file, line and field (exit 2); the
suite file is written only when every case was built (atomically)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Optional

import typer

from ..errors import PlanprobeError
from .common import err_console


def import_api_bank_cmd(
    data_dir: Path = typer.Argument(..., help="API-Bank's folder (with lv1-lv2-samples/, init_database/, test-data/)."),
    level: str = typer.Option(..., "--level", help="1 (API call, descriptions given), 2 (retrieve with ToolSearcher "
                                                   "and call) or 3 (plan, retrieve and call)."),
    output: Path = typer.Option(..., "-o", "--output", help="Suite file to write (JSONL)."),
    kind: Optional[list[str]] = typer.Option(None, "--kind", help="Keep only this kind (repeatable): api, response "
                                                                  "(levels 1-2); step, response, run (level 3)."),
    pass_rouge: float = typer.Option(0.5, "--pass-rouge", help="ROUGE-L at which a response case passes "
                                                               "(planprobe's threshold; API-Bank reports the mean)."),
    official: bool = typer.Option(False, "--official", help="Call cases pass by API-Bank's own reading, where list "
                                                            "arguments reach the API as text (both readings are "
                                                            "always recorded and shown)."),
) -> None:
    """API-Bank dialogues -> cases scored as API-Bank scores them (call correctness, ROUGE-L), plus whole-run
    cases on level 3 for PMC's correctness, completeness and tool repeats."""
    from ..importers.apibank import import_cases
    from ..suites.io import write_suite

    if level.strip() not in ("1", "2", "3"):  # read here: a bad value is one line, not a usage box
        raise PlanprobeError(f"--level {level}: expected 1, 2 or 3")
    number = int(level)
    if not 0.0 <= pass_rouge <= 1.0:
        raise PlanprobeError(f"--pass-rouge {pass_rouge}: expected a number from 0 to 1")
    cases = import_cases(data_dir, number, tuple(kind) if kind else None, pass_rouge, official)
    count = write_suite(cases, output)
    kinds = Counter(c.spec["kind"] for c in cases)
    detail = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    err_console.print(f"wrote {count} API-Bank level-{number} cases to {output} ({detail})")


def register_import(import_app: typer.Typer) -> None:
    import_app.command("api-bank")(import_api_bank_cmd)
