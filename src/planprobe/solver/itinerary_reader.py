"""The solver's task reader for itinerary cases (``planprobe generate travel``: TravelPlanner's
task on a synthesized sandbox, behind its six search tools).

From the chat view alone: the query's values from the task text (``itinerary_query``), the
rules from the system prompt (the cost model and what each constraint means; a rule the plan
depends on that is not stated makes the case under-specified, named), the sandbox from the
search tools' results (``itinerary_facts``). It asks for a state's cities, then each city's
accommodations and restaurants, then lets the search (``itinerary_search``) say which routes,
flights and attractions it still needs, asking for only those, until the cheapest plan meeting
every rule uses no fact it has not seen. That plan is the answer (the cheapest is always a valid
answer, and the only one when the query asks for the cheapest), written as the JSON list the
prompt asks for. No plan, or none within the budget: a refusal.

It imports nothing of the family, the agents or the runner (``tests/solver``).
"""

from __future__ import annotations

import json
from typing import Any

from .base import ChatView, Decision
from .itinerary_facts import (
    CITIES,
    DRIVE,
    FLIGHT,
    FOOD,
    HOTEL,
    SIGHT,
    Facts,
    Key,
    Row,
    city_key,
    read_facts,
    step_of,
)
from .itinerary_query import Query, claims, read_query
from .itinerary_search import Best, Leg, Search

TOOLS = {"FlightSearch", "GoogleDistanceMatrix", "AccommodationSearch", "RestaurantSearch", "AttractionSearch",
         "CitySearch"}
MEALS = ("breakfast", "lunch", "dinner")


def _place(row: Row, name: str, city: str) -> str:
    return f"{row.get(name, '')}, {city}"


def _move(leg: Leg) -> str:
    if leg.mode == "Flight" and leg.flight is not None:
        f = leg.flight
        return (f"Flight Number: {f.get('Flight Number', '')}, from {leg.a} to {leg.b}, Departure Time: "
                f"{f.get('DepTime', '')}, Arrival Time: {f.get('ArrTime', '')}")
    return f"{leg.mode}, from {leg.a} to {leg.b}"


def write_plan(q: Query, best: Best, facts: Facts) -> list[dict[str, Any]]:
    """The plan as the prompt's JSON list of days."""
    days: list[dict[str, Any]] = [{"days": i + 1, "current_city": "", "transportation": "-", "breakfast": "-",
                                   "attraction": "-", "lunch": "-", "dinner": "-", "accommodation": "-"}
                                  for i in range(q.days)]
    for leg in best.legs:
        days[leg.day].update(current_city=f"from {leg.a} to {leg.b}", transportation=_move(leg))
    arrive = 0
    for city, n, stay, rows, extra in zip(best.route, best.nights, best.stays, best.meals, best.extras):
        sights = facts.tables.get(city_key(SIGHT, city), [])
        full = list(range(arrive + 1, arrive + n))
        for i in range(arrive, arrive + n):
            if stay is not None:
                days[i]["accommodation"] = _place(stay, "NAME", city)
        need = 3 * len(full)
        for k, i in enumerate(full):
            days[i]["current_city"] = city
            for m, meal in enumerate(MEALS):
                days[i][meal] = _place(rows[3 * k + m], "Name", city)
            days[i]["attraction"] = _place(sights[k], "Name", city) + ";"
        for m, row in enumerate(rows[need:need + extra]):
            days[arrive][MEALS[m]] = _place(row, "Name", city)
        arrive += n
    return days


class ItineraryReader:
    """The ``TaskReader`` for itinerary cases."""

    name = "itinerary"

    def __init__(self, always_cheapest: bool = False) -> None:
        # always_cheapest: look for the cheapest plan even where any plan within the budget passes (the
        # tests' cross-check of this search against the generator's minimum-cost witness)
        self.always_cheapest = always_cheapest

    def claims(self, view: ChatView) -> bool:
        offered = {t.get("name") for t in view.tools}
        return claims(view.task or "") and TOOLS <= offered

    def decide(self, view: ChatView) -> Decision:
        q = read_query(view.system or "", view.task or "")
        if q.problem is not None:
            return Decision(underspecified=q.problem)
        # a query that does not ask for the cheapest plan is met by any plan within the budget: asking
        # only for what such a plan needs keeps a one-call-a-reply scaffold (ReAct, modular) in its limit
        return gather(q, read_facts(view.history), satisfice=not (q.cheapest or self.always_cheapest))


def _urgency(q: Query, key: Key) -> tuple[int, bool, Key]:
    """Which fact to ask first when any plan will do: the legs leaving and reaching the origin
    (their dates are fixed: the first and the last day), then the other legs, then a city's
    tables. To and from the origin a flight first (those legs are long); between the cities
    visited a distance first (one answer serves every date, where a flight serves one)."""
    leg = key[0] in (DRIVE, FLIGHT)
    outer = leg and q.origin in key[1:3]
    rank = (0 if outer else 1) if leg else 2
    return rank, (key[0] != FLIGHT) if outer else (key[0] == FLIGHT), key


def gather(q: Query, facts: Facts, satisfice: bool = False) -> Decision:
    """The next move on a query read, given what the search tools have told so far: the calls
    still needed, or the plan (JSON), or a refusal. Shared with the TravelPlanner reader, whose
    two-stage mode asks the same tools. ``satisfice``: any plan within the budget will do (the
    query does not ask for the cheapest), so the search prefers the plan that hopes for the fewest
    facts (``Search(greedy=True)``): a plan of known facts within the budget is the answer at
    once, without asking for the facts a cheaper one might need."""
    unreadable = [k for k in facts.errors]
    if unreadable:
        k = unreadable[0]
        return Decision(underspecified=f"the result of {k[0]} {list(k[1:])} cannot be read: "
                                       f"{facts.errors[k][:200]!r}")
    if q.state:
        key: Key = (CITIES, q.destination)
        if key not in facts.states:
            return Decision(calls=(step_of(key),))
        listed = facts.states[key]
        if not listed:
            return Decision(underspecified=f"CitySearch knows no cities of {q.destination}, the destination")
        candidates = [c for c in listed if c != q.origin]
    else:
        candidates = [q.destination]
    first = [city_key(t, c) for c in candidates for t in (HOTEL, FOOD) if city_key(t, c) not in facts.tables]
    if first and not satisfice:  # satisficing asks for a city's tables only when a plan needs them
        return Decision(calls=tuple(step_of(k) for k in first))
    best = Search(q, facts, candidates, greedy=satisfice).best()
    if satisfice and best is not None and not best.unknown and best.cost > q.budget + 1e-9:
        best = Search(q, facts, candidates).best()  # nothing known fits: a cheaper plan may need facts not asked
    if best is None:
        return Decision(refuse="No plan meets every rule of the query with the travel information found.")
    if best.unknown:
        # satisficing asks for the routes first (on a sparse sandbox they fail most often, and a
        # scaffold that takes one call a reply then re-plans after each)
        order = sorted(best.unknown, key=lambda k: _urgency(q, k)) if satisfice else sorted(best.unknown)
        return Decision(calls=tuple(step_of(k) for k in order))
    if best.cost > q.budget + 1e-9:
        return Decision(refuse=f"The cheapest plan meeting every rule costs {best.cost:g}, above the budget "
                               f"of {q.budget:g}.")
    return Decision(answer=json.dumps(write_plan(q, best, facts), indent=1))


READER = ItineraryReader()
