"""Scoring detectors against formal labels: AgentDebug's Step, Step+Module and
All-correct accuracies (with Wilson 95% intervals), plus what formal labels add:
whether the pick lies within [E, PNR] (any step there still leads to the loss)
and its distance in steps from E."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from ..analysis.stats import wilson_interval
from .detectors import Pick


@dataclass
class Score:
    n: int = 0
    step: int = 0
    step_module: int = 0
    all_correct: int = 0
    within: int = 0  # pick in [E, PNR] (PNR: the point of no return, else the budget PNR, else E)
    answered: int = 0
    distances: list[int] = field(default_factory=list)
    calls: int = 0
    tokens: int = 0

    def add(self, truth: dict[str, Any], labels: dict[str, Any] | None, pick: Pick) -> dict[str, Any]:
        self.n += 1
        self.calls += pick.calls
        self.tokens += pick.tokens
        row: dict[str, Any] = {"step": False, "step_module": False, "all_correct": False, "within": False,
                               "distance": None}
        if pick.step is None:
            return row
        self.answered += 1
        e = truth["critical_step"]
        s = pick.step == e
        sm = s and pick.module == truth["critical_module"]
        al = sm and pick.type == truth["error_type"]
        end = e
        if labels:
            for key in ("pnr", "budget_pnr"):
                point = labels.get(key) or {}
                if point.get("step") is not None:
                    end = max(e, point["step"])
                    break
        inside = e <= pick.step <= end
        self.step += s
        self.step_module += sm
        self.all_correct += al
        self.within += inside
        self.distances.append(abs(pick.step - e))
        row.update(step=s, step_module=sm, all_correct=al, within=inside, distance=pick.step - e)
        return row

    def to_json(self) -> dict[str, Any]:
        def rate(k: int) -> dict[str, Any]:
            lo, hi = wilson_interval(k, self.n)
            return {"k": k, "rate": round(k / self.n, 4) if self.n else None, "ci95": [round(lo, 4), round(hi, 4)]}

        return {"n": self.n, "answered": self.answered, "step": rate(self.step),
                "step_module": rate(self.step_module), "all_correct": rate(self.all_correct),
                "within_e_pnr": rate(self.within),
                "distance_mean": round(statistics.mean(self.distances), 3) if self.distances else None,
                "distance_median": statistics.median(self.distances) if self.distances else None,
                "model_calls": self.calls, "tokens": self.tokens}
