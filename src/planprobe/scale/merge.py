"""The coordinator's side: fold results from shards into the run's store, idempotently.

A result is keyed by (case, trial) within a run whose settings are fixed (a resume with
other settings is refused by runner/resume.py), so the key is case, trial and settings.
A key already holding a judged result is never written again: a shard that ran twice —
a Ray retry, a replacement process, a resumed run re-reading a shard store — adds
nothing. An infra result is replaced by a later attempt, as in a single-process run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..errors import PlanprobeError
from ..runner.store import DB_NAME, RunStore
from ..schema import Trace, Verdict


def merge_result(store: RunStore, raw_trace: str, raw_verdict: str) -> tuple[Trace, Verdict] | None:
    """Store a result unless its key already has one that counts; the parsed result if stored."""
    trace = Trace.model_validate_json(raw_trace)
    row = store.db.execute("SELECT infra, trace FROM results WHERE case_id = ? AND trial = ?",
                           (trace.case_id, trace.trial)).fetchone()
    if row is not None:
        if not row[0]:
            return None
        old_attempt = int((json.loads(row[1]).get("meta") or {}).get("attempt", 1))
        if int(trace.meta.get("attempt", 1)) <= old_attempt:
            return None
    if store.db.execute("SELECT 1 FROM cases WHERE case_id = ?", (trace.case_id,)).fetchone() is None:
        raise PlanprobeError(f"{store.directory}: a worker returned a result for case {trace.case_id!r}, "
                             "which is not in this run")
    verdict = Verdict.model_validate_json(raw_verdict)
    store.add_result(trace, verdict, raw=(raw_trace, raw_verdict))  # stored as the worker wrote it
    return trace, verdict


def merge_shard_dirs(store: RunStore, root: Path) -> int:
    """Merge every shard store left under ``root`` (by a run that was killed or failed
    before the coordinator had everything), then remove the merged shard stores.
    Returns how many results were new."""
    root = Path(root)
    if not root.is_dir():
        return 0
    new = 0
    for directory in sorted(p for p in root.iterdir() if (p / DB_NAME).exists()):
        shard = RunStore(directory)
        try:
            for raw_trace, raw_verdict in shard.raw_results():
                if merge_result(store, raw_trace, raw_verdict) is not None:
                    new += 1
        finally:
            shard.close()
        shutil.rmtree(directory, ignore_errors=True)
    try:
        root.rmdir()
    except OSError:
        pass  # something else is in it
    return new
