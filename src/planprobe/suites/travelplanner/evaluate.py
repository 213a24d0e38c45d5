"""TravelPlanner's evaluator: the eight commonsense and five hard constraints of
one plan, read the way the official ``evaluation/`` code reads them, and with
``strict=True`` the gaps in that reading closed (docs/travelplanner.md lists each).

Every check returns ``(passed, message)``; ``passed`` is None when the constraint
does not apply (a hard constraint the query does not set). The plan must have
passed ``plan.format_problem`` (the official code would raise on it otherwise).
What one plan's evaluation holds (the constraint names, ``PlanEvaluation``) is ``evaluation.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .evaluation import PlanEvaluation, Result
from .fields import QueryFields
from .plan import Plan
from .sandbox import Row, Sandbox
from .text import (
    NO_MORE_DAYS,
    before_parenthesis,
    filled,
    flight_number,
    flight_numbers,
    from_to,
    name_city,
    transport_kind,
    transport_modes,
)

MEALS = ("breakfast", "lunch", "dinner")
_RULE_TEXT = {"smoking": "No smoking", "parties": "No parties", "children under 10": "No children under 10",
              "visitors": "No visitors", "pets": "No pets"}
_ROOM_OK: dict[str, Callable[[str], bool]] = {
    "not shared room": lambda t: t != "Shared room", "shared room": lambda t: t == "Shared room",
    "private room": lambda t: t == "Private room", "entire room": lambda t: t == "Entire home/apt",
}


class Evaluator:
    """Scores plans of one query against one sandbox."""

    def __init__(self, q: QueryFields, box: Sandbox, strict: bool = False):
        self.q, self.box, self.strict = q, box, strict
        self._rule: str | None = None

    def _fail(self, rule: str, message: str) -> Result:
        """A failed check: its message, and the id of the rule it breaks (``rules.RULES``,
        the sentence a case's prompt states) kept for ``evaluate``. Every failure goes
        through here, so a test can map each one to its stated rule."""
        self._rule = rule
        return False, message

    # -- helpers -----------------------------------------------------------

    def _days(self, plan: Plan) -> range:
        return range(min(self.q.days, len(plan)))

    def _entity(self, table: str, text: str) -> list[Row]:
        name, city = name_city(text)
        return self.box.rows(table, name, city, exact=self.strict)

    def _attractions(self, value: str) -> list[str]:
        parts = value.split(";")
        if self.strict:
            return [p.strip() for p in parts if p.strip()]
        return parts[:-1]  # the official code drops the text after the last ';'

    def _same(self, value: str) -> Any:
        """What two mentions of a place are compared by: the text (official) or its name and city."""
        return name_city(value) if self.strict else value

    def _cities_of_day(self, day: dict[str, Any]) -> list[str]:
        city = day["current_city"]
        if "from" in city:
            a, b = from_to(city)
            return [before_parenthesis(a or ""), before_parenthesis(b or "")]
        return [before_parenthesis(city)]

    # -- commonsense -------------------------------------------------------

    def _city_sequence(self, plan: Plan) -> list[str] | Result:
        """The cities the days name, in order (a travel day names two), or the failure
        when the first day does not leave from the origin (both city checks say so)."""
        cities: list[str] = []
        for i in self._days(plan):
            value = plan[i]["current_city"]
            if "from" in value:
                a, b = (before_parenthesis(x or "") for x in from_to(value))
                if i == 0 and a != self.q.org:
                    return self._fail("route_start", f"The first day's city should be {self.q.org}.")
                cities += [a, b]
            else:
                cities.append(before_parenthesis(value))
        return cities

    def _first_repeat(self, mentions: Iterable[tuple[str, str]]) -> str | None:
        """The message of the first (place, message) whose place was mentioned before."""
        seen: list[Any] = []
        for value, message in mentions:
            key = self._same(value)
            if key in seen:
                return message
            seen.append(key)
        return None

    def reasonable_visiting_city(self, plan: Plan) -> Result:
        cities = self._city_sequence(plan)
        if isinstance(cities, tuple):
            return cities
        if cities[0] != cities[-1]:
            return self._fail("route_closed", "The trip should be a closed circle.")
        if not _valid_sequence(cities):
            return self._fail("route_sequence", "The city sequence is invalid.")
        for k, city in enumerate(cities):
            if city not in self.box.cities:
                return self._fail("route_known_city", f"{city} is not a valid city.")
            if k not in (0, len(cities) - 1) and not self._at_destination(city):
                return self._fail("route_destination", f"{city} is not in {self.q.dest}.")
        return True, None

    def _at_destination(self, city: str) -> bool:
        """Whether a visited city is where the query goes. Official: a city of the
        destination state, checked only for trips longer than 3 days. Strict: for every
        length, the destination itself when the query names one city to visit and the
        sandbox knows it as a city, else a city of the destination state."""
        if not self.strict:
            return self.q.days <= 3 or self.box.cities[city] == self.q.dest
        if self.q.visiting_city_number == 1 and self.q.dest in self.box.cities:
            return city == self.q.dest
        return self.box.cities[city] == self.q.dest

    def restaurants(self, plan: Plan) -> Result:
        repeated = self._first_repeat((value, f"The restaurant in day {i + 1} {meal} is repeated.")
                                      for i in self._days(plan) for meal in MEALS
                                      if filled(value := plan[i].get(meal)))
        return (True, None) if repeated is None else self._fail("restaurant_once", repeated)

    def attractions(self, plan: Plan) -> Result:
        repeated = self._first_repeat((item, f"The attraction '{item}' in day {i + 1} is repeated.")
                                      for i in self._days(plan) if filled(value := plan[i].get("attraction"))
                                      for item in self._attractions(value))
        return (True, None) if repeated is None else self._fail("attraction_once", repeated)

    def accommodation(self, plan: Plan) -> Result:
        stays: list[Any] = []
        for i in self._days(plan):
            if "accommodation" not in plan[i]:
                return self._fail("all_fields", "No Accommodation Info.")
            stays.append(plan[i]["accommodation"])
        for value, nights in _runs([self._same(s) if s not in ("-", "") else s for s in stays]):
            if value in ("-", ""):
                continue
            name, city = value if self.strict else name_city(value)
            rows = self.box.rows("accommodations", name, city, exact=self.strict)
            found = (len(rows) >= 1) if self.strict else (len(rows) == 1)  # official: only a unique match is checked
            if found and nights < rows[0]["minimum nights"]:
                shown = f"{name}, {city}" if self.strict else value
                return self._fail("minimum_nights", f"The accommodation {shown} do not obey the minumum nights rule.")
        return True, None

    def transportation(self, plan: Plan) -> Result:
        first = plan[0]["transportation"]
        if not filled(first):
            return self._fail("first_day_transport", "The transportation in day 1 should not be empty.")
        kinds: list[str | None] = [transport_kind(first)] if not self.strict else [*sorted(transport_modes(first))]
        for i in self._days(plan):
            value = plan[i].get("transportation")
            if filled(value):
                if self.strict:
                    kinds += sorted(transport_modes(value))
                else:
                    kinds.append(transport_kind(value))
        if ("Self-driving" in kinds and "Flight" in kinds) or ("Taxi" in kinds and "Self-driving" in kinds):
            return self._fail("no_mixed_transport", "The transportation is conflicting.")
        return True, None

    def current_city(self, plan: Plan) -> Result:
        for i in self._days(plan):
            day = plan[i]
            city = day["current_city"]
            if "from" in city or self.strict:
                places: Any = self._cities_of_day(day)
            else:
                places = before_parenthesis(city)  # a text: the official code iterates its characters
            move = day.get("transportation")
            if filled(move):
                for place in places:
                    if place not in move:
                        return self._fail("transport_names_cities", f"The transportation in day {i + 1} is invalid city choice.")
            for meal in MEALS:
                value = day.get(meal)
                if filled(value) and not self._in_city(value, places):
                    return self._fail("meal_in_city", f"The {meal} in day {i + 1} is invalid city choice.")
            value = day.get("attraction")
            if filled(value):
                for item in self._attractions(value):
                    if not self._in_city(item, places):
                        return self._fail("attraction_in_city", f"The attraction in day {i + 1} is invalid city choice.")
            value = day.get("accommodation")
            if filled(value):
                last = places[-1]
                ok = name_city(value)[1] == last if self.strict else last in value
                if not ok:
                    return self._fail("accommodation_in_city", f"The accommodation in day {i + 1} is invalid city choice.")
        return True, None

    def _in_city(self, value: str, places: Any) -> bool:
        if self.strict:
            return name_city(value)[1] in places
        return any(place in value for place in places)

    def sandbox(self, plan: Plan) -> Result:
        for i in self._days(plan):
            day = plan[i]
            move = day["transportation"]
            if filled(move) and self.strict:
                problem = self._strict_leg(move, day["current_city"], i)[2]
                if problem is not None:
                    return problem
            elif filled(move):
                a, b = from_to(move)
                if a is None or b is None:
                    a, b = from_to(day["current_city"])
                if "flight number" in move.lower():
                    if not self._flight_rows(flight_number(move) or "", before_parenthesis(a or ""),
                                             before_parenthesis(b or ""), i):
                        return self._fail("flight_in_sandbox", f"The flight number in day {i + 1} is invalid in the sandbox.")
                elif "self-driving" in move.lower() or "taxi" in move.lower():
                    if a is not None and b is not None:
                        a2, b2 = before_parenthesis(a), before_parenthesis(b)
                    else:  # the official code falls back to '-' here
                        a2, b2 = "-", "-"
                    mode = "self-driving" if "self-driving" in move.lower() else "taxi"
                    route = self.box.distance(before_parenthesis(a2), before_parenthesis(b2))
                    if route is None or route.cost(mode) is None:
                        return self._fail("drive_in_sandbox", f"The {mode} in day {i + 1} is invalid in the sandbox.")
            for meal in MEALS:
                value = day.get(meal)
                if filled(value) and not self._entity("restaurants", value):
                    return self._fail("place_in_sandbox", f"The {meal} in day {i + 1} is invalid in the sandbox.")
            value = day.get("attraction")
            if filled(value):
                for item in self._attractions(value):
                    if not self._entity("attractions", item):
                        return self._fail("place_in_sandbox", f"The attraction {item} in day {i + 1} is invalid in the sandbox.")
            value = day.get("accommodation")
            if filled(value) and not self._entity("accommodations", value):
                return self._fail("place_in_sandbox", f"The accommodation in day {i + 1} is invalid in the sandbox.")
        return True, None

    def _strict_leg(self, move: str, city: str, day: int) -> tuple[str | None, float | None, Result | None]:
        """(mode, cost of one ticket or vehicle, the failure or None) of one transportation entry in the
        strict reading: it must name exactly one mode and a route ('from A to B' here or in
        the day's current city), and a flight exactly one flight number (in any spelling of
        its label) that the sandbox flies on that route on that day's date. The official
        reading verifies only entries it recognises ('Flight Number: ', 'self-driving', 'taxi')."""
        modes = transport_modes(move)
        if len(modes) != 1:
            named = " and ".join(sorted(modes)) or "no mode"
            why = f"The transportation in day {day + 1} is not one flight, self-driving or taxi leg (it names {named})."
            return None, None, self._fail("transport_recognised", why)
        mode = modes.pop()
        a, b = from_to(move)
        if a is None or b is None:
            a, b = from_to(city)
        if a is None or b is None:
            return mode, None, self._fail("transport_recognised",
                                          f"The transportation in day {day + 1} has no route ('from A to B').")
        a, b = before_parenthesis(a), before_parenthesis(b)
        if mode == "Flight":
            numbers = flight_numbers(move)
            if len(numbers) != 1:
                why = f"The flight in day {day + 1} should name one flight number (it names {len(numbers)})."
                return mode, None, self._fail("transport_recognised", why)
            rows = self._flight_rows(numbers[0], a, b, day)
            if not rows:
                return mode, None, self._fail("flight_in_sandbox",
                                              f"The flight number in day {day + 1} is invalid in the sandbox.")
            return mode, rows[0]["Price"], None
        key = mode.lower()
        route = self.box.distance(a, b)
        cost = route.cost(key) if route is not None else None
        if cost is None:
            return mode, None, self._fail("drive_in_sandbox", f"The {key} in day {day + 1} is invalid in the sandbox.")
        return mode, cost, None

    def _flight_rows(self, number: str, origin: str, dest: str, day: int) -> list[Row]:
        rows = [r for r in self.box.flights_numbered(number)
                if r["OriginCityName"] == origin and r["DestCityName"] == dest]
        if self.strict:
            date = self.q.date[day] if day < len(self.q.date) else None
            rows = [r for r in rows if r["FlightDate"] == date]
        return rows

    def visiting_city_number(self, plan: Plan) -> Result:
        cities = self._city_sequence(plan)
        if isinstance(cities, tuple):
            return cities
        seen = set(cities)
        seen.discard(self.q.org)
        if len(seen) != self.q.visiting_city_number:
            return self._fail("city_count", f"The number of visiting cities should be {self.q.visiting_city_number}.")
        return True, None

    def valid_days(self, plan: Plan) -> Result:
        count = sum(1 for i in self._days(plan) if plan[i] != {} and plan[i]["current_city"] != NO_MORE_DAYS)
        if count != self.q.days:
            return self._fail("day_count", f"The number of days should be {self.q.days}.")
        return True, None

    def not_absent(self, plan: Plan) -> Result:
        if not self.valid_days(plan)[0]:
            return self._fail("day_count", "Invalid Days")
        if not self.visiting_city_number(plan)[0]:
            return self._fail("city_count", "Invalid City Number")
        given = 0
        for i in self._days(plan):
            day = plan[i]
            for key, label in (("transportation", "Transportation"), ("breakfast", "Breakfast"), ("lunch", "Lunch"),
                               ("dinner", "Dinner"), ("attraction", "Attraction"), ("accommodation", "Accommodation")):
                if key not in day:
                    return self._fail("all_fields", f"No {label} Info.")
            city = day["current_city"]
            travel = "from " in city
            if (travel or "to " in city) and day["transportation"] in ("", "-"):
                return self._fail("travel_transport", f"No transportation in day {i + 1} is not allowed.")
            if (not travel and " to " not in city) and day["attraction"] in ("", "-"):
                return self._fail("daily_attraction", f"No attaction in day {i + 1} is not allowed.")
            if i != self.q.days - 1 and day["accommodation"] in ("", "-"):
                return self._fail("nightly_bed", f"No accommodation in day {i + 1} is not allowed.")
            if any(day[m] in ("", "-") for m in MEALS) and not travel:
                return self._fail("daily_meals", f"No meal in day {i + 1} is not allowed.")
            given += sum(1 for v in day.values() if filled(v))
        if given / (6 * self.q.days) < 0.5:
            return self._fail("half_filled", "The absent information is more than 50%.")
        return True, None

    # -- hard --------------------------------------------------------------

    def total_cost(self, plan: Plan) -> float:
        people = self.q.people_number
        total: float = 0
        for i in self._days(plan):
            day = plan[i]
            move = day["transportation"]
            if filled(move) and self.strict:
                mode, unit, _ = self._strict_leg(move, day["current_city"], i)
                if unit is not None:
                    total += unit * (people if mode == "Flight" else math.ceil(people / (5 if mode == "Self-driving"
                                                                                          else 4)))
            elif filled(move):
                a, b = from_to(move)
                if a is None or b is None:
                    a, b = from_to(day["current_city"])
                if a is not None and b is not None:
                    if "flight number" in move.lower():
                        rows = self.box.flights_numbered(flight_number(move) or "")
                        if rows:
                            total += rows[0]["Price"] * people
                    elif "self-driving" in move.lower() or "taxi" in move.lower():
                        mode = "self-driving" if "self-driving" in move.lower() else "taxi"
                        route = self.box.distance(before_parenthesis(a), before_parenthesis(b))
                        cost = route.cost(mode) if route is not None else None
                        if cost is not None:  # (the official code would raise here; the sandbox check rules it out)
                            total += cost * math.ceil(people / (5 if mode == "self-driving" else 4))
            for meal in MEALS:
                if filled(day[meal]):
                    rows = self._entity("restaurants", day[meal])
                    if rows:
                        total += rows[0]["Average Cost"] * people
            if filled(day["accommodation"]):
                rows = self._entity("accommodations", day["accommodation"])
                if rows:
                    total += rows[0]["price"] * math.ceil(people / rows[0]["maximum occupancy"])
        return total

    def room_rule(self, plan: Plan) -> Result:
        rule = self.q.local_constraint["house rule"]
        if rule is None:
            return None, None
        for row in self._stays(plan):
            if rule in _RULE_TEXT and _RULE_TEXT[rule] in str(row["house_rules"]):
                return self._fail("house_rule", f"The house rule should be {rule}.")
        return True, None

    def _stays(self, plan: Plan) -> Iterator[Row]:
        """The sandbox row (the first match) of each day's accommodation the sandbox knows."""
        for i in self._days(plan):
            value = plan[i]["accommodation"]
            if filled(value):
                rows = self._entity("accommodations", value)
                if rows:
                    yield rows[0]

    def cuisine(self, plan: Plan) -> Result:
        wanted = self.q.local_constraint["cuisine"]
        if not wanted:
            return None, None
        found: set[str] = set()
        for i in self._days(plan):
            for meal in MEALS:
                value = plan[i][meal]
                if not filled(value):
                    continue
                city = name_city(value)[1]
                if city == self.q.org:
                    if self.strict:
                        continue
                    break  # the official code skips the rest of the day after a meal in the origin city
                rows = self._entity("restaurants", value)
                if rows:
                    found.update(c for c in wanted if c in rows[0]["Cuisines"])
        if len(found) == len(wanted):
            return True, None
        missing = next((c for c in wanted if c not in found), None)
        if missing is None:  # a cuisine listed twice: the official code returns nothing here
            return None, None
        return self._fail("cuisine", f"The cuisine {missing} is not satisfied.")

    def transport_rule(self, plan: Plan) -> Result:
        rule = self.q.local_constraint["transportation"]
        if rule is None:
            return None, None
        for i in self._days(plan):
            value = plan[i]["transportation"]
            if filled(value):
                if self.strict:
                    modes = transport_modes(value)
                    flight, drive = "Flight" in modes, "Self-driving" in modes
                else:
                    flight, drive = "Flight" in value, "Self-driving" in value
                if (rule == "no flight" and flight) or (rule == "no self-driving" and drive):
                    return self._fail("transport_rule", f"The transportation should not be {rule}.")
        return True, None

    def room_type(self, plan: Plan) -> Result:
        wanted = self.q.local_constraint["room type"]
        if wanted is None:
            return None, None
        for row in self._stays(plan):
            if wanted in _ROOM_OK and not _ROOM_OK[wanted](row["room type"]):
                return self._fail("room_type", f"The room type should be {wanted}.")
        return True, None

    # -- the whole plan ----------------------------------------------------

    def evaluate(self, plan: Plan) -> PlanEvaluation:
        rules: dict[str, str] = {}

        def judge(name: str, check: Callable[[Plan], Result]) -> Result:
            self._rule = None
            result = check(plan)
            if result[0] is False:
                rules[name] = self._rule or "?"
            return result

        common = {
            "is_reasonable_visiting_city": judge("is_reasonable_visiting_city", self.reasonable_visiting_city),
            "is_valid_restaurants": judge("is_valid_restaurants", self.restaurants),
            "is_valid_attractions": judge("is_valid_attractions", self.attractions),
            "is_valid_accommodation": judge("is_valid_accommodation", self.accommodation),
            "is_valid_transportation": judge("is_valid_transportation", self.transportation),
            "is_valid_information_in_current_city": judge("is_valid_information_in_current_city", self.current_city),
            "is_valid_information_in_sandbox": judge("is_valid_information_in_sandbox", self.sandbox),
            "is_not_absent": judge("is_not_absent", self.not_absent),
        }
        if not (common["is_not_absent"][0] and common["is_valid_information_in_sandbox"][0]):
            return PlanEvaluation(common, None, rules=rules)
        cost = self.total_cost(plan)
        hard = {
            "valid_cuisine": judge("valid_cuisine", self.cuisine),
            "valid_room_rule": judge("valid_room_rule", self.room_rule),
            "valid_transportation": judge("valid_transportation", self.transport_rule),
            "valid_room_type": judge("valid_room_type", self.room_type),
            "valid_cost": judge("valid_cost", lambda _: self.budget(cost)),
        }
        return PlanEvaluation(common, hard, cost, rules)

    def budget(self, cost: float) -> Result:
        if cost <= self.q.budget:
            return True, None
        return self._fail("budget", f"The total cost {_money(cost)} exceeds the budget {_money(self.q.budget)}.")


def _money(x: float) -> str:
    return f"{x:g}"


def _runs(values: list[Any]) -> list[tuple[Any, int]]:
    out: list[tuple[Any, int]] = []
    for v in values:
        if out and out[-1][0] == v:
            out[-1] = (v, out[-1][1] + 1)
        else:
            out.append((v, 1))
    return out


def _valid_sequence(cities: list[str]) -> bool:
    """Each city but the first and last visited in one consecutive run of two or
    more entries, and never again once left (the official rule)."""
    if len(cities) < 3:
        return False
    seen: set[str] = set()
    i, n = 0, len(cities)
    while i < n:
        city = cities[i]
        if city in seen and i not in (0, n - 1):
            return False
        count = 0
        while i < n and cities[i] == city:
            count += 1
            i += 1
        if count == 1 and 0 < i - 1 < n - 1:
            return False
        seen.add(city)
    return True
