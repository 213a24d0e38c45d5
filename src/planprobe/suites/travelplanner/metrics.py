"""The official figures over a set of plans, as ``evaluation/eval.py`` computes them.

* Delivery rate: plans that are non-empty / queries.
* Commonsense micro: constraints passed over all delivered plans / (8 x queries).
* Hard micro: hard constraints passed (where scored) / the hard constraints the
  queries set (the budget, plus each set local constraint; transportation only on
  hard queries). The official script divides by fixed totals per split (train
  105, validation 420, test 2290), which are exactly these counts for the full
  splits; planprobe counts them from the queries actually scored.
* Commonsense / hard macro and final pass rate: plans passing every commonsense /
  every hard / both kinds of constraint (a constraint that does not apply passes),
  counted only for plans whose hard constraints were scored, over all queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .evaluation import COMMONSENSE, HARD, PAPER_NAMES, PlanEvaluation
from .fields import QueryFields

FIGURES = ("delivery_rate", "commonsense_micro", "commonsense_macro", "hard_micro", "hard_macro", "final_pass_rate")
OFFICIAL_LABELS = {
    "delivery_rate": "Delivery Rate", "commonsense_micro": "Commonsense Constraint Micro Pass Rate",
    "commonsense_macro": "Commonsense Constraint Macro Pass Rate", "hard_micro": "Hard Constraint Micro Pass Rate",
    "hard_macro": "Hard Constraint Macro Pass Rate", "final_pass_rate": "Final Pass Rate",
}


@dataclass
class Tally:
    queries: int = 0
    delivered: int = 0
    commonsense_passed: int = 0  # constraints
    hard_passed: int = 0
    hard_total: int = 0
    commonsense_plans: int = 0  # plans passing all
    hard_plans: int = 0
    final_plans: int = 0
    per_constraint: dict[str, list[int]] = field(default_factory=dict)  # key -> [passed, failed]

    def add(self, hard_total: int, ev: PlanEvaluation | None) -> None:
        """One query: its hard-constraint count and its plan's evaluation (None: not delivered)."""
        self.queries += 1
        self.hard_total += hard_total
        if ev is None:
            return
        self.delivered += 1
        for key, (ok, _) in ev.commonsense.items():
            self._count(key, ok)
            self.commonsense_passed += ok is True
        if ev.hard is None:
            return
        for key, (ok, _) in ev.hard.items():
            self._count(key, ok)
            self.hard_passed += ok is True
        self.commonsense_plans += ev.commonsense_pass
        self.hard_plans += ev.hard_pass
        self.final_plans += ev.final_pass

    def _count(self, key: str, ok: bool | None) -> None:
        if ok is None:
            return
        slot = self.per_constraint.setdefault(key, [0, 0])
        slot[0 if ok else 1] += 1

    def figures(self) -> dict[str, float | None]:
        n = self.queries

        def rate(k: int, d: int) -> float | None:
            return round(k / d, 10) if d else None

        return {
            "delivery_rate": rate(self.delivered, n),
            "commonsense_micro": rate(self.commonsense_passed, 8 * n),
            "commonsense_macro": rate(self.commonsense_plans, n),
            "hard_micro": rate(self.hard_passed, self.hard_total),
            "hard_macro": rate(self.hard_plans, n),
            "final_pass_rate": rate(self.final_plans, n),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "queries": self.queries, "delivered": self.delivered, "figures": self.figures(),
            "counts": {"commonsense_passed": self.commonsense_passed, "commonsense_total": 8 * self.queries,
                       "hard_passed": self.hard_passed, "hard_total": self.hard_total,
                       "commonsense_plans": self.commonsense_plans, "hard_plans": self.hard_plans,
                       "final_plans": self.final_plans},
            "constraints": {PAPER_NAMES[k]: {"passed": v[0], "failed": v[1]}
                            for k in COMMONSENSE + HARD if (v := self.per_constraint.get(k))},
        }


def tally(items: Iterable[tuple[QueryFields, PlanEvaluation | None]]) -> Tally:
    t = Tally()
    for q, ev in items:
        t.add(q.hard_total(), ev)
    return t


def figure_lines(data: dict[str, Any], title: str = "TravelPlanner") -> list[str]:
    """The six figures as the official script prints them, plus the counts."""
    f, c = data["figures"], data["counts"]

    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.2f}%"

    return [
        f"{title}: {data['queries']} queries, {data['delivered']} plans delivered",
        (f"  Delivery Rate {pct(f['delivery_rate'])} | Commonsense micro {pct(f['commonsense_micro'])} "
         f"({c['commonsense_passed']}/{c['commonsense_total']}), macro {pct(f['commonsense_macro'])} | "
         f"Hard micro {pct(f['hard_micro'])} ({c['hard_passed']}/{c['hard_total']}), macro {pct(f['hard_macro'])} | "
         f"Final Pass Rate {pct(f['final_pass_rate'])}"),
    ]
