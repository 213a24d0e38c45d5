"""Cost-optimal planning with action costs and composite actions (A* with LM-cut).

Why: the ``cost`` robustness variant of PDDL cases (``docs/robustness.md``) prices
every action schema and adds *composites* — one call that does an action of schema
A and then, immediately after it, one of schema B, for less than the two. Its
oracle is a valid plan at the exact minimum total cost, so the planner must be
optimal under those costs.

The search: A* (with reopening) over the same ``SearchTask`` as ``planner.py``. A
state's successors are every applicable action (its schema's cost) and every
composite: an applicable action ``a1`` of schema A, then an action ``a2`` of schema
B applicable in the state after ``a1`` (the composite's cost). So a composite is the
sequential composition, and its second half is checked in the state after the first.

The heuristic: LM-cut with action costs (``lmcut.py``) on the base actions, with
*reduced* costs ``r``: each composite's cost is shared between its halves in
proportion to their own costs, ``floor(c(AB) * c(X) / (c(A) + c(B)))``, and ``r(X)`` is
the least of ``c(X)`` and every share of X. Every composite then costs at least ``r`` of
its two halves (the shares sum to at most its cost), so any plan with composites costs at least the ``r``-cost of the plan of
its base actions, which LM-cut under ``r`` does not overestimate: admissible, so the
first goal state popped is optimal.

Relevance pruning (``SearchTask``) stays exact when every composite costs more than
each of its halves (true of every composite the variant draws: the saving is below
the cheaper half's cost): dropping an irrelevant action from a plan, or the
irrelevant half of a composite, keeps it valid and makes it cheaper. Otherwise the
search keeps every action.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .budget import Budget
from .errors import PlannerTimeoutError, UnsolvableError
from .grounding import GroundProblem, State, ground
from .lmcut import INF, LMCut
from .model import Problem
from .planner import _limit_message
from .relaxed import require_relaxed_goal
from .search_task import SearchTask

__all__ = ["CompositeAction", "CostPlan", "CostStep", "reduced_costs", "solve_costs"]


@dataclass(frozen=True)
class CompositeAction:
    """One call doing an action of schema ``first`` then one of schema ``second``."""

    name: str
    first: str  # action schema names, as in the domain
    second: str
    cost: int


@dataclass(frozen=True)
class CostStep:
    """A step of a cost plan: ``name`` is the action's schema or the composite's name;
    ``actions`` the PDDL steps it does (one, or two for a composite)."""

    name: str
    actions: tuple[str, ...]
    cost: int


@dataclass(frozen=True)
class CostPlan:
    steps: tuple[CostStep, ...]
    cost: int
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0

    @property
    def actions(self) -> list[str]:
        """The plan as PDDL steps, composites unfolded (what a validator checks)."""
        return [a for s in self.steps for a in s.actions]


def reduced_costs(costs: Mapping[str, int], composites: Sequence[CompositeAction]) -> dict[str, int]:
    """The heuristic's per-schema costs: no more than the schema's own cost, and any two
    halves of a composite together no more than the composite (see the module doc)."""
    out = dict(costs)
    for c in composites:
        whole = costs[c.first] + costs[c.second]
        for half in (c.first, c.second):
            share = c.cost // 2 if whole == 0 else c.cost * costs[half] // whole
            out[half] = min(out[half], share)
    return out


MAX_PARTITIONS = 64  # cost partitions tried at the initial state


def partitions(costs: Mapping[str, int], composites: Sequence[CompositeAction]) -> list[dict[str, int]]:
    """Admissible per-schema costs (module doc): the proportional shares first, then each way of
    giving every composite's whole saving to one of its halves (at most ``MAX_PARTITIONS``)."""
    out = [reduced_costs(costs, composites)]
    savings = [(c, max(0, costs[c.first] + costs[c.second] - c.cost)) for c in composites]
    for bits in range(min(1 << len(composites), MAX_PARTITIONS)):
        r = dict(costs)
        for k, (c, saving) in enumerate(savings):
            half = c.second if (bits >> k) & 1 else c.first
            other = c.first if half == c.second else c.second
            if half == other:  # an action after itself: half the composite each
                r[half] = min(r[half], c.cost // 2)
            else:  # the other half keeps its cost (at most the composite's), this one takes the rest
                r[other] = min(r[other], c.cost)
                r[half] = min(r[half], max(0, costs[half] - saving), c.cost - r[other])
        out.append(r)
    return out


def _best_partition(task: SearchTask, costs: Mapping[str, int], composites: Sequence[CompositeAction],
                    make: Callable[[dict[str, int]], LMCut]) -> LMCut:
    """The LM-cut whose cost partition gives the highest estimate of the initial state (the
    first on ties): all are admissible, the best informed one at the start is kept."""
    best: LMCut | None = None
    best_h = -1.0
    for r in partitions(costs, composites):
        h = make(r)
        value = h(task.init)
        if value > best_h:
            best, best_h = h, value
    assert best is not None
    return best


def _check(domain_actions: set[str], costs: Mapping[str, int], composites: Sequence[CompositeAction]) -> None:
    missing = sorted(domain_actions - set(costs))
    if missing:
        raise ValueError(f"costs: no cost for the action(s) {', '.join(missing)}")
    for name, c in costs.items():
        if c < 0:
            raise ValueError(f"costs: {name} costs {c}; costs must be non-negative")
    for comp in composites:
        for half in (comp.first, comp.second):
            if half not in domain_actions:
                raise ValueError(f"composite {comp.name}: {half!r} is not an action of the domain")
        if comp.cost < 0:
            raise ValueError(f"composite {comp.name}: cost {comp.cost} is negative")


def solve_costs(problem: Problem | GroundProblem, costs: Mapping[str, int],
                composites: Sequence[CompositeAction] = (), *, time_limit: float | None = 60.0,
                node_limit: int | None = None, heuristic: str = "lmcut",
                clock: Callable[[], float] = time.monotonic) -> CostPlan:
    """A plan of minimum total cost: ``costs`` maps every action schema to its cost,
    ``composites`` are extra moves (module doc). ``heuristic`` is ``lmcut`` or ``blind``
    (uniform-cost search, for cross-checks). Raises ``UnsolvableError`` /
    ``PlannerTimeoutError`` as ``planner.solve`` does."""
    if heuristic not in ("lmcut", "blind"):
        raise ValueError(f"heuristic {heuristic!r}: expected lmcut or blind")
    budget = Budget(time_limit, clock=clock)
    gp = problem if isinstance(problem, GroundProblem) else ground(problem)
    budget.label = gp.problem.filename
    _check({a.name for a in gp.domain.actions}, costs, composites)
    if gp.goal_impossible:
        raise UnsolvableError(f"{gp.problem.filename}: unsolvable: a goal equality is false")
    budget.stage = "grounding"
    actions = gp.actions(budget)
    budget.stage = "preparing the search"
    require_relaxed_goal(gp, actions, budget)
    prune = all(c.cost >= costs[c.first] and c.cost >= costs[c.second] for c in composites)
    task = SearchTask(gp, actions, budget, prune=prune)
    h: Callable[[State], float]
    if heuristic == "lmcut":
        pres, adds, goal = task.ordered_conditions()
        h = _best_partition(task, costs, composites, lambda r: LMCut(
            pres, adds, goal, len(gp.atoms), budget, costs=[r[a.name] for a in task.actions]))
    else:
        h = _zero  # uniform-cost search
    budget.stage = "searching"
    search = _CostSearch(task, costs, composites, h, budget)
    try:
        found = search.run(node_limit)
    except _NodeLimit:
        raise PlannerTimeoutError(_limit_message(gp, f"the node limit of {node_limit:,} expansions",
                                                 search.expanded)) from None
    except PlannerTimeoutError:
        raise PlannerTimeoutError(_limit_message(gp, f"the time limit of {budget.time_limit:g} s",
                                                 search.expanded)) from None
    if found is None:
        raise UnsolvableError(f"{gp.problem.filename}: unsolvable: the search space is exhausted "
                              f"({search.expanded:,} states expanded) without reaching the goal")
    total, steps = found
    return CostPlan(tuple(steps), total, search.expanded, search.generated, budget.elapsed())


def _zero(state: State) -> float:
    return 0


class _NodeLimit(Exception):
    pass


class _CostSearch:
    """A* with reopening; ties on f go to the deeper node (larger g), then the older one."""

    def __init__(self, task: SearchTask, costs: Mapping[str, int], composites: Sequence[CompositeAction],
                 h: Callable[[State], float], budget: Budget):
        self.task, self.h, self.budget = task, h, budget
        self.cost = [costs[a.name] for a in task.actions]
        by_schema: dict[str, list[int]] = {}
        for n, a in enumerate(task.actions):
            by_schema.setdefault(a.name, []).append(n)
        # per composite: (its index, the first half's action indexes as a set, the second's schema)
        self.composites = [(k, frozenset(by_schema.get(c.first, ())), c.second, c.cost)
                           for k, c in enumerate(composites)]
        self.comp_list = list(composites)
        self.schema = [a.name for a in task.actions]
        self.expanded = self.generated = 0

    def successors(self, state: State) -> list[tuple[int, State, tuple[int, ...], int]]:
        """(cost, next state, action indexes, composite index or -1), in a fixed order."""
        task, keep, add = self.task, self.task.keep, self.task.add
        out: list[tuple[int, State, tuple[int, ...], int]] = []
        applicable = task.applicable(state)
        for n in applicable:
            out.append((self.cost[n], (state & keep[n]) | add[n], (n,), -1))
        if self.composites:
            after: dict[int, tuple[State, list[int]]] = {}  # first half -> (its state, what applies then)
            for k, firsts, second, cost in self.composites:
                for n in applicable:
                    if n not in firsts:
                        continue
                    hit = after.get(n)
                    if hit is None:
                        mid = (state & keep[n]) | add[n]
                        hit = after[n] = (mid, task.applicable(mid))
                    mid, then = hit
                    for m in then:
                        if self.schema[m] == second:
                            out.append((cost, (mid & keep[m]) | add[m], (n, m), k))
        return out

    def run(self, node_limit: int | None) -> tuple[int, list[CostStep]] | None:
        task, h, tick = self.task, self.h, self.budget.tick
        init = task.init
        h0 = h(init)
        if h0 == INF:
            return None
        best_g: dict[State, int] = {init: 0}
        parent: dict[State, tuple[State, tuple[int, ...], int, int]] = {}
        h_cache: dict[State, float] = {init: h0}
        counter = 0
        open_list: list = [(h0, 0, counter, init)]
        while open_list:
            _, neg_g, _, state = heapq.heappop(open_list)
            g = -neg_g
            if g > best_g[state]:
                continue
            if task.goal_reached(state):
                return g, self._steps(state, parent)
            if node_limit is not None and self.expanded >= node_limit:
                raise _NodeLimit
            tick(64)
            self.expanded += 1
            for cost, nxt, moves, k in self.successors(state):
                g1 = g + cost
                old = best_g.get(nxt)
                if old is not None and old <= g1:
                    continue
                hn = h_cache.get(nxt)
                if hn is None:
                    hn = h_cache[nxt] = h(nxt)
                if hn == INF:
                    continue
                self.generated += 1
                best_g[nxt] = g1
                parent[nxt] = (state, moves, k, cost)
                counter += 1
                heapq.heappush(open_list, (g1 + hn, -g1, counter, nxt))
        return None

    def _steps(self, state: State, parent: dict) -> list[CostStep]:
        actions = self.task.actions
        steps = []
        while state != self.task.init:
            state, moves, k, cost = parent[state]
            name = self.comp_list[k].name if k >= 0 else actions[moves[0]].name
            steps.append(CostStep(name, tuple(str(actions[n]) for n in moves), cost))
        return steps[::-1]
