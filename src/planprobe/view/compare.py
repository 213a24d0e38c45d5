"""Two or more runs of one suite side by side: each later run paired with the first
(``analysis.compare.compare_runs``: paired results, McNemar's exact test, the bootstrap
interval of the difference), and the paired table of outcomes with the cases that flipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..analysis.compare import compare_runs, outcomes
from ..errors import PlanprobeError
from ..runner.store import RunStore

MAX_ROWS = 2000  # table rows shown (flipped first); the counts cover every pair


def compare_page(runs: list[tuple[str, Path]]) -> dict[str, Any]:
    if len(runs) < 2:
        raise PlanprobeError("compare needs two or more runs (tick them on the run list)")
    stores = [RunStore(d) for _, d in runs]
    try:
        pairs = []
        for (name, _), store in zip(runs[1:], stores[1:]):
            try:
                pairs.append({"a": runs[0][0], "b": name, "data": compare_runs(stores[0], store).to_json()})
            except PlanprobeError as exc:
                pairs.append({"a": runs[0][0], "b": name, "refused": str(exc)})
        results = [outcomes(s) for s in stores]
        order = [cid for (cid,) in stores[0].db.execute("SELECT case_id FROM cases ORDER BY ordinal")]
    finally:
        for s in stores:
            s.close()
    rows, flipped = [], 0
    for cid in order:
        trials = sorted(set().union(*(r.get(cid, {}).keys() for r in results)))
        for t in trials:
            cells = [r.get(cid, {}).get(t) for r in results]
            present = [c[0] for c in cells if c is not None]
            flip = len(present) == len(cells) and len(set(present)) > 1
            flipped += flip
            rows.append({"case": cid, "trial": t, "flipped": flip,
                         "cells": [None if c is None else {"passed": c[0], "error": c[1] or ""} for c in cells]})
    rows.sort(key=lambda r: not r["flipped"])  # stable: flipped first, suite order kept
    return {"names": [n for n, _ in runs], "pairs": pairs, "rows": rows[:MAX_ROWS], "total": len(rows),
            "flipped": flipped}
