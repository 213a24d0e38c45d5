"""A run as the view lists and shows it, read from its store opened read-only.

The run list must open fast over a hundred runs of ten thousand results each, so a run's head
never reads its results one by one: counts come from the primary-key index, the tallies from
one aggregate query whose answer is kept (per process) until the results table changes — its
row count and last rowid say when. A run page streams its rows once (``summarize``'s path)
for the plots and the case table, without traces.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..analysis.stats import wilson_interval
from ..analysis.summary import Tally, summarize
from ..report.data import MAX_POINTS, error_label
from ..runner.store import DB_NAME, RunStore

_TALLIES: dict[tuple[str, int, int], dict[str, Any]] = {}
_LOCK = threading.Lock()


def _tally(store: RunStore) -> dict[str, Any]:
    """passed / infra / usage over the results, cached until the table changes."""
    count, last = store.db.execute("SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM results").fetchone()
    key = (str(store.path), count, last)
    with _LOCK:
        hit = _TALLIES.get(key)
    if hit is not None:
        return hit
    row = store.db.execute(
        "SELECT COALESCE(SUM(passed AND NOT infra), 0), COALESCE(SUM(infra), 0), COALESCE(SUM(model_calls), 0), "
        "COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), SUM(cost_usd) FROM results"
    ).fetchone()
    out = {"results": count, "passed": row[0], "infra": row[1], "model_calls": row[2],
           "tokens": row[3] + row[4], "cost_usd": row[5]}
    with _LOCK:
        _TALLIES[key] = out
    return out


def run_head(name: str, directory: Path) -> dict[str, Any]:
    """One row of the run list: family, agent, model, pass rate with its Wilson 95% interval,
    progress, tokens and cost. A run that cannot be read is a row with its error."""
    try:
        store = RunStore(directory)
    except Exception as exc:  # a broken run is listed with why, not a failed page
        return {"name": name, "error": str(exc)}
    try:
        meta = store.meta()
        cases = store.case_count()
        first = store.db.execute("SELECT family FROM cases ORDER BY ordinal LIMIT 1").fetchone()
        t = _tally(store)
    finally:
        store.close()
    trials = int(meta.get("trials", "1") or 1)
    judged = t["results"] - t["infra"]
    lo, hi = wilson_interval(t["passed"], judged)
    expected = cases * trials
    return {
        "name": name, "family": first[0] if first else "", "agent": meta.get("agent", ""),
        "model": meta.get("model", "") or "", "suite": meta.get("suite", ""), "trials": trials,
        "expected": expected, "done": t["results"], "pending": max(0, expected - t["results"]),
        "writing": (Path(directory) / (DB_NAME + "-wal")).exists() and t["results"] < expected,
        "passed": t["passed"], "judged": judged, "infra": t["infra"],
        "rate": t["passed"] / judged if judged else None, "ci95": [lo, hi],
        "model_calls": t["model_calls"], "tokens": t["tokens"], "cost_usd": t["cost_usd"],
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
    """What a run page draws: the summary's tables, the plots' data and one row per result
    (no traces): [case id, trial, outcome, error, status, topic, difficulty]."""
    store = RunStore(directory)
    try:
        summary = summarize(store)
        by_axis: dict[str, dict[float, Tally]] = defaultdict(lambda: defaultdict(Tally))
        rows: list[list[Any]] = []
        errors: Counter = Counter()
        for row, meta_json in store.rows_with_meta():
            try:
                meta = json.loads(meta_json)
            except ValueError:
                meta = {}
            difficulty = meta.get("difficulty") if isinstance(meta.get("difficulty"), dict) else {}
            outcome = "infra" if row.infra else "pass" if row.passed else "fail"
            error = "" if row.passed or row.infra else (row.primary_error or "")
            if outcome == "fail" and error:
                errors[error_label(error, row.status)] += 1
            if not row.infra:
                for axis, value in difficulty.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        by_axis[axis][value].add(row.passed, row.primary_error)
            rows.append([row.case_id, row.trial, outcome, error, row.status, str(meta.get("topic") or ""),
                         {k: v for k, v in difficulty.items() if isinstance(v, (int, float, str))}])
    finally:
        store.close()
    s = summary.to_json()
    return {
        "name": name, "head": run_head(name, directory), "errors": dict(sorted(errors.items())),
        "by_topic": s["by_topic"], "by_actions": s["by_actions"], "curves": _curves(by_axis), "rows": rows,
        "max_points": MAX_POINTS,
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
