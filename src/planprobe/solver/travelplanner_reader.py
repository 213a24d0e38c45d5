"""The solver's task reader for TravelPlanner cases (``planprobe import travelplanner``), from
the chat call alone.

* **The query** is the paper's natural-language request, read by ``travelplanner_query``.
* **The information**: sole-planning, the ``Given Information:`` of the task
  (``travelplanner_info``; closed: what it does not list does not exist); two-stage, the
  results of TravelPlanner's six search tools, asked for as the itinerary reader asks
  (``itinerary_reader.gather``): a state's cities, each city's accommodations and restaurants,
  then only the routes, flights and attractions the cheapest plan still needs.
* **The rules**: where the system prompt lists them (planprobe's prompts: two-stage, official
  splits, ``--strict``), every rule the plan depends on must be stated (the itinerary reader's
  list); TravelPlanner's own prompt (the training set's, kept as published) states a few and
  asks that "all details should align with commonsense" — read as the paper's commonsense
  constraints, which the strict rules spell out (docs/travelplanner.md "Read by the solver").
* **The answer** is the cheapest plan meeting every rule (it is within the budget if any plan
  is), in the format the prompt asks for: the JSON list of day objects when the prompt states
  it; TravelPlanner's ``Day N:`` layout (its planner prompt's example, which the training prompt
  refers to but does not include) otherwise. No plan, or none within the budget: a refusal.

It imports nothing of the family, the agents or the runner (``tests/solver``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from .base import ChatView, Decision
from .itinerary_facts import FOOD, HOTEL, SIGHT, Facts, Key, Row, read_facts
from .itinerary_query import NEEDED_RULES, Query
from .itinerary_reader import TOOLS, gather, write_plan
from .itinerary_search import Search
from .travelplanner_info import PHRASES, cities_with, read_information, split_given
from .travelplanner_query import read_trip

RULES_HEAD = "The plan is judged by these rules"
JSON_FORMAT = "Answer with the plan as a JSON list of objects with the keys days, current_city"
COMMONSENSE = "all details should align with commonsense"  # TravelPlanner's own prompt
_BACKGROUND = re.compile(r"^([A-Za-z][A-Za-z_ ]*[A-Za-z]): ", re.MULTILINE)
_LABELS = (("current_city", "Current City"), ("transportation", "Transportation"), ("breakfast", "Breakfast"),
           ("attraction", "Attraction"), ("lunch", "Lunch"), ("dinner", "Dinner"), ("accommodation", "Accommodation"))
_QUERY = re.compile(r"^\s*Query:\s*(.+?)\s*\Z", re.DOTALL)
NAME_COLUMN = {HOTEL: "NAME", FOOD: "Name", SIGHT: "Name"}
_RULE_PHRASES = tuple((what, phrase) for what, phrase in NEEDED_RULES)


def rules_problem(system: str) -> str | None:
    """What the system prompt leaves unstated that the plan depends on (None: nothing)."""
    if RULES_HEAD in system:
        missing = [what for what, phrase in _RULE_PHRASES if phrase not in system]
        return ("the prompt does not state " + ", ".join(missing)) if missing else None
    if COMMONSENSE in system:
        return None
    return "the prompt neither states the rules a plan is judged by nor appeals to TravelPlanner's commonsense"


def day_layout(days: list[dict[str, Any]]) -> str:
    """The plan in TravelPlanner's text layout: ``Day N:`` then one ``Field: value`` line a field."""
    blocks = []
    for day in days:
        lines = [f"Day {day['days']}:"] + [f"{label}: {day[key]}" for key, label in _LABELS]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _answer(system: str, days: list[dict[str, Any]]) -> str:
    if JSON_FORMAT in system or COMMONSENSE not in system:
        return json.dumps(days, indent=1)
    return day_layout(days)


def unambiguous(facts: Facts) -> Facts:
    """The facts without the places a plan cannot name unambiguously: a name a city's table lists
    on rows that differ (two 'Burger King' in one city at two prices). A plan writes only 'Name,
    City', and nothing the prompt says tells which row it would be judged by, so a careful planner
    does not use such a name."""
    tables: dict[Key, list[Row]] = {}
    for key, rows in facts.tables.items():
        column = NAME_COLUMN.get(key[0])
        if column is None:
            tables[key] = rows
            continue
        seen: dict[str, set[tuple[tuple[str, str], ...]]] = {}
        for row in rows:
            seen.setdefault(row.get(column, ""), set()).add(tuple(sorted(row.items())))
        kept, done = [], set()
        for row in rows:
            name = row.get(column, "")
            if len(seen[name]) == 1 and name not in done:
                kept.append(row)
                done.add(name)
        tables[key] = kept
    return dataclasses.replace(facts, tables=tables)


def _over_budget(q: Query, cost: float) -> Decision:
    return Decision(refuse=f"The cheapest plan meeting every rule costs {cost:g}, above the budget of {q.budget:g}.")


class TravelPlannerReader:
    """The ``TaskReader`` for TravelPlanner cases, both modes."""

    name = "travelplanner"

    def claims(self, view: ChatView) -> bool:
        task = view.task or ""
        if split_given(task) is not None:
            return True
        offered = {t.get("name") for t in view.tools}
        return _QUERY.match(task) is not None and TOOLS <= offered

    def decide(self, view: ChatView) -> Decision:
        system, task = view.system or "", view.task or ""
        problem = rules_problem(system)
        if problem is not None:
            return Decision(underspecified=problem)
        given = split_given(task)
        asked = _QUERY.match(task)
        text = given[1] if given else (asked.group(1) if asked else task)
        trip = read_trip(text)
        if trip.query is None:
            return Decision(underspecified=trip.problem or "the query cannot be read")
        q = trip.query
        if given is None:
            decision = gather(q, unambiguous(read_facts(view.history)), satisfice=True)
            if decision.answer is not None:
                return Decision(answer=_answer(system, json.loads(decision.answer)))
            return decision
        phrases = PHRASES + tuple(n for n in _BACKGROUND.findall(system) if " " in n)
        facts, unreadable = read_information(given[0], phrases)
        facts = unambiguous(facts)
        if unreadable:
            return Decision(underspecified="; ".join(unreadable[:3]))
        listed = [c for c in cities_with(facts, HOTEL) if c != q.origin]
        if q.state:
            candidates = listed
        elif q.destination in listed:
            candidates = [q.destination]
        else:
            return Decision(underspecified=f"the information lists no accommodations in {q.destination}, "
                                           "the destination")
        if len(candidates) < q.cities:
            return Decision(refuse=f"The information lists {len(candidates)} cities to stay in; the query asks "
                                   f"for {q.cities}.")
        best = Search(q, facts, candidates).best()
        if best is None:
            return Decision(refuse="No plan meets every rule of the query with the information given.")
        if best.cost > q.budget + 1e-9:
            return _over_budget(q, best.cost)
        return Decision(answer=_answer(system, write_plan(q, best, facts)))


READER = TravelPlannerReader()
