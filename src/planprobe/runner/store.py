"""A run on disk: one SQLite file per run directory.

The run keeps its own copy of the cases, so it can be shown, re-checked and
reported without the suite file. Each result (trace + verdict) is committed
the moment its case finishes; with WAL journaling a killed process loses at
most the cases that were still running, and ``(case_id, trial)`` is the
primary key, so a resumed run can never record a case twice.

One writer per directory: a writer holds an exclusive ``flock`` on
``RUN_DIR/run.lock`` for as long as it is open (the kernel drops it when the
process dies, even by SIGKILL), so a second ``planprobe run`` on the same
directory is refused at once instead of racing the first. Readers (``show``,
``report``, ``compare`` …) take no lock and open the database read-only: they
work beside a running writer and on read-only media. A writer closes by
switching the journal back to a single file (``journal_mode=DELETE``), so a
finished run directory is one self-contained ``run.sqlite``.

Cases are read back in pages (``pending``), never all at once, so a run's
memory does not grow with the size of its suite. Taking the lock and opening the
database (writer, reader, read-only media) is ``store_open``'s job.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import FormatVersionError, PlanprobeError
from .store_open import LOCK_NAME, acquire_lock, connect
from .tally import store_tally

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11 on
from ..schema import Case, CaseMeta, Trace, Verdict

# 2: traces of version 2 (who spoke, sub-episodes, re-rollout links) and the rerollouts
# table. Format 1 directories read as they are; a writer upgrades one by adding the table
# (nothing else changes) and records format 2.
STORE_FORMAT = 2
OLDEST_STORE_FORMAT = 1
DB_NAME = "run.sqlite"
PAGE = 256  # cases read back per query while running


@dataclass(frozen=True)
class ResultRow:
    case_id: str
    trial: int
    status: str
    passed: bool
    primary_error: str | None
    infra: bool
    wall_time: float
    model_calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


class SuiteDigest:
    """SHA-256 over the cases' canonical JSON, one per line: what identifies a suite.
    Incremental, so a suite can be fingerprinted while it streams past."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.count = 0

    def update(self, case: Case) -> None:
        self._h.update(case.model_dump_json().encode())
        self._h.update(b"\n")
        self.count += 1

    def hexdigest(self) -> str:
        return self._h.hexdigest()


def suite_digest(cases: Iterable[Case]) -> str:
    digest = SuiteDigest()
    for case in cases:
        digest.update(case)
    return digest.hexdigest()


