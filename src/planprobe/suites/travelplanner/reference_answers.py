"""Plans the reference agents answer with: the annotated plan (oracle), a random
plan of the right shape from the sandbox (random), and the annotated plan with
one constraint broken on purpose (``faulty:<mutation>``; the tests compare every
mutation's verdicts with an independent port of the official evaluator)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from .evaluate import MEALS
from .fields import QueryFields
from .plan import Plan
from .sandbox import Row, Sandbox
from .text import before_parenthesis, filled, from_to, name_city

Mutation = Callable[[Plan, QueryFields, Sandbox, random.Random], Plan | None]


def dump(plan: Plan | None) -> str:
    return "" if not plan else json.dumps(plan, ensure_ascii=False)


def _trip(plan: Plan, q: QueryFields) -> Plan:
    return [d for d in plan[:q.days] if d]


def _day_cities(day: dict[str, Any]) -> list[str]:
    city = day["current_city"]
    if "from" in city:
        return [before_parenthesis(x or "") for x in from_to(city)]
    return [before_parenthesis(city)]


def _meal_slots(plan: Plan) -> list[tuple[int, str]]:
    return [(i, m) for i, d in enumerate(plan) for m in MEALS if filled(d.get(m))]


def _suffix(value: str) -> str:
    """'City(State)' as the plan wrote it after the name."""
    return value.rsplit(",", 1)[1].strip() if "," in value else ""


# -- mutations ---------------------------------------------------------------


def open_route(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """The last day no longer returns to the origin."""
    last = plan[q.days - 1]
    a, _b = from_to(last["current_city"])
    others = sorted(c for c in box.cities if c not in (q.org, before_parenthesis(a or "")))
    if a is None or not others:
        return None
    last["current_city"] = f"from {a} to {rng.choice(others)}"
    return plan


def repeat_restaurant(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    slots = _meal_slots(plan[:q.days])
    if len(slots) < 2:
        return None
    (i, m), (j, n) = slots[0], slots[-1]
    plan[j][n] = plan[i][m]
    return plan


def repeat_attraction(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    days = [i for i, d in enumerate(plan[:q.days]) if filled(d.get("attraction"))]
    if len(days) < 2:
        return None
    first = plan[days[0]]["attraction"].split(";")[0]
    plan[days[-1]]["attraction"] = plan[days[-1]]["attraction"] + f"{first};"
    return plan


def unterminated_repeat(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """A repeated attraction written last without the closing ';' (the official reader drops it)."""
    days = [i for i, d in enumerate(plan[:q.days]) if filled(d.get("attraction"))]
    if len(days) < 2:
        return None
    first = plan[days[0]]["attraction"].split(";")[0]
    text = plan[days[-1]]["attraction"]
    plan[days[-1]]["attraction"] = (text if text.endswith(";") else text + ";") + first
    return plan


def short_stay(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """Every night of the first stay moved to a place whose minimum stay is longer."""
    trip = plan[:q.days]
    first = next((i for i, d in enumerate(trip) if filled(d.get("accommodation"))), None)
    if first is None:
        return None
    value = trip[first]["accommodation"]
    run = [i for i in range(first, len(trip)) if trip[i].get("accommodation") == value]
    _name, city = name_city(value)
    for row in box.city_rows("accommodations", city):
        if row["minimum nights"] > len(run) and len(box.rows("accommodations", row["NAME"], city)) == 1:
            for i in run:
                trip[i]["accommodation"] = f"{row['NAME']}, {_suffix(value)}"
            return plan
    return None


def conflicting_transport(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    last = plan[q.days - 1]
    a, b = from_to(last["current_city"])
    if a is None:
        return None
    first = plan[0]["transportation"].lower()
    mode = "Taxi" if "self-driving" in first else "Self-driving"
    last["transportation"] = f"{mode}, from {a} to {b}"
    if "self-driving" not in first and "taxi" not in first:
        plan[0]["transportation"] = f"Self-driving, from {q.org} to {_day_cities(plan[0])[-1]}"
    return plan


def _other_city_restaurant(plan: Plan, box: Sandbox, day: dict[str, Any]) -> Row | None:
    here = set(_day_cities(day))
    for row in box.restaurants:
        used = any(name_city(d.get(m) or "")[0] == row["Name"] for d in plan for m in MEALS)
        if row["City"] not in here and not used and not any(c in row["Name"] for c in here):
            return row
    return None


def wrong_city_meal(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """A meal on a travel day in a city the day is not in (valid in the sandbox)."""
    for day in plan[:q.days]:
        if "from" in day["current_city"] and filled(day.get("dinner")):
            row = _other_city_restaurant(plan, box, day)
            if row is None:
                return None
            day["dinner"] = f"{row['Name']}, {row['City']}"
            return plan
    return None


def stay_city_meal(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """The same on a day spent in one city (the official check reads the city's letters there)."""
    for day in plan[:q.days]:
        if "from" not in day["current_city"] and filled(day.get("lunch")):
            row = _other_city_restaurant(plan, box, day)
            if row is None:
                return None
            day["lunch"] = f"{row['Name']}, {row['City']}"
            return plan
    return None


def unknown_restaurant(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    slots = _meal_slots(plan[:q.days])
    if not slots:
        return None
    i, m = slots[rng.randrange(len(slots))]
    plan[i][m] = f"Planprobe Imaginary Bistro, {_suffix(plan[i][m])}"
    return plan


def name_prefix(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """A restaurant named by the first part of its name only (a substring still matches)."""
    for i, m in _meal_slots(plan[:q.days]):
        name, _city = name_city(plan[i][m])
        words = name.split()
        if len(words) >= 2:
            plan[i][m] = f"{' '.join(words[:-1])}, {_suffix(plan[i][m])}"
            return plan
    return None


def missing_meal(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    for day in plan[:q.days]:
        if "from" not in day["current_city"]:
            day["lunch"] = "-"
            return plan
    return None


def _replace_stays(plan: Plan, q: QueryFields, box: Sandbox,
                   pick: Callable[[list[Row]], Row | None]) -> Plan | None:
    changed = False
    for day in plan[:q.days]:
        value = day.get("accommodation")
        if not filled(value):
            continue
        rows = pick(box.city_rows("accommodations", name_city(value)[1]))
        if rows is not None:
            day["accommodation"] = f"{rows['NAME']}, {_suffix(value)}"
            changed = True
    return plan if changed else None


def over_budget(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    return _replace_stays(plan, q, box, lambda rows: max(rows, key=lambda r: r["price"]) if rows else None)


def house_rule(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    rule = q.local_constraint["house rule"]
    if rule is None:
        return None
    text = {"children under 10": "No children under 10"}.get(rule, f"No {rule}")
    return _replace_stays(plan, q, box, lambda rows: next((r for r in rows if text in str(r["house_rules"])), None))


def room_type(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    wanted = q.local_constraint["room type"]
    if wanted is None:
        return None
    bad = {"not shared room": "Shared room", "shared room": "Private room", "private room": "Entire home/apt",
           "entire room": "Private room"}.get(wanted)
    return _replace_stays(plan, q, box, lambda rows: next((r for r in rows if r["room type"] == bad), None))


def cuisine(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """Every meal away from home at a place without the first wanted cuisine."""
    wanted = q.local_constraint["cuisine"]
    if not wanted:
        return None
    used: set[str] = set()
    for i, m in _meal_slots(plan[:q.days]):
        _name, city = name_city(plan[i][m])
        if city == q.org:
            continue
        row = next((r for r in box.city_rows("restaurants", city)
                    if wanted[0] not in r["Cuisines"] and r["Name"] not in used), None)
        if row is None:
            return None
        used.add(row["Name"])
        plan[i][m] = f"{row['Name']}, {_suffix(plan[i][m])}"
    return plan


def transport_rule(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    rule = q.local_constraint["transportation"]
    if rule is None:
        return None
    a, b = _day_cities(plan[0])[0], _day_cities(plan[0])[-1]
    if rule == "no self-driving":
        plan[0]["transportation"] = f"Self-driving, from {a} to {b}"
        return plan
    flights = box.flight_search(a, b, q.date[0])
    if not flights:
        return None
    f = flights[0]
    plan[0]["transportation"] = (f"Flight Number: {f['Flight Number']}, from {a} to {b}, Departure Time: "
                                 f"{f['DepTime']}, Arrival Time: {f['ArrTime']}")
    return plan


def lowercase_mode(plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """Every leg driven, written 'self-driving' in lower case, on a 'no self-driving' query
    (the official rule check is case-sensitive)."""
    if q.local_constraint["transportation"] != "no self-driving":
        return None
    for day in plan[:q.days]:
        if "from" in day["current_city"]:
            a, b = _day_cities(day)
            route = box.distance(a, b)
            if route is None or route.cost("self-driving") is None:
                return None
            day["transportation"] = f"self-driving, from {a} to {b}"
    return plan


# mutation -> (function, error class the verdict must name)
MUTATIONS: dict[str, tuple[Mutation, str]] = {
    "open_route": (open_route, "order_error"),
    "repeat_restaurant": (repeat_restaurant, "order_error"),
    "repeat_attraction": (repeat_attraction, "order_error"),
    "unterminated_repeat": (unterminated_repeat, "order_error"),
    "short_stay": (short_stay, "order_error"),
    "conflicting_transport": (conflicting_transport, "order_error"),
    "wrong_city_meal": (wrong_city_meal, "order_error"),
    "stay_city_meal": (stay_city_meal, "order_error"),
    "unknown_restaurant": (unknown_restaurant, "act_error"),
    "name_prefix": (name_prefix, "act_error"),
    "missing_meal": (missing_meal, "action_lost"),
    "over_budget": (over_budget, "order_error"),
    "house_rule": (house_rule, "order_error"),
    "room_type": (room_type, "order_error"),
    "cuisine": (cuisine, "order_error"),
    "transport_rule": (transport_rule, "order_error"),
    "lowercase_mode": (lowercase_mode, "order_error"),
}


def mutate(name: str, plan: Plan, q: QueryFields, box: Sandbox, rng: random.Random) -> Plan | None:
    """A copy of ``plan`` with the mutation applied, or None when the plan leaves no room for it."""
    return MUTATIONS[name][0](copy.deepcopy(plan), q, box, rng)


# -- random plans ------------------------------------------------------------


def random_plan(q: QueryFields, box: Sandbox, rng: random.Random) -> Plan:
    """A plan of the query's shape from random sandbox entries: the floor."""
    if q.days <= 3:
        cities = [q.dest]
    else:
        pool = sorted(box.cities_in(q.dest)) or sorted(c for c in box.cities if c != q.org)
        cities = rng.sample(pool, min(q.visiting_city_number, len(pool)))
    steps: list[tuple[str, str]] = [(q.org, cities[0])]
    for k, city in enumerate(cities):
        steps.append((city, city))
        steps.append((city, cities[k + 1] if k + 1 < len(cities) else q.org))
    if len(steps) > q.days:
        steps = steps[:q.days - 1] + [(steps[q.days - 2][1], q.org)]
    while len(steps) < q.days:
        steps.insert(-1, (steps[-1][0], steps[-1][0]))
    plan: Plan = []
    for i, (frm, to) in enumerate(steps):
        day: dict[str, Any] = {"days": i + 1}
        if frm != to:
            day["current_city"] = f"from {frm} to {to}"
            flights = box.flight_search(frm, to, q.date[i])
            choice = rng.choice(["Flight", "Self-driving", "Taxi"])
            if choice == "Flight" and flights:
                f = rng.choice(flights)
                day["transportation"] = (f"Flight Number: {f['Flight Number']}, from {frm} to {to}, Departure Time: "
                                         f"{f['DepTime']}, Arrival Time: {f['ArrTime']}")
            else:
                day["transportation"] = f"{'Taxi' if choice == 'Taxi' else 'Self-driving'}, from {frm} to {to}"
        else:
            day["current_city"] = frm
            day["transportation"] = "-"
        eat = to if to != q.org else frm
        rows = box.city_rows("restaurants", eat)
        for meal in MEALS:
            day[meal] = f"{rng.choice(rows)['Name']}, {eat}" if rows else "-"
        sights = box.city_rows("attractions", eat)
        picks = rng.sample(sights, min(len(sights), rng.randint(1, 2))) if sights else []
        day["attraction"] = "".join(f"{r['Name']}, {eat};" for r in picks) or "-"
        stays = box.city_rows("accommodations", to)
        day["accommodation"] = f"{rng.choice(stays)['NAME']}, {to}" if stays and to != q.org else "-"
        plan.append(day)
    return plan
