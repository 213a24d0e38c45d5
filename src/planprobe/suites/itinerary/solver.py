"""The exact minimum-cost plan of an itinerary query, by enumeration.

A plan is fixed by the visited cities in order, the nights in each (a split of
days-1 nights), and the transport family (all self-driving, or flights and taxis:
the only mixes TravelPlanner's non-conflicting rule allows). For each such choice
every remaining part is independent and its cheapest option is exact:
* each leg: the cheapest allowed vehicle on that day's date;
* each stay: one accommodation for all its nights, the cheapest whose minimum
  nights, house rules and room type fit (splitting a stay never costs less: every
  part's accommodation fits the whole stay);
* meals: 3 per full day in a city, distinct restaurants; the query's cuisines are
  covered by a dynamic programme over cities x covered-cuisine sets, where a city
  may add a meal on its arrival day to cover a cuisine (travel days need no meals).
Attractions cost nothing: one distinct attraction per full day.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from ..travelplanner.evaluate import _ROOM_OK, _RULE_TEXT

INF = math.inf


@dataclass
class Solution:
    cost: float
    plan: list[dict[str, Any]]


def _splits(total: int, parts: int) -> list[tuple[int, ...]]:
    return [tuple(b - a for a, b in zip((0,) + c, c + (total,)))
            for c in itertools.combinations(range(1, total), parts - 1)]


class Solver:
    def __init__(self, q: Any, tables: dict[str, Any]):
        self.q, self.t = q, tables
        self.people = q.people_number
        lc = q.local_constraint
        self.want: list[str] = list(lc["cuisine"] or [])
        self.by_city: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for table, col in (("accommodations", "city"), ("restaurants", "City"), ("attractions", "City")):
            for r in tables[table]:
                self.by_city.setdefault(table, {}).setdefault(r[col], []).append(r)
        rule, room = lc["house rule"], lc["room type"]
        self.stays: dict[str, list[tuple[int, int, str]]] = {}  # city -> (night cost, min nights, name), cheapest first
        for city, rows in self.by_city["accommodations"].items():
            ok = [r for r in rows if not (rule and _RULE_TEXT[rule] in r["house_rules"])
                  and not (room and not _ROOM_OK[room](r["room type"]))]
            self.stays[city] = sorted((r["price"] * math.ceil(self.people / r["maximum occupancy"]),
                                       r["minimum nights"], r["NAME"]) for r in ok)
        self.routes = {(a, b): int(d.split()[0].replace(",", "")) for a, b, _, d in tables["distances"]}
        self.flights: dict[tuple[str, str, str], dict[str, Any]] = {}
        for f in tables["flights"]:
            key = (f["OriginCityName"], f["DestCityName"], f["FlightDate"])
            if key not in self.flights or f["Price"] < self.flights[key]["Price"]:
                self.flights[key] = f
        self._menus: dict[str, tuple[list[dict[str, Any]], list[int]]] = {}
        self._stay_cache: dict[tuple[str, int], tuple[float, str]] = {}
        self._leg_cache: dict[tuple[str, str, int, str], tuple[float, str]] = {}
        self._menu_cache: dict[tuple[tuple[str, int], ...], tuple[float, list[tuple[str, ...]]]] = {}
        self._meal_cache: dict[tuple[str, int, int], tuple[float, tuple[str, ...]]] = {}

    # -- parts ----------------------------------------------------------------

    def leg(self, a: str, b: str, day: int, family: str) -> tuple[float, str]:
        key = (a, b, day, family)
        hit = self._leg_cache.get(key)
        if hit is None:
            hit = self._leg_cache[key] = self._leg(a, b, day, family)
        return hit

    def _leg(self, a: str, b: str, day: int, family: str) -> tuple[float, str]:
        km = self.routes.get((a, b))
        rule = self.q.local_constraint["transportation"]
        if family == "drive":
            if km is None or rule == "no self-driving":
                return INF, ""
            return int(km * 0.05) * math.ceil(self.people / 5), f"Self-driving, from {a} to {b}"
        best: tuple[float, str] = (INF, "")
        if km is not None:
            best = (int(km) * math.ceil(self.people / 4), f"Taxi, from {a} to {b}")
        f = self.flights.get((a, b, self.q.date[day]))
        if f is not None and rule != "no flight" and f["Price"] * self.people < best[0]:
            best = (f["Price"] * self.people, (f"Flight Number: {f['Flight Number']}, from {a} to {b}, "
                                               f"Departure Time: {f['DepTime']}, Arrival Time: {f['ArrTime']}"))
        return best

    def stay(self, city: str, nights: int) -> tuple[float, str]:
        key = (city, nights)
        hit = self._stay_cache.get(key)
        if hit is None:
            hit = self._stay_cache[key] = self._stay(city, nights)
        return hit

    def _stay(self, city: str, nights: int) -> tuple[float, str]:
        for cost, least, name in self.stays.get(city, ()):
            if least <= nights:
                return cost * nights, name
        return INF, ""

    def meals(self, city: str, slots: int, mask: int) -> tuple[float, tuple[str, ...]]:
        """Cheapest distinct restaurants of ``city`` filling ``slots`` meals and covering the
        cuisines in ``mask`` (more than ``slots`` only when covering needs it)."""
        key = (city, slots, mask)
        hit = self._meal_cache.get(key)
        if hit is not None:
            return hit
        rows, bits = self._menu(city)
        best: tuple[float, tuple[str, ...]] = (INF, ())
        if mask == 0:
            if len(rows) >= slots:
                best = (sum(r["Average Cost"] for r in rows[:slots]) * self.people,
                        tuple(r["Name"] for r in rows[:slots]))
            self._meal_cache[key] = best
            return best
        useful = [i for i, b in enumerate(bits) if b & mask]
        for size in range(1, mask.bit_count() + 1):
            for cover in itertools.combinations(useful, size):
                got = 0
                for i in cover:
                    got |= bits[i]
                if got & mask != mask:
                    continue
                rest = [i for i in range(len(rows)) if i not in cover][:max(0, slots - size)]
                if size + len(rest) < slots:
                    continue
                chosen = sorted(cover + tuple(rest))
                cost = sum(rows[i]["Average Cost"] for i in chosen) * self.people
                if cost < best[0]:
                    best = (cost, tuple(rows[i]["Name"] for i in chosen))
        self._meal_cache[key] = best
        return best

    def _menu(self, city: str) -> tuple[list[dict[str, Any]], list[int]]:
        """The city's restaurants cheapest first, with the wanted cuisines each serves as bits."""
        hit = self._menus.get(city)
        if hit is None:
            rows = sorted(self.by_city["restaurants"].get(city, []), key=lambda r: (r["Average Cost"], r["Name"]))
            bits = [sum(1 << k for k, c in enumerate(self.want) if c in r["Cuisines"]) for r in rows]
            hit = self._menus[city] = (rows, bits)
        return hit

    def all_meals(self, stays: list[tuple[str, int]]) -> tuple[float, list[tuple[str, ...]]]:
        key = tuple(stays)
        hit = self._menu_cache.get(key)
        if hit is None:
            hit = self._menu_cache[key] = self._all_meals(stays)
        return hit

    def _all_meals(self, stays: list[tuple[str, int]]) -> tuple[float, list[tuple[str, ...]]]:
        full = (1 << len(self.want)) - 1
        table: dict[int, tuple[float, list[tuple[str, ...]]]] = {0: (0.0, [])}
        for city, nights in stays:
            nxt: dict[int, tuple[float, list[tuple[str, ...]]]] = {}
            for have, (cost, picks) in table.items():
                for mask in range(full + 1):
                    if mask & have:
                        continue  # covering a cuisine twice never helps
                    c, names = self.meals(city, 3 * (nights - 1), mask)
                    if c == INF:
                        continue
                    m = have | mask
                    if m not in nxt or cost + c < nxt[m][0]:
                        nxt[m] = (cost + c, picks + [names])
            table = nxt
        return table.get(full, (INF, []))

    # -- the whole trip -----------------------------------------------------------

    def solve(self, pool: list[str], k: int) -> Solution | None:
        nights = self.q.days - 1
        best: tuple[float, tuple[str, ...], tuple[int, ...], str] | None = None
        bound = INF
        splits = _splits(nights, k)
        for order in itertools.permutations(pool, k):
            for split in splits:
                fixed = 0.0
                for c, n in zip(order, split):
                    fixed += self.stay(c, n)[0]
                    if len(self.by_city["attractions"].get(c, ())) < n - 1:
                        fixed = INF
                if fixed >= bound:
                    continue
                fixed += self.all_meals(sorted(zip(order, split)))[0]
                if fixed >= bound:
                    continue
                for family in ("drive", "mixed"):
                    cost = fixed + self._legs_cost(order, split, family)
                    if cost < bound:
                        bound, best = cost, (cost, order, split, family)
        if best is None:
            return None
        cost, order, split, family = best
        return Solution(cost, self._plan(order, split, family))

    def _legs(self, order: tuple[str, ...], split: tuple[int, ...]) -> list[tuple[str, str, int]]:
        stops = [self.q.org, *order, self.q.org]
        days = list(itertools.accumulate((0,) + split))
        return [(stops[i], stops[i + 1], days[i]) for i in range(len(order) + 1)]

    def _legs_cost(self, order: tuple[str, ...], split: tuple[int, ...], family: str) -> float:
        return sum(self.leg(a, b, d, family)[0] for a, b, d in self._legs(order, split))

    def _plan(self, order: tuple[str, ...], split: tuple[int, ...], family: str) -> list[dict[str, Any]]:
        q = self.q
        stays = sorted(zip(order, split))
        _, sorted_menus = self.all_meals(stays)
        menu_of = dict(zip((c for c, _ in stays), sorted_menus))
        menus = [menu_of[c] for c in order]
        plan: list[dict[str, Any]] = []
        legs = {d: (a, b) for a, b, d in self._legs(order, split)}
        where: list[int] = []  # the city index whose stay each day belongs to (arrival day included)
        for i, n in enumerate(split):
            where += [i] * n
        seen_attr: dict[int, int] = {}
        meal_left = {i: list(m) for i, m in enumerate(menus)}
        for day in range(q.days):
            entry: dict[str, Any] = {"days": day + 1, "current_city": "", "transportation": "-", "breakfast": "-",
                                     "attraction": "-", "lunch": "-", "dinner": "-", "accommodation": "-"}
            if day in legs:
                a, b = legs[day]
                entry["current_city"] = f"from {a} to {b}"
                entry["transportation"] = self.leg(a, b, day, family)[1]
            else:
                entry["current_city"] = order[where[day]]
            if day < len(where):
                i = where[day]
                city = order[i]
                entry["accommodation"] = f"{self.stay(city, split[i])[1]}, {city}"
                full = day not in legs
                if full:
                    k = seen_attr.get(i, 0)
                    seen_attr[i] = k + 1
                    entry["attraction"] = f"{self.by_city['attractions'][city][k]['Name']}, {city};"
                extra = len(meal_left[i]) - 3 * (split[i] - 1)  # cuisine cover beyond the full days' meals
                if full or extra > 0:
                    for meal in ("breakfast", "lunch", "dinner"):
                        if meal_left[i] and (full or extra > 0):
                            entry[meal] = f"{meal_left[i].pop(0)}, {city}"
                            extra -= not full
            plan.append(entry)
        return plan
