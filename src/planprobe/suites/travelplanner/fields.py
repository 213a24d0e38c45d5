"""A query's structured fields, as TravelPlanner's data set gives them.

The evaluator reads only these (never the query text): ``org``, ``dest``, ``days``,
``visiting_city_number``, ``date`` (one ISO date per day), ``people_number``,
``local_constraint`` (``house rule``, ``cuisine``, ``room type``,
``transportation``; None when the query sets none), ``budget`` and ``level``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from ...errors import PlanprobeError

LEVELS = ("easy", "medium", "hard")
CONSTRAINT_KEYS = ("house rule", "cuisine", "room type", "transportation")
HOUSE_RULES = ("smoking", "parties", "children under 10", "visitors", "pets")
ROOM_TYPES = ("not shared room", "shared room", "private room", "entire room")
TRANSPORT_RULES = ("no flight", "no self-driving")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class QueryFields:
    org: str
    dest: str
    days: int
    visiting_city_number: int
    date: tuple[str, ...]
    people_number: int
    local_constraint: dict[str, Any]
    budget: float
    level: str
    query: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["date"] = list(self.date)
        return data

    def hard_total(self) -> int:
        """The hard constraints the official evaluator counts for this query: the budget,
        plus each set local constraint (transportation only on hard queries)."""
        keys = ("house rule", "cuisine", "room type") + (("transportation",) if self.level == "hard" else ())
        return 1 + sum(self.local_constraint.get(k) is not None for k in keys)


def parse_fields(data: Any, where: str) -> QueryFields:
    """Check and convert one query's fields; errors name ``where`` and the field."""
    if not isinstance(data, dict):
        raise PlanprobeError(f"{where}: expected the query's fields as an object")

    def need(name: str) -> Any:
        if name not in data or data[name] is None:
            raise PlanprobeError(f"{where}: field '{name}' is missing")
        return data[name]

    def text(name: str) -> str:
        value = need(name)
        if not isinstance(value, str) or not value.strip():
            raise PlanprobeError(f"{where}: field '{name}': expected a non-empty text")
        return value

    def integer(name: str, low: int = 1) -> int:
        value = need(name)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise PlanprobeError(f"{where}: field '{name}': expected a whole number >= {low}, got {value!r}")
        return value

    org, dest = text("org"), text("dest")
    days, visiting, people = integer("days"), integer("visiting_city_number"), integer("people_number")
    dates = need("date")
    if (not isinstance(dates, (list, tuple)) or len(dates) != days
            or not all(isinstance(d, str) and _DATE.match(d) for d in dates)):
        raise PlanprobeError(f"{where}: field 'date': expected {days} dates YYYY-MM-DD (one per day)")
    budget = need("budget")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget < 0:
        raise PlanprobeError(f"{where}: field 'budget': expected a number >= 0, got {budget!r}")
    level = text("level")
    if level not in LEVELS:
        raise PlanprobeError(f"{where}: field 'level': expected one of {', '.join(LEVELS)}, got {level!r}")
    local = need("local_constraint")
    if not isinstance(local, dict):
        raise PlanprobeError(f"{where}: field 'local_constraint': expected an object")
    for key in CONSTRAINT_KEYS:
        if key not in local:
            raise PlanprobeError(f"{where}: field 'local_constraint.{key}' is missing (None when not set)")
    cuisine = local["cuisine"]
    if cuisine is not None and (not isinstance(cuisine, list) or not all(isinstance(c, str) for c in cuisine)):
        raise PlanprobeError(f"{where}: field 'local_constraint.cuisine': expected a list of cuisines or None")
    for key in ("house rule", "room type", "transportation"):
        if local[key] is not None and not isinstance(local[key], str):
            raise PlanprobeError(f"{where}: field 'local_constraint.{key}': expected a text or None")
    query = data.get("query") or ""
    if not isinstance(query, str):
        raise PlanprobeError(f"{where}: field 'query': expected a text")
    return QueryFields(org=org, dest=dest, days=days, visiting_city_number=visiting, date=tuple(dates),
                       people_number=people, local_constraint={k: local[k] for k in CONSTRAINT_KEYS},
                       budget=budget, level=level, query=query)


def constraint_label(fields: QueryFields) -> str | None:
    """The set local constraints in a few words (for case topics)."""
    parts = [f"{k}={v if not isinstance(v, list) else '/'.join(v)}" for k, v in fields.local_constraint.items()
             if v is not None]
    return ", ".join(parts) or None
