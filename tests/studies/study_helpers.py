"""Shared by the study tests: run ``planprobe study`` in this process and read its study.json."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from helpers import cli_here


def study(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.setenv("COLUMNS", "250")
    return cli_here(capsys, monkeypatch, "study", *args)


def study_json(directory: Path) -> dict[str, Any]:
    return json.loads((Path(directory) / "study.json").read_text(encoding="utf-8"))


def table(data: dict[str, Any], table_id: str) -> dict[str, Any]:
    return next(t for t in data["tables"] if t["id"] == table_id)


def yours(data: dict[str, Any], table_id: str) -> dict[str, Any]:
    """The study's own row of a table whose rows are agents."""
    return next(r for r in table(data, table_id)["rows"] if r["source"] == "yours")


def measures(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c: v["measure"] for c, v in row["cells"].items() if isinstance(v, dict) and "measure" in v}


def results_snapshot(directory: Path) -> dict[str, list[tuple]]:
    """Every stored result of every run under ``directory``: (case, trial, finished_at) — a
    result run again would have a new time."""
    out = {}
    for db in sorted(Path(directory).rglob("run.sqlite")):
        con = sqlite3.connect(db)
        try:
            out[str(db.relative_to(directory))] = sorted(con.execute("SELECT case_id, trial, finished_at FROM results"))
        finally:
            con.close()
    return out


def dissect_lines(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): p.read_text(encoding="utf-8")
            for p in sorted(Path(directory).rglob("dissect.jsonl"))}
