"""A run as the view lists and shows it, read from its store opened read-only.

The run list must open fast over a hundred runs of ten thousand results each, so a run's head
never reads its results: its totals are what the writer stored when it closed (``runner.tally``)
or, for a run still being written, one aggregate query; either is kept in this process until
the run's files change (their sizes and modification times say when). A run page streams its
rows once (``summarize``'s path) for the plots and the case table, without traces.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..analysis.stats import wilson_interval
from ..analysis.summary import Tally
from ..errors import PlanprobeError
from ..report.data import MAX_POINTS, error_label
from ..runner.store import DB_NAME, RunStore
from ..runner.tally import read_tally

_HEADS: dict[tuple[str, tuple], dict[str, Any]] = {}
_LOCK = threading.Lock()


def _signature(directory: Path) -> tuple:
    """What changes whenever a run's database does: size and mtime of the file and its WAL."""
    out: list[tuple[int, int] | None] = []
    for suffix in ("", "-wal"):
        try:
            st = (Path(directory) / (DB_NAME + suffix)).stat()
            out.append((st.st_size, st.st_mtime_ns))
        except OSError:
            out.append(None)
    return tuple(out)


def run_head(name: str, directory: Path) -> dict[str, Any]:
    """One row of the run list: family, agent, model, pass rate with its Wilson 95% interval,
    progress, tokens and cost; kept in this process until the run's files change. A run that
    cannot be read is a row with its error."""
    signature = _signature(directory)
    key = (str(directory), signature)
    with _LOCK:
        hit = _HEADS.get(key)
    if hit is not None:
        return {**hit, "name": name}
    head = _read_head(name, directory, settled=signature[1] is None)
    if head.get("error") is None:
        with _LOCK:
            if len(_HEADS) > 4096:  # runs being written add a key per poll: forget the old ones
                _HEADS.clear()
            _HEADS[key] = head
    return head


def _read_head(name: str, directory: Path, settled: bool) -> dict[str, Any]:
    try:
        store = RunStore(directory)
        try:
            meta = store.meta()
            first = store.db.execute("SELECT family FROM cases ORDER BY ordinal LIMIT 1").fetchone()
            t = read_tally(store.db, settled, meta)
        finally:
            store.close()
    except (PlanprobeError, sqlite3.Error, OSError) as exc:  # a broken run is listed with why, not a failed page
        return {"name": name, "error": str(exc) or type(exc).__name__}
    trials = int(meta["trials"]) if str(meta.get("trials", "")).isdigit() else 1
    judged = t["results"] - t["infra"]
    lo, hi = wilson_interval(t["passed"], judged)
    expected = t["cases"] * trials
    return {
        "name": name, "family": first[0] if first else "", "agent": meta.get("agent", ""),
        "model": meta.get("model", "") or "", "suite": meta.get("suite", ""), "trials": trials,
        "expected": expected, "done": t["results"], "pending": max(0, expected - t["results"]),
        "writing": not settled and t["results"] < expected,
        "passed": t["passed"], "judged": judged, "infra": t["infra"],
        "rate": t["passed"] / judged if judged else None, "ci95": [lo, hi],
        "model_calls": t["model_calls"], "tokens": t["prompt_tokens"] + t["completion_tokens"],
        "cost_usd": t["cost_usd"], "error": None,
    }


def _curves(by_axis: dict[str, dict[float, Tally]]) -> list[dict[str, Any]]:
    """Pass rate against each numeric difficulty measure the run's own cases record, binned as the
    report bins them (at most MAX_POINTS points), each with its Wilson 95% interval."""
    from ..report.data import _binned

    out = []
    for axis in sorted(by_axis):
        tallies = _binned(by_axis[axis])
        if len(tallies) < 2:
            continue
        points = []
        for x in sorted(tallies):
            tl = tallies[x]
            lo, hi = wilson_interval(tl.passed, tl.cases)
            points.append({"x": int(x) if float(x).is_integer() else x, "cases": tl.cases, "passed": tl.passed,
                           "rate": tl.passed / tl.cases, "lo": lo, "hi": hi})
        out.append({"axis": axis, "points": points})
    return out


def run_page(name: str, directory: Path) -> dict[str, Any]:
    """What a run page draws, in one pass over the rows (no traces): the tables by |A| and topic,
    the plots' data and one row per result: [case id, trial, outcome, error, status, topic,
    difficulty]. Tallied as ``analysis.summary`` tallies (primary class, infra left out)."""
    by_axis: dict[str, dict[float, Tally]] = defaultdict(lambda: defaultdict(Tally))
    by_actions: dict[int, Tally] = defaultdict(Tally)
    by_topic: dict[str, Tally] = defaultdict(Tally)
    rows: list[list[Any]] = []
    errors: Counter = Counter()
    store = RunStore(directory)
    try:
        for row, meta_json in store.rows_with_meta():
            try:
                meta = json.loads(meta_json)
            except ValueError:
                meta = {}
            difficulty = meta.get("difficulty") if isinstance(meta.get("difficulty"), dict) else {}
            topic = str(meta.get("topic") or "")
            outcome = "infra" if row.infra else "pass" if row.passed else "fail"
            error = "" if row.passed or row.infra else (row.primary_error or "")
            if not row.infra:
                if error:
                    errors[error_label(error, row.status)] += 1
                for axis, value in difficulty.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        by_axis[axis][value].add(row.passed, row.primary_error)
                if isinstance(difficulty.get("actions"), (int, float)):
                    by_actions[int(difficulty["actions"])].add(row.passed, row.primary_error, row.status)
                if topic:
                    by_topic[topic].add(row.passed, row.primary_error, row.status)
            rows.append([row.case_id, row.trial, outcome, error, row.status, topic,
                         {k: v for k, v in difficulty.items() if isinstance(v, (int, float, str))}])
    finally:
        store.close()
    return {
        "name": name, "head": run_head(name, directory), "errors": dict(sorted(errors.items())),
        "by_topic": {k: t.to_json() for k, t in sorted(by_topic.items())},
        "by_actions": {str(k): t.to_json() for k, t in sorted(by_actions.items())},
        "curves": _curves(by_axis), "rows": rows, "max_points": MAX_POINTS,
    }


def search_cases(directory: Path, text: str) -> list[str]:
    """Ids of the cases whose task text or id contains ``text`` (case-insensitive, Unicode too),
    in suite order."""
    needle = text.casefold()
    store = RunStore(directory)
    try:
        rows = store.db.execute("SELECT case_id, json_extract(json, '$.task') FROM cases ORDER BY ordinal")
        return [cid for cid, task in rows if needle in cid.casefold() or needle in str(task or "").casefold()]
    finally:
        store.close()
