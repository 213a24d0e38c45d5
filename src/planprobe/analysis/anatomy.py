"""Error anatomy (seed PDoctor Tables 3, 5, 6): where and how planning fails.

Per run (agent/model): the distribution of primary error classes among failures.
Per topic and per difficulty: failures and pass rates. Per constraint shape — the
grammar production that stated a constraint, e.g. "P< O, S VP0" — how often it
was stated in the cases run and how often an agent violated it: which phrasings
trip agents up.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..runner.store import RunStore
from ..schema import Case
from ..suites.registry import get_family
from .summary import Tally


@dataclass
class Anatomy:
    runs: list[tuple[str, Tally]] = field(default_factory=list)
    by_topic: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_actions: dict[int, Tally] = field(default_factory=lambda: defaultdict(Tally))
    shape_total: Counter = field(default_factory=Counter)
    shape_violated: Counter = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        def dist(t: Tally) -> dict[str, float]:
            failed = t.cases - t.passed
            return {k: round(v / failed, 6) for k, v in sorted(t.errors.items())} if failed else {}

        return {
            "runs": [{"run": name, **t.to_json(), "error_distribution": dist(t)} for name, t in self.runs],
            "by_topic": {k: t.to_json() for k, t in sorted(self.by_topic.items())},
            "by_actions": {str(k): t.to_json() for k, t in sorted(self.by_actions.items())},
            "constraint_shapes": [
                {"shape": s, "stated": n, "violated": self.shape_violated[s],
                 "violation_rate": round(self.shape_violated[s] / n, 6)}
                for s, n in sorted(self.shape_total.items(), key=lambda kv: (-self.shape_violated[kv[0]] / kv[1], kv[0]))
            ],
        }


def anatomy(stores: list[tuple[str, RunStore]]) -> Anatomy:
    out = Anatomy()
    for name, store in stores:
        tally = Tally()
        cases = {cid: Case.model_validate_json(raw) for cid, raw in store.db.execute("SELECT case_id, json FROM cases")}
        shapes_of: dict[str, dict[str, list[str]]] = {}
        rows = store.db.execute("SELECT case_id, passed, primary_error, infra, verdict FROM results")
        for cid, passed, primary, infra, verdict_json in rows:
            if infra or cid not in cases:
                continue
            case = cases[cid]
            tally.add(bool(passed), primary)
            if case.meta.topic:
                out.by_topic[case.meta.topic].add(bool(passed), primary)
            if "actions" in case.meta.difficulty:
                out.by_actions[int(case.meta.difficulty["actions"])].add(bool(passed), primary)
            family = get_family(case.family)
            if not hasattr(family, "constraint_shapes"):
                continue
            shapes = shapes_of.get(cid)
            if shapes is None:
                shapes = shapes_of[cid] = family.constraint_shapes(case)
            for cid_shapes in shapes.values():
                out.shape_total.update(cid_shapes)
            if not passed:
                violated = {c for ev in json.loads(verdict_json).get("evidence", [])
                            if ev.get("kind") in ("violated_constraint", "unextendable")
                            for c in ev.get("constraint_ids", [])}
                for c in violated:
                    out.shape_violated.update(shapes.get(c, []))
        out.runs.append((name, tally))
    return out
