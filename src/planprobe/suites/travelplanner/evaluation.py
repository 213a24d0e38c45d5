"""What TravelPlanner's evaluator reports for one plan (``evaluate.Evaluator`` computes it): the
eight commonsense and five hard constraints by their official names, the names the paper's tables
give them, and ``PlanEvaluation``, one plan's results (stored in each verdict's labels, summed by
``metrics``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Result = tuple[bool | None, str | None]
COMMONSENSE = ("is_reasonable_visiting_city", "is_valid_restaurants", "is_valid_attractions",
               "is_valid_accommodation", "is_valid_transportation", "is_valid_information_in_current_city",
               "is_valid_information_in_sandbox", "is_not_absent")
HARD = ("valid_cuisine", "valid_room_rule", "valid_transportation", "valid_room_type", "valid_cost")
PAPER_NAMES = {
    "is_valid_information_in_current_city": "Within Current City", "is_valid_information_in_sandbox": "Within Sandbox",
    "is_reasonable_visiting_city": "Reasonable City Route", "is_valid_restaurants": "Diverse Restaurants",
    "is_valid_transportation": "Non-conf. Transportation", "is_valid_attractions": "Diverse Attractions",
    "is_valid_accommodation": "Minimum Nights Stay", "is_not_absent": "Complete Information", "valid_cost": "Budget",
    "valid_room_rule": "Room Rule", "valid_cuisine": "Cuisine", "valid_room_type": "Room Type",
    "valid_transportation": "Transportation",
}


@dataclass
class PlanEvaluation:
    """The constraints of one plan. ``hard`` is None when the official evaluator does
    not score them (the plan is incomplete or leaves the sandbox)."""

    commonsense: dict[str, Result]
    hard: dict[str, Result] | None
    cost: float | None = None
    rules: dict[str, str] = field(default_factory=dict)  # failed constraint -> the rule it breaks (rules.RULES)

    @property
    def commonsense_pass(self) -> bool:
        return all(v is not False for v, _ in self.commonsense.values())

    @property
    def hard_pass(self) -> bool:
        return self.hard is not None and all(v is not False for v, _ in self.hard.values())

    @property
    def final_pass(self) -> bool:
        return self.commonsense_pass and self.hard_pass

    def failed(self) -> list[tuple[str, str]]:
        """(constraint, message) of every failed constraint, commonsense first."""
        out = [(k, m or "") for k, (v, m) in self.commonsense.items() if v is False]
        if self.hard is not None:
            out += [(k, m or "") for k, (v, m) in self.hard.items() if v is False]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlanEvaluation:
        def unpack(d: dict[str, Any]) -> dict[str, Result]:
            return {k: (v[0], v[1]) for k, v in d.items()}
        hard = data.get("hard")
        return cls(unpack(data["commonsense"]), None if hard is None else unpack(hard), data.get("cost"),
                   dict(data.get("rules") or {}))

    def to_json(self) -> dict[str, Any]:
        def pack(d: dict[str, Result]) -> dict[str, Any]:
            return {k: [v, m] for k, (v, m) in d.items()}
        return {"commonsense": pack(self.commonsense), "hard": None if self.hard is None else pack(self.hard),
                "cost": self.cost, "rules": dict(self.rules)}
