"""Robustness figures of a run of robustness variants (``--transform``).

* Refusal calibration: precision (of the refusals, how many were of unsolvable
  cases) and recall (of the unsolvable cases, how many were refused), with Wilson
  95% intervals. Refusing a solvable case counts against precision.
* Broken tool: how often each of APB's five reactions occurred.
* Cost: among valid plans, the share at the minimum cost and the mean gap.

Infrastructure failures are left out, as everywhere.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..runner.store import RunStore
from .stats import wilson_interval


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(k, n)
    return {"value": round(k / n, 6) if n else None, "n": n, "ci95": [round(lo, 6), round(hi, 6)]}


def robustness(store: RunStore) -> dict[str, Any]:
    """Empty when the run has no robustness variants."""
    unsolvable: dict[str, bool] = {}
    for cid, family, raw in store.db.execute("SELECT case_id, family, json FROM cases"):
        if family == "robust":
            spec = json.loads(raw).get("spec") or {}
            unsolvable[cid] = spec.get("unsolvable") is not None
    if not unsolvable:
        return {}
    tp = fp = fn = tn = 0
    behaviours: Counter = Counter()
    gaps: list[int] = []
    refusal_cases = 0
    for cid, infra, verdict_json in store.db.execute("SELECT case_id, infra, verdict FROM results"):
        if infra or cid not in unsolvable:
            continue
        labels = json.loads(verdict_json).get("labels") or {}
        refused = bool(labels.get("refused"))
        if "unsolvable" in labels or unsolvable[cid] or refused:
            refusal_cases += 1
        if unsolvable[cid]:
            tp, fn = tp + refused, fn + (not refused)
        else:
            fp, tn = fp + refused, tn + (not refused)
        if "broken_tool" in labels:
            behaviours[labels["broken_tool"]] += 1
        if "cost_gap" in labels and "cost" in labels:
            gaps.append(int(labels["cost_gap"]))
    out: dict[str, Any] = {}
    if tp + fn:
        out["refusal"] = {
            "unsolvable": tp + fn, "solvable": fp + tn, "refused_unsolvable": tp, "refused_solvable": fp,
            "precision": _rate(tp, tp + fp), "recall": _rate(tp, tp + fn),
        }
    if behaviours:
        total = sum(behaviours.values())
        out["broken_tool"] = {k: {"count": v, "share": round(v / total, 6)} for k, v in sorted(behaviours.items())}
    if gaps:
        out["cost"] = {"plans": len(gaps), "at_min_cost": _rate(sum(g == 0 for g in gaps), len(gaps)),
                       "mean_gap": round(sum(gaps) / len(gaps), 6)}
    return out


def robustness_lines(data: dict[str, Any]) -> list[str]:
    """The figures as short lines for the terminal."""
    lines = []
    r = data.get("refusal")
    if r:
        p, rc = r["precision"], r["recall"]
        fmt = lambda x: "–" if x["value"] is None else f"{100 * x['value']:.1f}% [{100 * x['ci95'][0]:.0f}-{100 * x['ci95'][1]:.0f}]"
        lines.append(f"refusal: precision {fmt(p)} (of {p['n']} refusals), recall {fmt(rc)} "
                     f"(of {rc['n']} unsolvable); {r['refused_solvable']} solvable cases refused")
    b = data.get("broken_tool")
    if b:
        lines.append("broken tool: " + ", ".join(f"{k} {v['count']}" for k, v in b.items()))
    c = data.get("cost")
    if c:
        lines.append(f"cost: {100 * c['at_min_cost']['value']:.1f}% of valid plans at the minimum cost, "
                     f"mean gap {c['mean_gap']:.2f} credits")
    return lines
