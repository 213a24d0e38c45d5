"""Problems and plans for the eight tasks, in the plain standard domains.

* ``plan_for`` — an optimal plan (the built-in A*, within a node budget, so the
  result is the same on every machine), else a constructive one.
* ``generalizable`` — PlanBench's plan-generalization problems (seed 004 §6):
  problems one fixed program solves, returned with the program's plan.
  Blocksworld: every block on the table, the goal one tower of them all — the
  program picks up the next block and stacks it, bottom to top. Logistics: a
  chain in one city — each package is delivered by the truck to where the next
  package waits, which the truck picks up there; the last one goes to the
  airport and is flown to the other city's airport.
* ``unexpected_event`` — PlanBench's replanning events (seed 004 §6, its
  ``Executor.replanning_domain_specific``): after a random prefix of the plan
  that leaves a block held, the block lands on a random clear block and the hand
  is empty (Blocksworld); after one that leaves packages in vehicles, they
  appear at random locations other than their goal (Logistics).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ...errors import PlanprobeError
from ...pddl.constructive import constructive_plan
from ...pddl.errors import PlannerTimeoutError
from ...pddl.generators import standard_domain
from ...pddl.grounding import ground
from ...pddl.model import Atom, PDDLLiteral, Problem, TypedName
from ...pddl.planner import solve
from ...pddl.validator import validate

__all__ = ["Event", "generalizable", "optimal_plan", "plan_for", "states_along", "unexpected_event"]

# A* expansions per optimal plan: Blocksworld with h_max, a fixed number; Logistics with LM-cut,
# whose expansions cost about actions² operations, a budget of work (about 5 s at worst) — in
# expansions, not seconds, so the outcome is the same on every machine
NODE_LIMIT = {"blocksworld": 20_000, "logistics": 5_000}
LMCUT_WORK = 6_000_000


def _base(problem: Problem) -> str:
    return "blocksworld" if problem.domain.action("stack") is not None else "logistics"


def node_budget(problem: Problem) -> int:
    base = _base(problem)
    if base == "blocksworld":
        return NODE_LIMIT[base]
    actions = len(ground(problem).actions())
    return max(50, min(NODE_LIMIT[base], LMCUT_WORK // max(1, actions) ** 2))


def optimal_plan(problem: Problem) -> list[str] | None:
    """An optimal plan, or None when the search needs more than the node budget."""
    base = _base(problem)
    try:
        return list(solve(problem, heuristic="lmcut" if base == "logistics" else "hmax", time_limit=None,
                          node_limit=node_budget(problem)).steps)
    except PlannerTimeoutError:
        return None


def plan_for(problem: Problem, optimal: bool = False) -> tuple[list[str], bool]:
    """(a valid plan, whether it is optimal). ``optimal``: an optimal plan is required
    (t2); a problem too large for the budget is then an error naming the fix."""
    plan = optimal_plan(problem)
    if plan is not None:
        return plan, True
    if optimal:
        raise PlanprobeError(f"problem {problem.name!r}: no optimal plan within {node_budget(problem):,} "
                             "expansions of the built-in A*; cost-optimal planning (t2) needs smaller problems "
                             "(--blocks, --packages)")
    plan = constructive_plan(problem)
    if plan is None:  # pragma: no cover - the constructions cover every generated problem
        raise PlanprobeError(f"problem {problem.name!r}: no plan found")
    return plan, False


def states_along(problem: Problem, plan: list[str]) -> list[frozenset[Atom]]:
    """The states before and after each step (len(plan) + 1 of them)."""
    grounded = ground(problem)
    state = grounded.init
    out = [grounded.decode(state)]
    for step in plan:
        name, *args = step.strip("()").split()
        state = grounded.ground(name, args).apply(state)
        out.append(grounded.decode(state))
    return out


# ---------------------------------------------------------------------------
# plan generalization (t5)
# ---------------------------------------------------------------------------

def generalizable(base: str, size: int, rng: random.Random) -> tuple[Problem, list[str]]:
    """A problem the task's fixed program solves, and the program's plan. ``size``:
    blocks (Blocksworld, at least 2) or packages in the chain (Logistics, at least 1)."""
    if base == "blocksworld":
        return _tower(max(2, size), rng)
    return _chain(max(1, size), rng)


def _tower(n: int, rng: random.Random) -> tuple[Problem, list[str]]:
    from ...pddl.generators import block_names

    blocks = block_names(n)
    order = list(blocks)
    rng.shuffle(order)  # bottom to top
    init = [Atom("handempty")] + [Atom("ontable", (b,)) for b in blocks] + [Atom("clear", (b,)) for b in blocks]
    goal = [Atom("on", (order[i + 1], order[i])) for i in range(n - 1)]
    rng.shuffle(goal)
    plan = []
    for i in range(1, n):
        plan += [f"(pick-up {order[i]})", f"(stack {order[i]} {order[i - 1]})"]
    problem = Problem(name=f"bw-generalized-{n}", domain=standard_domain("blocksworld"),
                      objects=tuple(TypedName(b) for b in blocks), init=tuple(init),
                      goal=tuple(PDDLLiteral(a) for a in goal))
    return problem, plan


def _chain(k: int, rng: random.Random) -> tuple[Problem, list[str]]:
    stops = [f"l0-{i}" for i in range(1, k + 1)]
    rng.shuffle(stops)  # the order the truck visits them in
    airports, cities = ["l0-0", "l1-0"], ["c0", "c1"]
    locations = ["l0-0", *sorted(stops, key=lambda x: int(x.split("-")[1])), "l1-0", "l1-1"]
    packages = [f"p{i}" for i in range(k)]
    init = [Atom("airplane", ("a0",)), *(Atom("city", (c,)) for c in cities), Atom("truck", ("t0",)),
            Atom("truck", ("t1",))]
    for loc in locations:
        init += [Atom("location", (loc,)), Atom("in-city", (loc, "c0" if loc.startswith("l0") else "c1"))]
    init += [Atom("airport", (a,)) for a in airports]
    init += [Atom("obj", (p,)) for p in packages]
    init += [Atom("at", ("t0", stops[0])), Atom("at", ("t1", "l1-0")), Atom("at", ("a0", "l0-0"))]
    init += [Atom("at", (p, stops[i])) for i, p in enumerate(packages)]
    goal = [Atom("at", (p, stops[i + 1])) for i, p in enumerate(packages[:-1])] + [Atom("at", (packages[-1], "l1-0"))]
    plan = []
    for i, p in enumerate(packages):
        here = stops[i]
        there = stops[i + 1] if i + 1 < k else "l0-0"
        plan += [f"(load-truck {p} t0 {here})", f"(drive-truck t0 {here} {there} c0)", f"(unload-truck {p} t0 {there})"]
    last = packages[-1]
    plan += [f"(load-airplane {last} a0 l0-0)", "(fly-airplane a0 l0-0 l1-0)", f"(unload-airplane {last} a0 l1-0)"]
    problem = Problem(name=f"logistics-generalized-{k}", domain=standard_domain("logistics"),
                      objects=tuple(TypedName(o) for o in ["a0", *cities, "t0", "t1", *locations, *packages]),
                      init=tuple(init), goal=tuple(PDDLLiteral(a) for a in goal))
    assert validate(problem, plan).valid, "the chain program must solve its problem"
    return problem, plan


# ---------------------------------------------------------------------------
# replanning (t6)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Event:
    """After ``step`` (1-based) of the plan, ``became_true`` / ``became_false`` changed;
    ``changed`` is the problem from the state that results."""

    step: int
    became_true: tuple[Atom, ...]
    became_false: tuple[Atom, ...]
    changed: Problem


def unexpected_event(problem: Problem, plan: list[str], rng: random.Random) -> Event | None:
    """A PlanBench-style unexpected event during ``plan`` after which the goal does not
    already hold (so the new plan is not empty); None when no prefix leaves room for one."""
    states = states_along(problem, plan)
    base = _base(problem)
    make = _block_event if base == "blocksworld" else _package_event
    steps = list(range(1, len(plan)))  # PlanBench: a prefix of 1 … len-1 steps
    rng.shuffle(steps)
    for k in steps:
        made = make(problem, states[k], rng)
        if made is None:
            continue
        true, false = made
        atoms = (states[k] | set(true)) - set(false)
        changed = replace(problem, init=tuple(sorted(atoms)))
        event = Event(k, tuple(sorted(true)), tuple(sorted(false)), changed)
        if not ground(changed).goal_reached(ground(changed).init):
            return event
    return None


def _block_event(problem: Problem, state: frozenset[Atom], rng: random.Random):
    held = [a.args[0] for a in state if a.predicate == "holding"]
    if not held:
        return None
    x = held[0]
    clear = sorted(a.args[0] for a in state if a.predicate == "clear" and a.args[0] != x)
    if not clear:
        return None
    y = rng.choice(clear)
    return ([Atom("on", (x, y)), Atom("handempty"), Atom("clear", (x,))],
            [Atom("holding", (x,)), Atom("clear", (y,))])


def _package_event(problem: Problem, state: frozenset[Atom], rng: random.Random):
    inside = sorted(a for a in state if a.predicate == "in")
    if not inside:
        return None
    locations = sorted(a.args[0] for a in problem.init if a.predicate == "location")
    goal_at = {lit.atom.args[0]: lit.atom.args[1] for lit in problem.goal if lit.atom.predicate == "at"}
    true, false = [], []
    for a in inside:
        p = a.args[0]
        options = [loc for loc in locations if loc != goal_at.get(p)]
        true.append(Atom("at", (p, rng.choice(options))))
        false.append(a)
    return true, false
