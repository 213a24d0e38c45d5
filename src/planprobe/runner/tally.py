"""A run's totals (cases, results, passed, infra, model calls, tokens, cost), kept in its meta table.

Why: listing a hundred runs of ten thousand results each (``planprobe view``) must not read a
billion bytes of traces, nor even count ten thousand index entries per run. The writer stores
the totals as its last write when it closes (``RunStore.close``), with the results table's last
rowid. A reader trusts them only when the run is settled — no ``-wal`` file beside the database:
SQLite removes it only when the last connection closes cleanly, after the writer's last write —
and the last rowid (found in O(log n)) still matches. A run still being written, a writer that
was killed, or a run written before totals were kept is summed by one aggregate query instead.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

TALLY_KEY = "tally"


def last_rowid(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COALESCE(MAX(rowid), 0) FROM results").fetchone()[0])


def compute(db: sqlite3.Connection) -> dict[str, Any]:
    """The totals by aggregate queries (a scan of the results table)."""
    row = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(passed AND NOT infra), 0), COALESCE(SUM(infra), 0), "
        "COALESCE(SUM(model_calls), 0), COALESCE(SUM(cached_calls), 0), COALESCE(SUM(prompt_tokens), 0), "
        "COALESCE(SUM(completion_tokens), 0), SUM(cost_usd) FROM results").fetchone()
    return {"cases": int(db.execute("SELECT COUNT(*) FROM cases").fetchone()[0]), "results": row[0],
            "last_rowid": last_rowid(db), "passed": row[1], "infra": row[2], "model_calls": row[3],
            "cached_calls": row[4], "prompt_tokens": row[5], "completion_tokens": row[6], "cost_usd": row[7]}


def store_tally(db: sqlite3.Connection) -> None:
    """Keep the totals in the meta table (the writer's last write, when it closes)."""
    with db:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                   (TALLY_KEY, json.dumps(compute(db), sort_keys=True)))


def read_tally(db: sqlite3.Connection, settled: bool, meta: dict[str, str] | None = None) -> dict[str, Any]:
    """The stored totals when the run is ``settled`` (no WAL file) and they are current, else
    computed now. ``meta``: the run's meta table when the caller has already read it."""
    raw = (meta or {}).get(TALLY_KEY) if meta is not None else None
    if meta is None:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (TALLY_KEY,)).fetchone()
        raw = row[0] if row else None
    if settled and raw:
        try:
            stored = json.loads(raw)
        except ValueError:
            stored = None
        if isinstance(stored, dict) and "cases" in stored and stored.get("last_rowid") == last_rowid(db):
            return stored
    return compute(db)
