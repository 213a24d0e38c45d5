"""Itinerary cases: a sandbox and a query drawn from a seed, kept only when the
solver finds a plan; the cheapest plan is stored as the witness with its cost.

Levels follow TravelPlanner: easy = budget only, 1 person; medium = budget + one
of cuisine / room type / house rule, 2-4 people; hard = budget + transportation +
two of the other three (TravelPlanner's hard queries set three local constraints
besides the budget), 2-4 people. Days 3/5/7 visit 1/2/3 cities unless --cities says.
"""

from __future__ import annotations

import datetime
import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...errors import PlanprobeError
from ...schema import Case, CaseMeta
from ..parallel import indexed_cases, suite_lines
from ..travelplanner.cases import TOOLS, TWO_STAGE_SYSTEM
from ..travelplanner.fields import HOUSE_RULES, LEVELS, ROOM_TYPES, QueryFields
from ..travelplanner.rules import MINIMUM_COST
from .scopes import SCOPES
from .solver import Solver
from .world import CUISINES, RESTAURANTS, draw_world

FAMILY = "itinerary"
DAYS = (3, 5, 7)
MAX_DRAWS = 50


@dataclass(frozen=True)
class ItineraryOptions:
    n: int = 100
    seed: int = 0
    levels: tuple[str, ...] = LEVELS
    days: tuple[int, ...] = DAYS
    cities: int | None = None       # cities to visit (default: 1/2/3 for 3/5/7 days)
    sandbox_cities: int = 3            # cities of the destination state in each sandbox
    cost_aware: bool = False           # ask for the cheapest plan (its cost must equal the minimum)

    def check(self) -> None:
        if self.n < 0:
            raise PlanprobeError(f"--n {self.n}: expected a number >= 0")
        for level in self.levels:
            if level not in LEVELS:
                raise PlanprobeError(f"--level {level!r}: expected one of {', '.join(LEVELS)}")
        for d in self.days:
            if d not in DAYS:
                raise PlanprobeError(f"--days {d}: expected one of 3, 5, 7 (TravelPlanner's trip lengths)")
        if not 1 <= self.sandbox_cities <= 8:
            raise PlanprobeError(f"--sandbox-cities {self.sandbox_cities}: expected 1-8")
        if self.cities is not None:
            if not 1 <= self.cities <= 3:
                raise PlanprobeError(f"--cities {self.cities}: expected 1-3")
            if self.cities > self.sandbox_cities:
                raise PlanprobeError(f"--cities {self.cities}: more cities than the sandbox has "
                                     f"(--sandbox-cities {self.sandbox_cities})")
            short = [d for d in self.days if d < self.cities + 1]
            if short:
                raise PlanprobeError(f"--cities {self.cities}: a {short[0]}-day trip cannot visit {self.cities} "
                                     "cities (each needs a night)")
            for d in self.days:
                # days with no travel: d - (cities + 1); one city gets at least its share of them, 3 meals each,
                # and no restaurant may be used twice
                full = -(-(d - self.cities - 1) // self.cities)
                if 3 * full > RESTAURANTS:
                    raise PlanprobeError(
                        f"--cities {self.cities} --days {d}: one city would have {full} days without travel, "
                        f"{3 * full} meals at different restaurants, and a sandbox city has {RESTAURANTS}; "
                        f"visit more cities or take a shorter trip")
        elif max(self.days) // 2 > self.sandbox_cities:
            raise PlanprobeError(f"--days {max(self.days)}: visits {max(self.days) // 2} cities, more than the "
                                 f"sandbox has (--sandbox-cities {self.sandbox_cities})")


def _dates(rng: random.Random, days: int) -> list[str]:
    start = datetime.date(2022, 3, 1) + datetime.timedelta(days=rng.randrange(0, 28))
    return [(start + datetime.timedelta(days=i)).isoformat() for i in range(days)]


def _local(rng: random.Random, level: str) -> dict[str, Any]:
    local: dict[str, Any] = {"house rule": None, "cuisine": None, "room type": None, "transportation": None}
    kinds = ["house rule", "cuisine", "room type"]
    picked = [] if level == "easy" else rng.sample(kinds, 1 if level == "medium" else 2)
    if level == "hard":
        local["transportation"] = rng.choice(("no flight", "no self-driving"))
    for k in picked:
        if k == "house rule":
            local[k] = rng.choice(HOUSE_RULES)
        elif k == "room type":
            local[k] = rng.choice(ROOM_TYPES)
        else:
            local[k] = sorted(rng.sample(CUISINES, rng.randrange(1, 3)))
    return local


def _query(q: dict[str, Any], cities: int, cost_aware: bool) -> str:
    d = q["date"]
    where = q["dest"] + ("" if cities == 1 and q["days"] == 3 else f", visiting {cities} cities")
    people = "one person" if q["people_number"] == 1 else f"{q['people_number']} people"
    parts = [(f"Please plan a {q['days']}-day trip for {people} from {q['org']} to {where}, from {d[0]} to {d[-1]}, "
              f"with a budget of ${q['budget']:g}.")]
    lc = q["local_constraint"]
    if lc["house rule"]:
        parts.append(f"Our accommodation must allow {lc['house rule']}.")
    if lc["room type"]:
        parts.append(f"We want a {lc['room type']}.")
    if lc["cuisine"]:
        parts.append(f"We would like to try {' and '.join(lc['cuisine'])} cuisine.")
    if lc["transportation"]:
        parts.append(f"Transportation: {lc['transportation']}.")
    if cost_aware:
        parts.append(MINIMUM_COST)
    return " ".join(parts)


def make_case(opts: ItineraryOptions, i: int) -> Case:
    """Case ``i`` of the suite: redrawn until the solver proves it solvable."""
    rng = random.Random(f"itinerary:{opts.seed}:{i}")
    level = opts.levels[i % len(opts.levels)]
    days = opts.days[(i // len(opts.levels)) % len(opts.days)]
    k = opts.cities or days // 2
    for _ in range(MAX_DRAWS):
        dates = _dates(rng, days)
        tables = draw_world(rng, opts.sandbox_cities, dates)
        org, pool = tables.pop("_org"), tables.pop("_cities")
        if k == 1 and days == 3:
            pool = [rng.choice(pool)]
            dest = pool[0]
        else:
            dest = tables["cities"][pool[0]]
        fields: dict[str, Any] = {
            "org": org, "dest": dest, "days": days, "visiting_city_number": k, "date": dates,
            "people_number": 1 if level == "easy" else rng.randrange(2, 5), "local_constraint": _local(rng, level),
            "budget": 0, "level": level}
        q = QueryFields(**{**fields, "date": tuple(dates)})
        sol = Solver(q, tables).solve(pool, k)
        if sol is None:
            continue
        cost = sol.cost
        fields["budget"] = cost if opts.cost_aware else float(-(-cost * rng.uniform(1.0, 1.5) // 100) * 100)
        fields["query"] = _query(fields, k, opts.cost_aware)
        scopes = {key: SCOPES[key] for key in SCOPES}
        return Case(
            id=f"itinerary-{opts.seed}-{i:05d}", family=FAMILY, task=f"Query: {fields['query']}",
            system=TWO_STAGE_SYSTEM, tools=TOOLS,
            spec={"mode": "two-stage", "fields": fields, "sandbox": {"kind": "inline", "tables": tables},
                  "reference_plan": sol.plan, "strict": True, "min_cost": cost, "cost_aware": opts.cost_aware,
                  "scopes": scopes},
            meta=CaseMeta(topic=level, seed=opts.seed, difficulty={"days": days, "cities": k,
                                                                  "constraints": sum(v is not None for v in
                                                                                     fields["local_constraint"]
                                                                                     .values())},
                          generator={"family": FAMILY, "sandbox_cities": opts.sandbox_cities},
                          tags=[FAMILY, level] + (["cost-aware"] if opts.cost_aware else [])),
        )
    raise PlanprobeError(f"case {i}: no solvable itinerary in {MAX_DRAWS} draws (try --sandbox-cities higher)")


def generate_cases(opts: ItineraryOptions) -> Iterator[Case]:
    opts.check()
    return indexed_cases(functools.partial(make_case, opts), opts.n)


def generate_lines(opts: ItineraryOptions, workers: int | None = None) -> Iterator[str]:
    """The suite's lines in index order; byte-identical for any number of workers."""
    opts.check()
    return suite_lines(functools.partial(make_case, opts), opts.n, workers, chunk=500)
