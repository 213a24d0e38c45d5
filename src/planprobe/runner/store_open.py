"""Opening a run directory's database: the writer's lock and the connection.

Why apart from ``store``: this is the part that deals with the operating system —
an exclusive ``flock`` on ``RUN_DIR/run.lock`` that the kernel drops when the
writer dies, WAL journaling for the writer, and a read-only connection that
works beside a running writer and on read-only media (``immutable`` when the
shared-memory file cannot be made) — while ``store`` is the run's tables and
queries. See ``store``'s docstring for the guarantees this gives a run.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sqlite3
from pathlib import Path
from typing import TextIO

from ..errors import PlanprobeError

__all__ = ["LOCK_NAME", "SCHEMA", "acquire_lock", "connect"]

LOCK_NAME = "run.lock"

SCHEMA = """
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
CREATE TABLE IF NOT EXISTS rerollouts (
    case_id TEXT NOT NULL,
    trial INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    steps INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    primary_error TEXT,
    trace TEXT NOT NULL,
    verdict TEXT NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (case_id, trial, attempt)
);
"""


def _lock_holder(handle) -> str:
    try:
        handle.seek(0)
        pid = handle.read().strip()
    except OSError:
        pid = ""
    return f" (process {pid})" if pid.isdigit() else ""


def acquire_lock(directory: Path) -> TextIO:
    """The writer's exclusive lock on ``directory`` (an open handle holding the flock),
    or one line saying who holds it."""
    path = directory / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise PlanprobeError(f"cannot write to run directory {directory}: {exc.strerror or exc}") from None
    handle = os.fdopen(fd, "r+", encoding="ascii", errors="replace")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = _lock_holder(handle)
        handle.close()
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise PlanprobeError(
                f"{directory} is in use by another planprobe run{holder}; wait for it to finish "
                "or use another --out directory"
            ) from None
        raise PlanprobeError(f"cannot lock run directory {directory}: {exc.strerror or exc}") from None
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
    except OSError:
        pass  # the pid is only for the message a second writer prints
    return handle


def connect(path: Path, writable: bool) -> sqlite3.Connection:
    """The run database: for writing (WAL, the schema made or completed), or read-only,
    never creating or changing a file; a failure is one line naming the file."""
    if writable:
        try:
            db = sqlite3.connect(path, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SCHEMA)
            return db
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise PlanprobeError(f"{path}: another process has kept the run database busy for 30 s "
                                     "(a long report?); run again when it is done") from None
            raise PlanprobeError(f"{path}: cannot open the run database for writing ({exc})") from None
        except sqlite3.Error as exc:
            raise PlanprobeError(f"{path}: cannot open the run database for writing ({exc})") from None
    # Read-only: never creates or changes a file. A finished run (a single file, no
    # WAL) opens with mode=ro on any media; a run whose WAL is still there needs its
    # shared-memory file, so on read-only media with no -shm it opens immutable
    # (there is then no other process that could be writing).
    uri = "file:" + _quote_path(path)
    try:
        db = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=30)
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.OperationalError as ro_exc:
        wal = Path(str(path) + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise PlanprobeError(
                f"{path}: cannot read the run database ({ro_exc}); its last results are still in "
                f"{wal.name} — open it once where it is writable (e.g. 'planprobe show' on a copy)"
            ) from None
        try:
            db = sqlite3.connect(uri + "?immutable=1", uri=True)
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            raise PlanprobeError(f"{path}: not a readable run database ({exc})") from None
    except sqlite3.DatabaseError as exc:
        raise PlanprobeError(f"{path}: not a readable run database ({exc})") from None
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = {"meta", "cases", "results"} - tables
    if missing:
        db.close()
        raise PlanprobeError(f"{path}: not a planprobe run database (no {', '.join(sorted(missing))} table)")
    return db


def _quote_path(path: Path) -> str:
    """A filesystem path as the path part of an SQLite URI."""
    from urllib.parse import quote

    return quote(str(Path(path).resolve()), safe="/")