class RunStore:
    """A run directory's database. ``RunStore(d)`` opens an existing run read-only;
    ``create=True`` (make it if needed) or ``write=True`` opens it for writing, which
    takes the directory's lock or fails with one line."""

    def __init__(self, directory: Path, create: bool = False, write: bool = False):
        self.directory = Path(directory)
        self.path = self.directory / DB_NAME
        self.writable = create or write
        self.created = False  # this store made the database file (open_run removes it if it fails)
        self.made_directory = False
        self._lock: TextIO | None = None
        if self.directory.exists() and not self.directory.is_dir():
            raise PlanprobeError(f"{self.directory} is a file, not a run directory")
        if not self.path.exists():
            if not create:
                if not self.directory.exists():
                    raise PlanprobeError(f"run directory not found: {self.directory}")
                raise PlanprobeError(f"{self.directory} is not a planprobe run directory (no {DB_NAME})")
            try:
                self.made_directory = not self.directory.exists()
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise PlanprobeError(f"cannot create run directory {self.directory}: {exc.strerror or exc}") from None
        if self.writable:
            self._lock = acquire_lock(self.directory)
            self.created = not self.path.exists()
        try:
            self.db = connect(self.path, self.writable)
        except BaseException:
            self._release_lock()
            raise
        try:
            self._check_format()
        except BaseException:
            self.close()
            raise

    # -- opening ------------------------------------------------------------

    def _release_lock(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the descriptor drops the flock
            self._lock = None

    def _check_format(self) -> None:
        version = self.meta().get("format")
        if version is not None and not version.isdigit():
            raise PlanprobeError(f"{self.path}: meta 'format' is {version!r}, not a format version number")
        if version is not None and int(version) < OLDEST_STORE_FORMAT:
            raise FormatVersionError(
                f"{self.directory}: run format version {version} is older than this planprobe reads "
                f"({OLDEST_STORE_FORMAT}); re-run the suite into a new directory with this planprobe"
            )
        if version is not None and int(version) > STORE_FORMAT:
            raise FormatVersionError(
                f"{self.directory}: run format version {version} is newer than this planprobe "
                f"understands ({STORE_FORMAT}); upgrade planprobe"
            )
        if version is not None and int(version) < STORE_FORMAT and self.writable:
            self.set_meta({"format": str(STORE_FORMAT)})  # the schema script added what is new

    def discard(self) -> None:
        """Close and remove what this store created (a run that failed before it began)."""
        self.close()
        if self.created:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            if self.made_directory:
                (self.directory / LOCK_NAME).unlink(missing_ok=True)
                try:
                    self.directory.rmdir()
                except OSError:
                    pass  # something else is in it now: leave it

    def close(self) -> None:
        db = self.__dict__.pop("db", None)  # closing twice (or after a failed open) is a no-op
        if db is not None:
            if self.writable:
                try:  # the totals a run list reads without a scan (runner/tally.py)
                    store_tally(db)
                except sqlite3.Error:
                    pass  # a reader then sums the results itself
                try:  # leave one self-contained file behind (readable from read-only media)
                    db.execute("PRAGMA busy_timeout = 200")  # a reader has it open: keep the WAL, don't wait
                    db.execute("PRAGMA journal_mode=DELETE")
                except sqlite3.Error:
                    pass  # the WAL stays, which SQLite handles
            db.close()
        self._release_lock()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def _writing(self, what: str):
        """A write transaction; a database error becomes one line naming the run."""
        if not self.writable:
            raise PlanprobeError(f"{self.directory}: opened read-only, cannot {what}")
        try:
            with self.db:
                yield self.db
        except sqlite3.Error as exc:
            raise PlanprobeError(f"{self.path}: cannot {what} ({exc})") from None

    # -- meta ---------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta"))

    def set_meta(self, values: dict[str, object]) -> None:
        with self._writing("store the run's settings") as db:
            self._put_meta(db, values)

    @staticmethod
    def _put_meta(db: sqlite3.Connection, values: dict[str, object]) -> None:
        db.executemany(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            [(k, v if isinstance(v, str) else json.dumps(v, sort_keys=True)) for k, v in values.items()],
        )

    # -- cases --------------------------------------------------------------

    def has_cases(self) -> bool:
        return self.db.execute("SELECT 1 FROM cases LIMIT 1").fetchone() is not None

    def add_cases(self, cases: Iterable[Case]) -> None:
        with self._writing("store the cases") as db:
            self._put_cases(db, cases)

    @staticmethod
    def _put_cases(db: sqlite3.Connection, cases: Iterable[Case], digest: SuiteDigest | None = None) -> None:
        def rows():
            for i, c in enumerate(cases):
                if digest is not None:
                    digest.update(c)
                yield i, c.id, c.family, c.meta.model_dump_json(), c.model_dump_json()

        try:
            db.executemany("INSERT INTO cases (ordinal, case_id, family, meta, json) VALUES (?, ?, ?, ?, ?)", rows())
        except sqlite3.IntegrityError as exc:
            raise PlanprobeError(f"the suite repeats a case id ({exc})") from None

    def initialize(self, cases: Iterable[Case], meta: dict[str, object], expect_digest: str | None = None) -> str:
        """Store the suite's cases and the run's settings in one transaction, streaming
        the cases; returns the suite's digest. A failure half-way (a bad case, a full
        disk, Ctrl-C, a suite that is not the one ``expect_digest`` says was checked)
        leaves no cases and no settings behind."""
        digest = SuiteDigest()
        with self._writing("store the cases and settings") as db:
            self._put_cases(db, cases, digest)
            if expect_digest is not None and digest.hexdigest() != expect_digest:
                raise PlanprobeError(f"the suite changed while it was being read; run {self.directory} again")
            if not digest.count:
                raise PlanprobeError("the suite has no cases")
            self._put_meta(db, {**meta, "suite_sha256": digest.hexdigest()})
        return digest.hexdigest()

    def cases(self) -> list[Case]:
        rows = self.db.execute("SELECT json FROM cases ORDER BY ordinal")
        return [Case.model_validate_json(r[0]) for r in rows]

    def iter_cases(self) -> Iterator[Case]:
        """Every case in suite order, a page at a time (flat memory)."""
        for _ordinal, raw, _done in self._case_pages(with_done=False):
            yield Case.model_validate_json(raw)

    def case_metas(self) -> dict[str, CaseMeta]:
        """Each case's metadata (topic, difficulty) without loading whole cases."""
        rows = self.db.execute("SELECT case_id, meta FROM cases ORDER BY ordinal")
        return {cid: CaseMeta.model_validate_json(meta) for cid, meta in rows}

    def case_difficulties(self) -> Iterator[dict]:
        """Each case's ``meta.difficulty`` in suite order, from a cursor (flat memory)."""
        for (raw,) in self.db.execute("SELECT json_extract(meta, '$.difficulty') FROM cases ORDER BY ordinal"):
            try:
                value = json.loads(raw) if raw else {}
            except ValueError:
                value = {}
            yield value if isinstance(value, dict) else {}

    def case_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM cases").fetchone()[0]

    def _case_pages(self, with_done: bool) -> Iterator[tuple[int, str, str]]:
        """(ordinal, case JSON, done trials as "0,2,…") in suite order. Each page is
        fetched whole before it is handed out, so no cursor stays open while results
        are committed between pages."""
        done = "(SELECT group_concat(r.trial) FROM results r WHERE r.case_id = c.case_id)" if with_done else "''"
        last = -1
        while True:
            page = self.db.execute(
                f"SELECT c.ordinal, c.json, {done} FROM cases c WHERE c.ordinal > ? ORDER BY c.ordinal LIMIT ?",
                (last, PAGE),
            ).fetchall()
            if not page:
                return
            yield from page
            last = page[-1][0]

    # -- results ------------------------------------------------------------

    def done_keys(self) -> set[tuple[str, int]]:
        return {(r[0], r[1]) for r in self.db.execute("SELECT case_id, trial FROM results")}

    def infra_rows(self) -> list[tuple[str, int, int, list[str]]]:
        """(case_id, trial, attempts, causes) of every infra result, the first finished
        first: the runner re-runs those with attempts left, the CLI names the first cause."""
        out = []
        rows = self.db.execute("SELECT case_id, trial, trace FROM results WHERE infra = 1 ORDER BY finished_at, rowid")
        for case_id, trial, raw in rows.fetchall():
            trace = json.loads(raw)
            meta = trace.get("meta") or {}
            last = [e.get("message", "") for e in trace.get("errors") or [] if e.get("kind") == "infra"][-1:]
            out.append((case_id, trial, int(meta.get("attempt", 1)), list(meta.get("earlier_infra", [])) + last))
        return out

    def result_count(self, trials: int | None = None) -> int:
        """Finished results (of trials 0..trials-1 when given)."""
        if trials is None:
            return self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM results WHERE trial < ?", (trials,)).fetchone()[0]

    def pending_count(self, trials: int) -> int:
        """Results never stored (infra results to retry are counted by the runner)."""
        return self.case_count() * trials - self.result_count(trials)

    def pending(self, trials: int, retry: frozenset = frozenset()) -> Iterator[tuple[Case, int]]:
        """(case, trial) for every result still missing, and every (case_id, trial) in
        ``retry`` (infra results to run again), in suite order, read page by page: the
        runner's work list, never held in memory as a whole."""
        retry_ids = {cid for cid, _ in retry}
        for _ordinal, raw, done in self._case_pages(with_done=True):
            finished = {int(t) for t in done.split(",")} if done else set()
            complete = len(finished) >= trials and all(t in finished for t in range(trials))
            if complete and not retry_ids:
                continue
            case = Case.model_validate_json(raw)
            for trial in range(trials):
                if trial not in finished or (case.id, trial) in retry:
                    yield case, trial

    def add_result(self, trace: Trace, verdict: Verdict, raw: tuple[str, str] | None = None) -> None:
        """Store a result; it may replace an infra result of the same (case, trial), never another.
        ``raw`` is the pair's JSON when the caller already has it (a result merged from a shard)."""
        u = trace.usage
        with self._writing(f"store the result of case {trace.case_id!r}") as db:
            db.execute("DELETE FROM results WHERE case_id = ? AND trial = ? AND infra = 1",
                       (trace.case_id, trace.trial))
            db.execute(
                "INSERT INTO results (case_id, trial, status, passed, primary_error, infra, wall_time, model_calls, "
                "cached_calls, prompt_tokens, completion_tokens, cost_usd, trace, verdict, finished_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    trace.case_id, trace.trial, trace.status.value, int(verdict.passed), verdict.primary,
                    int(verdict.infra), trace.wall_time_s, u.model_calls, u.cached_calls, u.prompt_tokens,
                    u.completion_tokens, u.cost_usd, *(raw or (trace.model_dump_json(), verdict.model_dump_json())),
                    time.time(),
                ),
            )

    def rows_with_meta(self) -> Iterator[tuple[ResultRow, str]]:
        """(result row, its case's meta JSON) in suite order, from a cursor: summaries of
        any size without holding every row or every case's metadata."""
        cur = self.db.execute(
            "SELECT r.case_id, r.trial, r.status, r.passed, r.primary_error, r.infra, r.wall_time, r.model_calls, "
            "r.cached_calls, r.prompt_tokens, r.completion_tokens, r.cost_usd, c.meta "
            "FROM results r JOIN cases c ON c.case_id = r.case_id ORDER BY c.ordinal, r.trial"
        )
        for r in cur:
            yield ResultRow(r[0], r[1], r[2], bool(r[3]), r[4], bool(r[5]), *r[6:12]), r[12]

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

    # -- single results and re-rollouts ---------------------------------------

    def case(self, case_id: str) -> Case:
        row = self.db.execute("SELECT json FROM cases WHERE case_id = ?", (case_id,)).fetchone()
        if row is None:
            raise PlanprobeError(f"{self.directory}: no case {case_id!r} in this run")
        return Case.model_validate_json(row[0])

    def trace(self, case_id: str, trial: int = 0) -> Trace:
        row = self.db.execute("SELECT trace FROM results WHERE case_id = ? AND trial = ?", (case_id, trial)).fetchone()
        if row is None:
            raise PlanprobeError(f"{self.directory}: no result for case {case_id!r} trial {trial} (not run yet?)")
        return Trace.model_validate_json(row[0])

    def _has_rerollouts_table(self) -> bool:
        return self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rerollouts'").fetchone() is not None

    def add_rerollout(self, trace: Trace, verdict: Verdict) -> None:
        """Store a re-rollout (``trace.origin`` says which result it re-ran); the results table,
        and so every summary of the run, is left as it was."""
        origin = trace.origin
        if origin is None:
            raise PlanprobeError(f"the trace of case {trace.case_id!r} is not a re-rollout (no origin)")
        with self._writing(f"store a re-rollout of case {trace.case_id!r}") as db:
            db.execute(
                "INSERT INTO rerollouts (case_id, trial, attempt, steps, passed, primary_error, trace, verdict, "
                "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (origin.case_id, origin.trial, origin.attempt, origin.steps, int(verdict.passed), verdict.primary,
                 trace.model_dump_json(), verdict.model_dump_json(), time.time()),
            )

    def rerollouts(self, case_id: str | None = None, trial: int | None = None) -> list[tuple[Trace, Verdict]]:
        """Stored re-rollouts (of one result when ``case_id``/``trial`` are given), in attempt order;
        none in a run written before they existed."""
        if not self._has_rerollouts_table():
            return []
        query = "SELECT trace, verdict FROM rerollouts WHERE (? IS NULL OR case_id = ?) AND (? IS NULL OR trial = ?) " \
                "ORDER BY case_id, trial, attempt"
        rows = self.db.execute(query, (case_id, case_id, trial, trial)).fetchall()
        return [(Trace.model_validate_json(t), Verdict.model_validate_json(v)) for t, v in rows]

    def raw_cases(self) -> Iterator[str]:
        yield from (r[0] for r in self.db.execute("SELECT json FROM cases ORDER BY ordinal"))
