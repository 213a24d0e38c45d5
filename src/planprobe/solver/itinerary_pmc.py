"""Itinerary cases under PMC, as the solver plays the roles (``pmc_roles``): the manager's sub-task
graph, the executors of its sub-tasks, the deliverer's plan from their reports.

* **manager** (``split``): as PMC's paper decomposes TravelPlanner — the information a trip needs is
  gathered apart, then combined. For one destination city: its accommodations, its restaurants and
  its attractions (three independent sub-tasks, one search tool each), then the transportation the
  cheapest plan needs (flights and routes, depending on all three: which legs and dates depend on the
  stays chosen). For a state: its cities first; the three gathering sub-tasks depend on it (the
  supervisor gives them the cities found); the transportation depends on all four.
* **executors** (``READER``, the sub-tasks above in the manager's words): each makes its sub-task's
  calls from its prompt alone — a city list or a fact it needs but was not given (the supervisor's
  rewrite lost it, or its tools cannot find it) is under-specified, never guessed. The transportation
  executor plans as the itinerary reader does, from the facts given and the legs it looks up.
* **deliverer** (``deliver``): the plan written in the family's answer format from the facts of every
  report, as the itinerary reader writes it (PMC's "inference role"); a fact no report gives makes
  the answer under-specified.
"""

from __future__ import annotations

import re
from typing import Any

from .base import ChatView, Decision, Step
from .itinerary_facts import (
    CITIES,
    DRIVE,
    FLIGHT,
    FOOD,
    HOTEL,
    SIGHT,
    Key,
    city_key,
    read_facts,
    step_of,
)
from .itinerary_query import claims, read_query
from .itinerary_reader import READER as ITINERARY

WHAT = {HOTEL: "accommodations", FOOD: "restaurants", SIGHT: "attractions"}
_TOOL_OF = {v: k for k, v in WHAT.items()}
TRANSPORT = ("Find the transportation (flights, self-driving and taxi routes) that the cheapest plan for this "
             "query needs, from the accommodations, restaurants and attractions found, and write that plan.")
_IN_CITY = re.compile(r"Find the (accommodations|restaurants|attractions) in (.+)\.")
_IN_STATE = re.compile(r"Find the (accommodations|restaurants|attractions) in every city of (.+) that CitySearch "
                       r"lists\.")
_STATE = re.compile(r"Find the cities of (.+)\.")


def _subtask(sid: str, description: str, tools: list[str], depends_on: list[str]) -> dict[str, Any]:
    return {"id": sid, "description": description, "executor": "function_calling", "tools": tools,
            "parameters": {}, "depends_on": depends_on, "local_constraints": []}


def split(view: ChatView) -> list[dict[str, Any]] | None:
    """The manager's sub-task graph for an itinerary query (None: not one, or one it cannot read)."""
    offered = {t.get("name") for t in view.tools}
    if not claims(view.task) or not {FLIGHT, DRIVE, HOTEL, FOOD, SIGHT, CITIES} <= offered:
        return None
    q = read_query(view.system, view.task)
    if q.problem is not None:
        return None  # delegated whole: the executor says what is missing
    out = []
    if q.state:
        out.append(_subtask("s1", f"Find the cities of {q.destination}.", [CITIES], []))
        for tool in (HOTEL, FOOD, SIGHT):
            out.append(_subtask(f"s{len(out) + 1}", f"Find the {WHAT[tool]} in every city of {q.destination} "
                                                    "that CitySearch lists.", [tool], ["s1"]))
    else:
        for tool in (HOTEL, FOOD, SIGHT):
            out.append(_subtask(f"s{len(out) + 1}", f"Find the {WHAT[tool]} in {q.destination}.", [tool], []))
    gathered = [s["id"] for s in out]
    out.append(_subtask(f"s{len(out) + 1}", f"{TRANSPORT}\n{view.task}", [FLIGHT, DRIVE], gathered))
    return out


def deliver(view: ChatView) -> Decision | None:
    """The deliverer's answer from the facts of every report (None: not an itinerary request)."""
    if not claims(view.task):
        return None
    return ITINERARY.decide(view)


class SubtaskReader:
    """The ``TaskReader`` for the sub-tasks ``split`` writes (executors), and the manager's and the
    deliverer's parts (``split``, ``deliver``) for itinerary requests."""

    name = "itinerary-pmc"
    split = staticmethod(split)
    deliver = staticmethod(deliver)

    def claims(self, view: ChatView) -> bool:
        task = view.task.strip()
        if task.startswith(TRANSPORT):
            return claims(task)
        return any(p.fullmatch(task) for p in (_IN_STATE, _IN_CITY, _STATE))

    def decide(self, view: ChatView) -> Decision:
        task = view.task.strip()
        offered = {str(t.get("name")) for t in view.tools}
        if task.startswith(TRANSPORT):
            return _within(ITINERARY.decide(view), offered)
        facts = read_facts(view.history)
        state, each = _STATE.fullmatch(task), _IN_STATE.fullmatch(task)
        keys: list[Key]
        if state is not None:
            keys = [(CITIES, state.group(1))]
        elif each is not None:
            key = (CITIES, each.group(2))
            if key not in facts.states:
                return Decision(underspecified=f"the sub-task is to search every city of {each.group(2)}, and "
                                               f"no city list of {each.group(2)} (CitySearch) is given")
            listed = facts.states[key]
            if not listed:
                return Decision(underspecified=f"CitySearch knows no cities of {each.group(2)}")
            keys = [city_key(_TOOL_OF[each.group(1)], c) for c in listed]
        else:
            one = _IN_CITY.fullmatch(task)
            assert one is not None  # claims() matched one of the three
            keys = [city_key(_TOOL_OF[one.group(1)], one.group(2))]
        missing = tuple(step_of(k) for k in keys if not facts.known(k) and k not in facts.errors)
        if missing:
            return _within(Decision(calls=missing), offered)
        return Decision(answer="Found: " + "; ".join(f"{k[0]} {', '.join(k[1:])}" for k in keys) + ".")


def _within(decision: Decision, offered: set[str]) -> Decision:
    """A decision whose calls the sub-task's tools can make; else what is missing, under-specified."""
    outside: list[Step] = [s for s in decision.calls if s.tool not in offered]
    if outside:
        s = outside[0]
        return Decision(underspecified=f"the sub-task needs the result of {s.tool} {s.arguments}, which no fact "
                                       f"given states and its tools ({', '.join(sorted(offered))}) cannot find")
    return decision


READER = SubtaskReader()
