"""The cheapest plan meeting every stated rule, over what the tools told so far.

A plan is fixed by the visited cities in order, the nights in each (at least one), and the
vehicles: all self-driving, or flights and taxis (the only mixes the rules allow). Given those,
the rest separates: each leg takes its cheapest allowed vehicle on its day's date; each stay
the cheapest accommodation that fits it whole (a stay split between accommodations uses ones
that would each fit the whole stay, so no split is cheaper); each city's meals are three
distinct restaurants per full day, plus at most one meal per asked cuisine on its arrival day
when covering a cuisine needs it (travel-day meals are optional), the cuisines covered by a
choice over cities; each full day one attraction.

Facts not asked for yet are taken at their most hopeful (a route or flight of cost 0, enough
attractions): the best plan under that hope is exact once it uses no unknown fact, and
otherwise names the facts to ask for next (``Best.unknown``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from .itinerary_facts import (
    FLIGHT,
    FOOD,
    HOTEL,
    SIGHT,
    Facts,
    Key,
    Row,
    city_key,
    drive_key,
    flight_key,
)
from .itinerary_query import Query

INF = math.inf
MealTable = dict[int, tuple[float, tuple[Row, ...], int]]  # covered cuisines -> (cost, restaurants, extras)
Rank = tuple[float, int, tuple[str, ...], tuple[int, ...], str]


@dataclass(frozen=True)
class Leg:
    a: str
    b: str
    day: int
    mode: str            # 'Flight', 'Taxi', 'Self-driving', or '' while unknown
    cost: float
    flight: Row | None = None


@dataclass
class Best:
    """The best plan found: its cost, the facts it still hopes for, and its parts."""

    cost: float
    unknown: frozenset[Key]
    route: tuple[str, ...] = ()
    nights: tuple[int, ...] = ()
    legs: tuple[Leg, ...] = ()
    stays: tuple[Row | None, ...] = ()
    meals: tuple[tuple[Row, ...], ...] = ()   # per city: restaurants, the full days' first
    extras: tuple[int, ...] = ()              # per city: how many of its meals are on its arrival day
    rank: Rank = field(default=(INF, 0, (), (), ""))


def _splits(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    for cuts in itertools.combinations(range(1, total), parts - 1):
        bounds = (0, *cuts, total)
        yield tuple(bounds[i + 1] - bounds[i] for i in range(parts))


class Search:
    def __init__(self, q: Query, facts: Facts, candidates: list[str], greedy: bool = False):
        """``greedy``: any plan within the budget will do, so prefer the plan that hopes for the
        fewest facts (within the budget, then cheaper) over the cheapest: on a sparse sandbox the
        cheapest hope is mostly routes that do not exist, and asking for each costs calls."""
        self.q, self.facts, self.candidates, self.greedy = q, facts, candidates, greedy
        self._legs: dict[tuple[str, str, int, str], tuple[Leg, frozenset[Key]]] = {}
        self._stays: dict[tuple[str, int], tuple[float, Row | None, frozenset[Key]]] = {}
        self._meals: dict[tuple[str, int], tuple[MealTable, frozenset[Key]]] = {}

    # -- parts ---------------------------------------------------------------

    def _hope(self, key: Key, unknown: set[Key]) -> None:
        """A fact not known yet is hoped for, unless the facts are all there is (then it is none)."""
        if not self.facts.closed:
            unknown.add(key)

    def _n(self, row: Row, column: str) -> float:
        value = self.facts.number(row, column)
        return INF if value is None else value

    def leg(self, a: str, b: str, day: int, family: str) -> tuple[Leg, frozenset[Key]]:
        memo = (a, b, day, family)
        if memo in self._legs:
            return self._legs[memo]
        p, date = self.q.people, self.q.dates[day]
        options: list[Leg] = []
        unknown: set[Key] = set()
        if family == "drive":
            k = drive_key(a, b, "self-driving")
            if k not in self.facts.costs:
                self._hope(k, unknown)
            elif (c := self.facts.costs[k]) is not None:
                options.append(Leg(a, b, day, "Self-driving", c * math.ceil(p / 5)))
        else:
            if not self.q.no_flight:
                k = flight_key(a, b, date)
                if k not in self.facts.tables:
                    self._hope(k, unknown)
                else:
                    rows = [r for r in self.facts.tables[k] if self._n(r, "Price") < INF]
                    if rows:
                        row = min(rows, key=lambda r: self._n(r, "Price"))
                        options.append(Leg(a, b, day, "Flight", self._n(row, "Price") * p, row))
            k = drive_key(a, b, "taxi")
            if k not in self.facts.costs:
                self._hope(k, unknown)
            elif (c := self.facts.costs[k]) is not None:
                options.append(Leg(a, b, day, "Taxi", c * math.ceil(p / 4)))
        best = min(options, key=lambda x: x.cost, default=None)
        # a cheaper vehicle not asked about yet is hoped for, unless any known one will do (greedy)
        if unknown and (best is None or best.cost > 0) and not (self.greedy and best is not None):
            out = (Leg(a, b, day, "", 0.0), frozenset(unknown))
        else:
            out = (best or Leg(a, b, day, "", INF), frozenset())
        self._legs[memo] = out
        return out

    def stay(self, city: str, nights: int) -> tuple[float, Row | None, frozenset[Key]]:
        memo = (city, nights)
        if memo in self._stays:
            return self._stays[memo]
        k = city_key(HOTEL, city)
        if k not in self.facts.tables and self.facts.closed:
            out: tuple[float, Row | None, frozenset[Key]] = (INF, None, frozenset())
        elif k not in self.facts.tables:
            out = (0.0, None, frozenset({k}))
        else:
            best: tuple[float, Row | None, frozenset[Key]] = (INF, None, frozenset())
            for row in self.facts.tables[k]:
                if not self.q.stay_ok(row.get("room type", ""), row.get("house_rules", "")):
                    continue
                if self._n(row, "minimum nights") > nights:
                    continue
                rooms = math.ceil(self.q.people / self._n(row, "maximum occupancy"))
                cost = self._n(row, "price") * rooms * nights
                if cost < best[0]:
                    best = (cost, row, frozenset())
            out = best
        self._stays[memo] = out
        return out

    def meals(self, city: str, full: int) -> tuple[MealTable, frozenset[Key]]:
        """Per set of asked cuisines covered (a bit mask): the cheapest restaurants (cost, rows,
        how many are arrival-day extras) for ``full`` full days in ``city``."""
        memo = (city, full)
        if memo in self._meals:
            return self._meals[memo]
        cuisines = self.q.cuisines
        k = city_key(FOOD, city)
        everything = (1 << len(cuisines)) - 1
        if k not in self.facts.tables:
            hope: MealTable = {} if self.facts.closed else {m: (0.0, (), 0) for m in range(everything + 1)}
            self._meals[memo] = (hope, frozenset() if self.facts.closed else frozenset({k}))
            return self._meals[memo]
        rows = self.facts.tables[k]
        need, spare = 3 * full, min(len(cuisines), 3)
        price = [self._n(r, "Average Cost") * self.q.people for r in rows]
        listed = [{c.strip() for c in r.get("Cuisines", "").split(",")} for r in rows]  # "among the Cuisines"
        covers = [sum(1 << i for i, c in enumerate(cuisines) if c in kinds) for kinds in listed]
        exact = _cheapest_picks(price, covers, need, need + spare)
        table: MealTable = {}
        for want in range(everything + 1):
            found = [(c, pick) for mask, (c, pick) in exact.items() if mask & want == want]
            if found:
                c, pick = min(found, key=lambda x: (x[0], len(x[1]), x[1]))
                table[want] = (c, tuple(rows[i] for i in pick), len(pick) - need)
        out: tuple[MealTable, frozenset[Key]] = (table, frozenset())
        self._meals[memo] = out
        return out

    def sights(self, city: str, full: int) -> tuple[bool, frozenset[Key]]:
        if full == 0:
            return True, frozenset()
        k = city_key(SIGHT, city)
        if k not in self.facts.tables:
            return (False, frozenset()) if self.facts.closed else (True, frozenset({k}))
        return len(self.facts.tables[k]) >= full, frozenset()

    # -- the whole plan ----------------------------------------------------------

    def families(self) -> list[str]:
        return [f for f in ("drive", "air") if not (f == "drive" and self.q.no_driving)]

    def best(self) -> Best | None:
        q = self.q
        found: Best | None = None
        everything = (1 << len(q.cuisines)) - 1
        for route in itertools.permutations(self.candidates, q.cities):
            for nights in _splits(q.days - 1, q.cities):
                base, unknown = 0.0, set[Key]()
                stays: list[Row | None] = []
                feasible = True
                for city, n in zip(route, nights):
                    c, row, u = self.stay(city, n)
                    ok, u2 = self.sights(city, n - 1)
                    if c == INF or not ok:
                        feasible = False
                        break
                    base += c
                    unknown |= u | u2
                    stays.append(row)
                if not feasible:
                    continue
                options = [(family, *self._legs_of(route, nights, family)) for family in self.families()]
                options = [o for o in options if o[2] != INF]
                if found is not None:  # meals only add cost and hoped facts: skip what cannot beat the best
                    options = [o for o in options if self._better(
                        (base + o[2], self._doubts(frozenset(unknown | o[3])), route, nights, o[0]), found.rank)]
                if not options:
                    continue
                cover = self._cover(route, nights, everything)
                if cover is None:
                    continue
                meal_cost, meal_rows, extras, u3 = cover
                for family, legs, leg_cost, lu in options:
                    total = base + meal_cost + leg_cost
                    u_all = frozenset(unknown | u3 | lu)
                    rank = (total, self._doubts(u_all), route, nights, family)
                    if found is None or self._better(rank, found.rank):
                        found = Best(total, u_all, route, nights, legs, tuple(stays), meal_rows, extras, rank)
        return found

    def _doubts(self, unknown: frozenset[Key]) -> int:
        """How many facts a plan hopes for; greedy, a flight between two cities with no road
        between them (a distance known to be none) counts three times: the sandbox is unlikely
        to know such a flight on a given date either, so plans that hope for one are tried late."""
        if not self.greedy:
            return len(unknown)
        n = 0
        for k in unknown:
            unlikely = k[0] == FLIGHT and any(
                self.facts.costs.get(drive_key(k[1], k[2], mode), 0.0) is None for mode in ("taxi", "self-driving"))
            n += 3 if unlikely else 1
        return n

    def _better(self, a: Rank, b: Rank) -> bool:
        if self.greedy:
            over_a, over_b = a[0] > self.q.budget + 1e-9, b[0] > self.q.budget + 1e-9
            if (over_a, a[1]) != (over_b, b[1]):
                return (over_a, a[1]) < (over_b, b[1])
        return _better(a, b)

    def _legs_of(self, route: tuple[str, ...], nights: tuple[int, ...], family: str
                 ) -> tuple[tuple[Leg, ...], float, set[Key]]:
        stops = (self.q.origin, *route, self.q.origin)
        days = [0]
        for n in nights:
            days.append(days[-1] + n)
        legs: list[Leg] = []
        cost, unknown = 0.0, set[Key]()
        for i in range(len(stops) - 1):
            leg, u = self.leg(stops[i], stops[i + 1], days[i], family)
            legs.append(leg)
            cost += leg.cost
            unknown |= u
        return tuple(legs), cost, unknown

    def _cover(self, route: tuple[str, ...], nights: tuple[int, ...], everything: int
               ) -> tuple[float, tuple[tuple[Row, ...], ...], tuple[int, ...], set[Key]] | None:
        """The cheapest meals of the route covering every asked cuisine (a choice of covered
        cuisines per city): a walk over the cities on the costs alone, the choice read back at
        the end (a search tries thousands of routes)."""
        unknown: set[Key] = set()
        tables: list[MealTable] = []
        for city, n in zip(route, nights):
            table, u = self.meals(city, n - 1)
            unknown |= u
            tables.append(table)
        states: dict[int, float] = {0: 0.0}
        back: list[dict[int, tuple[int, int]]] = []
        for table in tables:
            nxt: dict[int, float] = {}
            step: dict[int, tuple[int, int]] = {}
            for have, c0 in states.items():
                for want, entry in table.items():
                    mask, cost = have | want, c0 + entry[0]
                    if mask not in nxt or cost < nxt[mask]:
                        nxt[mask] = cost
                        step[mask] = (have, want)
            states = nxt
            back.append(step)
        if everything not in states:
            return None
        wants: list[int] = []
        mask = everything
        for step in reversed(back):
            have, want = step[mask]
            wants.append(want)
            mask = have
        wants.reverse()
        chosen = tuple(table[w][1] for table, w in zip(tables, wants))
        extra = tuple(table[w][2] for table, w in zip(tables, wants))
        return states[everything], chosen, extra, unknown


def _cheapest_picks(price: list[float], covers: list[int], least: int, most: int
                    ) -> dict[int, tuple[float, tuple[int, ...]]]:
    """Per exact set of cuisines covered: the cheapest pick of ``least`` to ``most`` distinct
    restaurants (their indices), fewer picks on a tie. A knapsack over (picks, covered) — exact,
    and fast on TravelPlanner's tables of dozens of restaurants, where trying every combination
    is not."""
    INF_PICK: tuple[float, tuple[int, ...]] = (INF, ())
    best: list[dict[int, tuple[float, tuple[int, ...]]]] = [{} for _ in range(most + 1)]
    best[0][0] = (0.0, ())
    for i in sorted(range(len(price)), key=lambda j: (price[j], j)):
        if price[i] == INF:
            continue
        for n in range(most, 0, -1):
            for mask, (c, pick) in list(best[n - 1].items()):
                m2, c2 = mask | covers[i], c + price[i]
                if c2 < best[n].get(m2, INF_PICK)[0] - 1e-12:
                    best[n][m2] = (c2, (*pick, i))
    out: dict[int, tuple[float, tuple[int, ...]]] = {}
    for n in range(least, most + 1):
        for mask, (c, pick) in best[n].items():
            if mask not in out or c < out[mask][0] - 1e-12:
                out[mask] = (c, tuple(sorted(pick)))
    return out


def _better(a: Rank, b: Rank) -> bool:
    """Cheaper (costs within 1e-9 are equal), then fewer facts hoped for, then the first in order."""
    if abs(a[0] - b[0]) > 1e-9:
        return a[0] < b[0]
    return a[1:] < b[1:]


__all__ = ["Best", "Leg", "Search"]
