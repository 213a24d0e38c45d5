"""Valid (not optimal) plans for the standard domains, built directly in linear time.

Why: optimal search grows exponentially with problem size and even greedy
search slows down on 20+ blocks, but a generated problem of any size must come
with a plan the oracle agent can execute (proof that the case is solvable).
These constructions are the textbook ones:

* Blocksworld — put every block that is not on the table down on the table,
  then build the goal towers bottom-up (blocks the goal does not place on
  another block stay on the table). At most 4 steps per block.
* Logistics — move packages one at a time: the city's truck fetches the
  package to the airport, an airplane flies it to the destination city's
  airport, that city's truck takes it to the destination location.

Both read the problem's atoms (not the generator's internals), so they work
for any problem of the standard domains whose goals are ``on``/``ontable``
(Blocksworld) or ``at`` of packages (Logistics); otherwise they return None.
"""

from __future__ import annotations

from .model import Problem
from .validator import validate

__all__ = ["constructive_plan"]


def constructive_plan(problem: Problem, check: bool = True) -> list[str] | None:
    """A valid plan for a Blocksworld or Logistics problem, or None when the problem
    is of another domain or has goals these constructions do not handle. ``check``
    validates the plan before returning it (the generators skip that for speed: the
    constructions are tested on thousands of problems)."""
    actions = {a.name for a in problem.domain.actions}
    if actions == {"pick-up", "put-down", "stack", "unstack"}:
        plan = _blocksworld(problem)
    elif actions == {"load-truck", "load-airplane", "unload-truck", "unload-airplane", "drive-truck",
                     "fly-airplane"}:
        plan = _logistics(problem)
    else:
        return None
    if plan is None or (check and not validate(problem, plan).valid):
        return None
    return plan


def _blocksworld(problem: Problem) -> list[str] | None:
    init = set(problem.init)
    on = {a.args[0]: a.args[1] for a in init if a.predicate == "on"}
    holding = [a.args[0] for a in init if a.predicate == "holding"]
    if any(not lit.positive or lit.atom.predicate not in ("on", "ontable") for lit in problem.goal):
        return None
    plan: list[str] = []
    if holding:
        plan.append(f"(put-down {holding[0]})")
    above = {below: top for top, below in on.items()}
    # unstack towers from the top: a block is clear when nothing is on it
    for block in sorted(on):
        if block in above:
            continue  # not a top block
        x = block
        while x in on:
            plan += [f"(unstack {x} {on[x]})", f"(put-down {x})"]
            x = on[x]
    goal_on = {lit.atom.args[0]: lit.atom.args[1] for lit in problem.goal if lit.atom.predicate == "on"}
    goal_above = {below: top for top, below in goal_on.items()}
    if len(goal_above) != len(goal_on):
        return None  # two blocks wanted on one block
    for bottom in sorted({b for b in goal_on.values() if b not in goal_on}):
        x = bottom
        while x in goal_above:
            top = goal_above[x]
            plan += [f"(pick-up {top})", f"(stack {top} {x})"]
            x = top
    return plan


def _logistics(problem: Problem) -> list[str] | None:
    kinds: dict[str, set[str]] = {}
    at: dict[str, str] = {}
    city_of: dict[str, str] = {}
    for a in problem.init:
        if len(a.args) == 1:
            kinds.setdefault(a.predicate, set()).add(a.args[0])
        elif a.predicate == "at":
            at[a.args[0]] = a.args[1]
        elif a.predicate == "in-city":
            city_of[a.args[0]] = a.args[1]
        elif a.predicate == "in":
            return None  # packages start loaded: not handled
    trucks, planes = sorted(kinds.get("truck", ())), sorted(kinds.get("airplane", ()))
    airports = kinds.get("airport", set())
    airport_of = {city_of[x]: x for x in sorted(airports, reverse=True) if x in city_of}
    truck_of: dict[str, str] = {}
    for t in trucks:
        if t in at and at[t] in city_of:
            truck_of.setdefault(city_of[at[t]], t)
    plan: list[str] = []

    def drive(truck: str, to: str) -> None:
        if at[truck] != to:
            plan.append(f"(drive-truck {truck} {at[truck]} {to} {city_of[to]})")
            at[truck] = to

    def by_truck(pkg: str, to: str) -> bool:
        city = city_of.get(at[pkg])
        truck = truck_of.get(city) if city is not None else None
        if truck is None or city_of.get(to) != city:
            return False
        if at[pkg] == to:
            return True
        drive(truck, at[pkg])
        plan.append(f"(load-truck {pkg} {truck} {at[pkg]})")
        drive(truck, to)
        plan.append(f"(unload-truck {pkg} {truck} {to})")
        at[pkg] = to
        return True

    for lit in problem.goal:
        if not lit.positive or lit.atom.predicate != "at":
            return None
        pkg, dest = lit.atom.args
        if pkg not in at or dest not in city_of:
            return None
        src_city, dst_city = city_of.get(at[pkg]), city_of[dest]
        if src_city == dst_city:
            if not by_truck(pkg, dest):
                return None
            continue
        if not planes or src_city not in airport_of or dst_city not in airport_of:
            return None
        if not by_truck(pkg, airport_of[src_city]):
            return None
        plane = planes[0]
        here, there = airport_of[src_city], airport_of[dst_city]
        if at[plane] != here:
            plan.append(f"(fly-airplane {plane} {at[plane]} {here})")
        plan.append(f"(load-airplane {pkg} {plane} {here})")
        plan.append(f"(fly-airplane {plane} {here} {there})")
        plan.append(f"(unload-airplane {pkg} {plane} {there})")
        at[plane] = at[pkg] = there
        if not by_truck(pkg, dest):
            return None
    return plan

