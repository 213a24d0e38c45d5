"""Error anatomy (seed PDoctor Tables 3, 5, 6): where and how planning fails.

Per run (agent/model): the distribution of primary error classes among failures,
and failures and pass rates per topic and per difficulty — always per run, since
adding an oracle run to a model's run would describe neither. Per constraint shape — the
grammar production that stated a constraint, e.g. "P< O, S VP0" — how often it
was stated in the cases run and how often an agent violated it: which phrasings
trip agents up.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, cast

from ..errors import PlanprobeError
from ..runner.store import RunStore
from ..schema import Case
from ..suites.base import ShapesConstraints, has_capability
from ..suites.registry import get_family
from .summary import Tally


@dataclass
class RunAnatomy:
    name: str
    overall: Tally = field(default_factory=Tally)
    by_topic: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_actions: dict[int, Tally] = field(default_factory=lambda: defaultdict(Tally))

    def to_json(self) -> dict[str, Any]:
        t = self.overall
        failed = t.cases - t.passed
        dist = {k: round(v / failed, 6) for k, v in sorted(t.errors.items())} if failed else {}
        return {
            "run": self.name, **t.to_json(), "error_distribution": dist,
            "by_topic": {k: v.to_json() for k, v in sorted(self.by_topic.items())},
            "by_actions": {str(k): v.to_json() for k, v in sorted(self.by_actions.items())},
        }


@dataclass
class Anatomy:
    runs: list[RunAnatomy] = field(default_factory=list)
    shape_total: Counter = field(default_factory=Counter)  # over all runs: how often each phrasing was stated
    shape_violated: Counter = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": [r.to_json() for r in self.runs],
            "constraint_shapes": [
                {"shape": s, "stated": n, "violated": self.shape_violated[s],
                 "violation_rate": round(self.shape_violated[s] / n, 6)}
                for s, n in sorted(self.shape_total.items(), key=lambda kv: (-self.shape_violated[kv[0]] / kv[1], kv[0]))
            ],
        }


def anatomy(stores: list[tuple[str, RunStore]]) -> Anatomy:
    out = Anatomy()
    for name, store in stores:
        run = RunAnatomy(name)
        cases = {cid: Case.model_validate_json(raw) for cid, raw in store.db.execute("SELECT case_id, json FROM cases")}
        shapes_of: dict[str, dict[str, list[str]]] = {}
        rows = store.db.execute("SELECT case_id, passed, primary_error, infra, verdict, status FROM results")
        for cid, passed, primary, infra, verdict_json, status in rows:
            if infra or cid not in cases:
                continue
            case = cases[cid]
            run.overall.add(bool(passed), primary, status)
            if case.meta.topic:
                run.by_topic[case.meta.topic].add(bool(passed), primary, status)
            if "actions" in case.meta.difficulty:
                run.by_actions[int(case.meta.difficulty["actions"])].add(bool(passed), primary, status)
            family = get_family(case.family)
            if not has_capability(family, ShapesConstraints):
                continue
            shapes = shapes_of.get(cid)
            if shapes is None:
                try:  # a run stored before suites were checked on load may hold a malformed skeleton
                    shapes = shapes_of[cid] = cast(ShapesConstraints, family).constraint_shapes(case)
                except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
                    raise PlanprobeError(f"{name}: case {cid!r}: malformed 'spec.skeleton' "
                                         f"({type(exc).__name__}: {str(exc)[:160]})") from None
            for cid_shapes in shapes.values():
                out.shape_total.update(cid_shapes)
            if not passed:
                violated = {c for ev in json.loads(verdict_json).get("evidence", [])
                            if ev.get("kind") in ("violated_constraint", "unextendable")
                            for c in ev.get("constraint_ids", [])}
                for c in violated:
                    out.shape_violated.update(shapes.get(c, []))
        out.runs.append(run)
    return out
