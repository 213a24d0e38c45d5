"""A run on disk: one SQLite file per run directory.

The run keeps its own copy of the cases, so it can be shown, re-checked and
reported without the suite file. Each result (trace + verdict) is committed
the moment its case finishes; with WAL journaling a killed process loses at
most the cases that were still running, and ``(case_id, trial)`` is the
primary key, so a resumed run can never record a case twice.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

from ..errors import FormatVersionError, PlanprobeError
from ..schema import Case, CaseMeta, Trace, Verdict

STORE_FORMAT = 1
DB_NAME = "run.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cases (
    ordinal INTEGER PRIMARY KEY,
    case_id TEXT NOT NULL UNIQUE,
    family TEXT NOT NULL,
    meta TEXT NOT NULL,
    json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    case_id TEXT NOT NULL,
    trial INTEGER NOT NULL,
    status TEXT NOT NULL,
    passed INTEGER NOT NULL,
    primary_error TEXT,
    infra INTEGER NOT NULL,
    wall_time REAL NOT NULL,
    model_calls INTEGER NOT NULL DEFAULT 0,
    cached_calls INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    trace TEXT NOT NULL,
    verdict TEXT NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (case_id, trial)
);
"""


@dataclass(frozen=True)
class ResultRow:
    case_id: str
    trial: int
    status: str
    passed: bool
    primary_error: Optional[str]
    infra: bool
    wall_time: float
    model_calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: Optional[float] = None


def suite_digest(cases: Iterable[Case]) -> str:
    h = hashlib.sha256()
    for case in cases:
        h.update(case.model_dump_json().encode())
        h.update(b"\n")
    return h.hexdigest()


class RunStore:
    def __init__(self, directory: Path, create: bool = False):
        self.directory = Path(directory)
        self.path = self.directory / DB_NAME
        if not self.path.exists():
            if not create:
                if not self.directory.exists():
                    raise PlanprobeError(f"run directory not found: {self.directory}")
                raise PlanprobeError(f"{self.directory} is not a planprobe run directory (no {DB_NAME})")
            self.directory.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise PlanprobeError(f"{self.path}: not a readable run database ({exc})") from None
        version = self.meta().get("format")
        if version is not None and not version.isdigit():
            raise PlanprobeError(f"{self.path}: meta 'format' is {version!r}, not a format version number")
        if version is not None and int(version) < STORE_FORMAT:
            raise FormatVersionError(
                f"{self.directory}: run format version {version} is older than this planprobe reads "
                f"({STORE_FORMAT}); re-run the suite into a new directory with this planprobe"
            )
        if version is not None and int(version) > STORE_FORMAT:
            raise FormatVersionError(
                f"{self.directory}: run format version {version} is newer than this planprobe "
                f"understands ({STORE_FORMAT}); upgrade planprobe"
            )

    def close(self) -> None:
        self.db.close()

    # -- meta ---------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta"))

    def set_meta(self, values: dict[str, object]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [(k, v if isinstance(v, str) else json.dumps(v, sort_keys=True)) for k, v in values.items()],
            )

    # -- cases --------------------------------------------------------------

    def has_cases(self) -> bool:
        return self.db.execute("SELECT 1 FROM cases LIMIT 1").fetchone() is not None

    def add_cases(self, cases: list[Case]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT INTO cases (ordinal, case_id, family, meta, json) VALUES (?, ?, ?, ?, ?)",
                [(i, c.id, c.family, c.meta.model_dump_json(), c.model_dump_json()) for i, c in enumerate(cases)],
            )

    def cases(self) -> list[Case]:
        rows = self.db.execute("SELECT json FROM cases ORDER BY ordinal")
        return [Case.model_validate_json(r[0]) for r in rows]

    def case_metas(self) -> dict[str, CaseMeta]:
        """Each case's metadata (topic, difficulty) without loading whole cases."""
        rows = self.db.execute("SELECT case_id, meta FROM cases ORDER BY ordinal")
        return {cid: CaseMeta.model_validate_json(meta) for cid, meta in rows}

    def case_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM cases").fetchone()[0]

    # -- results ------------------------------------------------------------

    def done_keys(self) -> set[tuple[str, int]]:
        return {(r[0], r[1]) for r in self.db.execute("SELECT case_id, trial FROM results")}

    def infra_rows(self) -> list[tuple[str, int, int, list[str]]]:
        """(case_id, trial, attempts, causes) of every infra result, the first finished
        first: the runner re-runs those with attempts left, the CLI names the first cause."""
        out = []
        rows = self.db.execute("SELECT case_id, trial, trace FROM results WHERE infra = 1 ORDER BY finished_at, rowid")
        for case_id, trial, raw in rows:
            trace = json.loads(raw)
            meta = trace.get("meta") or {}
            last = [e.get("message", "") for e in trace.get("errors") or [] if e.get("kind") == "infra"][-1:]
            out.append((case_id, trial, int(meta.get("attempt", 1)), list(meta.get("earlier_infra", [])) + last))
        return out

    def add_result(self, trace: Trace, verdict: Verdict) -> None:
        """Store a result; it may replace an infra result of the same (case, trial), never another."""
        u = trace.usage
        with self.db:
            self.db.execute("DELETE FROM results WHERE case_id = ? AND trial = ? AND infra = 1",
                            (trace.case_id, trace.trial))
            self.db.execute(
                "INSERT INTO results (case_id, trial, status, passed, primary_error, infra, wall_time, model_calls, "
                "cached_calls, prompt_tokens, completion_tokens, cost_usd, trace, verdict, finished_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    trace.case_id, trace.trial, trace.status.value, int(verdict.passed), verdict.primary,
                    int(verdict.infra), trace.wall_time_s, u.model_calls, u.cached_calls, u.prompt_tokens,
                    u.completion_tokens, u.cost_usd, trace.model_dump_json(), verdict.model_dump_json(), time.time(),
                ),
            )

    def rows(self) -> list[ResultRow]:
        cur = self.db.execute(
            "SELECT r.case_id, r.trial, r.status, r.passed, r.primary_error, r.infra, r.wall_time, r.model_calls, "
            "r.cached_calls, r.prompt_tokens, r.completion_tokens, r.cost_usd "
            "FROM results r JOIN cases c ON c.case_id = r.case_id ORDER BY c.ordinal, r.trial"
        )
        return [ResultRow(r[0], r[1], r[2], bool(r[3]), r[4], bool(r[5]), *r[6:]) for r in cur]

    def results(self) -> Iterator[tuple[Trace, Verdict]]:
        cur = self.db.execute(
            "SELECT r.trace, r.verdict FROM results r JOIN cases c ON c.case_id = r.case_id "
            "ORDER BY c.ordinal, r.trial"
        )
        for trace, verdict in cur:
            yield Trace.model_validate_json(trace), Verdict.model_validate_json(verdict)

    def raw_results(self) -> Iterator[tuple[str, str]]:
        """(trace JSON, verdict JSON) in suite order, unparsed: for readers (reports)
        that need every result fast and treat them as plain data."""
        yield from self.db.execute(
            "SELECT r.trace, r.verdict FROM results r JOIN cases c ON c.case_id = r.case_id "
            "ORDER BY c.ordinal, r.trial"
        )

    def raw_cases(self) -> Iterator[str]:
        yield from (r[0] for r in self.db.execute("SELECT json FROM cases ORDER BY ordinal"))
