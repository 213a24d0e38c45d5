"""Judging a finished run: every trace of its judged cases (and, to calibrate,
of its formal cases), stored in ``RUN_DIR/judge.jsonl``.

The run's own store is left as it is, so every existing reader keeps working.
Each judged trace is appended as one JSON line the moment it is settled; a line
holds the judge's identity (model, samples, threshold, temperature, prompt
version …), the judged verdict, every sample as parsed (with the raw reply), and
— for a formal case — the exact oracle's verdict, so calibration needs nothing
else. Running the command again skips the traces already judged under the same
identity, so an interrupted judging resumes; a different identity (another judge
model, more samples) judges afresh and the older lines stay in the file.
Traces whose result is ``infra`` are never judged: they say nothing about planning.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..errors import PlanprobeError
from ..models.base import Model
from ..runner.store import RunStore
from ..schema import Case, OracleKind, Trace, Verdict
from .judge import JudgeConfig, judge_trace_detailed

LOG_NAME = "judge.jsonl"

Row = dict[str, Any]


def log_path(run_dir: Path) -> Path:
    return Path(run_dir) / LOG_NAME


def read_log(run_dir: Path, identity: dict[str, Any] | None = None) -> dict[tuple[str, int], Row]:
    """Rows of ``judge.jsonl`` by (case_id, trial): those of ``identity`` only, when given;
    the last line wins. A torn last line (a killed process) is skipped."""
    path = log_path(run_dir)
    rows: dict[tuple[str, int], Row] = {}
    if not path.exists():
        return rows
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = (str(row["case_id"]), int(row["trial"]))
        except (ValueError, KeyError, TypeError):
            if lineno == len(lines):
                continue  # interrupted while writing: judged again on the next run
            raise PlanprobeError(f"{path}:{lineno}: not a judge record; move the file away to start afresh") from None
        if identity is None or row.get("identity") == identity:
            rows[key] = row
    return rows


def select(store: RunStore, calibrate: bool) -> list[tuple[Case, Trace, Verdict]]:
    """(case, trace, stored verdict) to judge, in case order: the judged cases' results,
    plus the formal cases' when calibrating; infra results left out."""
    cases = {c.id: c for c in store.cases()}
    out = []
    for trace, verdict in store.results():
        case = cases.get(trace.case_id)
        if case is None or verdict.infra:
            continue
        if case.oracle == OracleKind.JUDGED or (calibrate and case.oracle == OracleKind.FORMAL):
            out.append((case, trace, verdict))
    return out


def make_row(case: Case, trace: Trace, stored: Verdict, judgement, identity: dict[str, Any]) -> Row:
    row: Row = {"case_id": case.id, "trial": trace.trial, "family": case.family, "identity": identity,
                **judgement.to_json(), "judged_at": round(time.time(), 3)}
    row["formal"] = ({"passed": stored.passed, "errors": stored.errors, "checker": stored.checker}
                     if case.oracle == OracleKind.FORMAL else None)
    return row


def judge_run(run_dir: Path, model: Model, config: JudgeConfig, *, calibrate: bool = False,
              limit: int | None = None, concurrency: int = 1,
              on_row: Callable[[Row], None] = lambda r: None,
              on_start: Callable[[int, int], None] = lambda total, done: None) -> list[Row]:
    """Judge the run's selected traces that are not judged yet under this identity;
    returns the rows of every selected trace (judged now or before), in case order."""
    return asyncio.run(judge_run_async(run_dir, model, config, calibrate=calibrate, limit=limit,
                                       concurrency=concurrency, on_row=on_row, on_start=on_start))


async def judge_run_async(run_dir: Path, model: Model, config: JudgeConfig, *, calibrate: bool = False,
                          limit: int | None = None, concurrency: int = 1,
                          on_row: Callable[[Row], None] = lambda r: None,
                          on_start: Callable[[int, int], None] = lambda total, done: None) -> list[Row]:
    """judge_run inside a running event loop (where the model's client lives)."""
    config.check()
    if concurrency < 1:
        raise PlanprobeError("--concurrency must be at least 1")
    store = RunStore(run_dir)
    try:
        selected = select(store, calibrate)
    finally:
        store.close()
    if not selected:
        hint = "" if calibrate else "; add --calibrate to measure the judge on the formal cases"
        raise PlanprobeError(f"{run_dir}: no finished results to judge{hint}")
    if limit is not None:
        selected = selected[:limit]
    identity = config.identity(model.name)
    done = read_log(run_dir, identity)
    pending = [item for item in selected if (item[0].id, item[1].trial) not in done]
    on_start(len(selected), len(selected) - len(pending))
    if pending:
        log = open(log_path(run_dir), "a", encoding="utf-8")  # noqa: ASYNC230, SIM115  (appends, flushed per row)
        try:
            await _judge_all(log, model, config, identity, pending, done, concurrency, on_row)
        finally:
            log.close()
    return [done[(c.id, t.trial)] for c, t, _ in selected if (c.id, t.trial) in done]


async def _judge_all(log: TextIO, model: Model, config: JudgeConfig, identity: dict[str, Any], pending: list,
                     done: dict, concurrency: int, on_row: Callable[[Row], None]) -> None:
    queue: asyncio.Queue = asyncio.Queue()
    for item in pending:
        queue.put_nowait(item)

    async def worker() -> None:
        while True:
            try:
                case, trace, stored = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            judgement = await judge_trace_detailed(model, case, trace, config)
            row = make_row(case, trace, stored, judgement, identity)
            log.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
            log.flush()
            done[(case.id, trace.trial)] = row
            on_row(row)

    workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, len(pending)))]
    try:
        await asyncio.gather(*workers)
    finally:
        for w in workers:
            w.cancel()
