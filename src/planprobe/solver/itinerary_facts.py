"""What the search tools have told so far, read from their result texts as a model reads them:
aligned tables (columns found from the header, whose names are right-aligned over their
cells), the distance sentence, the list of a state's cities, and the 'no result' sentences.

Each fact is keyed by the call that asks for it (``Key``); a key absent from ``Facts`` is a
call not made yet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .base import Observed, Step

Key = tuple[str, ...]
Row = dict[str, str]
_HEAD = re.compile(r"\S+(?: \S+)*")
_COST = re.compile(r"\bcost: (\d+(?:\.\d+)?)\s*$")
_CITY_LIST = re.compile(r"'([^']*)'")

FLIGHT, DRIVE, HOTEL, FOOD, SIGHT, CITIES = ("FlightSearch", "GoogleDistanceMatrix", "AccommodationSearch",
                                             "RestaurantSearch", "AttractionSearch", "CitySearch")


def flight_key(a: str, b: str, date: str) -> Key:
    return (FLIGHT, a, b, date)


def drive_key(a: str, b: str, mode: str) -> Key:
    return (DRIVE, a, b, mode)


def city_key(tool: str, city: str) -> Key:
    return (tool, city)


def step_of(key: Key) -> Step:
    """The call that tells the fact ``key``."""
    if key[0] == FLIGHT:
        return Step(FLIGHT, {"departure_city": key[1], "destination_city": key[2], "date": key[3]})
    if key[0] == DRIVE:
        return Step(DRIVE, {"origin": key[1], "destination": key[2], "mode": key[3]})
    if key[0] == CITIES:
        return Step(CITIES, {"state": key[1]})
    return Step(key[0], {"city": key[1]})


def key_of(step: Step) -> Key | None:
    a = step.arguments
    try:
        if step.tool == FLIGHT:
            return flight_key(str(a["departure_city"]), str(a["destination_city"]), str(a["date"]))
        if step.tool == DRIVE:
            return drive_key(str(a["origin"]), str(a["destination"]), str(a["mode"]))
        if step.tool == CITIES:
            return (CITIES, str(a["state"]))
        if step.tool in (HOTEL, FOOD, SIGHT):
            return city_key(step.tool, str(a["city"]))
    except KeyError:
        return None
    return None


def read_table(text: str) -> list[Row] | None:
    """The rows of an aligned table, or None when the text is not one."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    spans = [(m.group(0), m.end()) for m in _HEAD.finditer(lines[0])]
    if len(spans) < 2:
        return None
    rows = []
    for line in lines[1:]:
        row, start = {}, 0
        for name, end in spans:
            row[name] = line[start:end].strip()
            start = end
        rows.append(row)
    return rows


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@dataclass
class Facts:
    """Results read so far: ``tables`` (a table's rows; [] for none), ``costs`` (a route's cost
    by a mode; None when the tool says there is none), ``states`` (a state's cities; None: not a
    state), and ``errors``: calls whose result could not be read. ``closed``: the facts are all
    there is (information given in the task, not gathered with tools), so a fact absent is none —
    no flight, no route, no table — rather than one not asked for yet."""

    tables: dict[Key, list[Row]] = field(default_factory=dict)
    costs: dict[Key, float | None] = field(default_factory=dict)
    states: dict[Key, list[str] | None] = field(default_factory=dict)
    errors: dict[Key, str] = field(default_factory=dict)
    closed: bool = False

    def known(self, key: Key) -> bool:
        return key in self.tables or key in self.costs or key in self.states

    def number(self, row: Row, column: str) -> float | None:
        return _number(row.get(column, ""))


def read_facts(history: Sequence[Observed]) -> Facts:
    facts = Facts()
    for o in history:
        key = key_of(o.step)
        if key is None:
            continue
        text = o.result.strip()
        if text.lower().startswith("error"):
            facts.errors[key] = text
            continue
        if key[0] == DRIVE:
            m = _COST.search(text)
            facts.costs[key] = float(m.group(1)) if m else None
        elif key[0] == CITIES:
            names = _CITY_LIST.findall(text) if text.startswith("[") else None
            facts.states[key] = names or None
        elif text.startswith("There is no"):
            facts.tables[key] = []
        else:
            rows = read_table(o.result)  # unstripped: the header's first name is right-aligned
            if rows is None:
                facts.errors[key] = text
            else:
                facts.tables[key] = rows
    return facts


def as_number(value: Any) -> float:
    out = _number(str(value))
    if out is None:
        raise ValueError(value)
    return out
