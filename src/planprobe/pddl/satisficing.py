"""A fast, non-optimal planner: greedy best-first search with the additive heuristic.

Why: the built-in A* (``planner.solve``) is optimal but its search grows
quickly (Blocksworld with 8+ blocks, Logistics with 3 cities and 3 packages
take seconds to minutes). Where any valid plan will do — the oracle agent of
the agent family on a large problem — greedy search with h_add finds one in
milliseconds. Deterministic: ties are broken by insertion order.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable

from .bits import bits
from .budget import Budget
from .errors import PlannerTimeoutError, UnsolvableError
from .grounding import GroundProblem, ground
from .model import Problem
from .planner import PlanResult

__all__ = ["greedy_plan"]

INF = float("inf")



def greedy_plan(problem: Problem | GroundProblem, *, time_limit: float | None = 60.0,
                node_limit: int | None = None, clock: Callable[[], float] = time.monotonic) -> PlanResult:
    """A valid (not necessarily shortest) plan, by greedy best-first search on h_add.

    ``time_limit`` bounds the whole call, grounding included (``clock`` can be
    injected). Raises ``UnsolvableError`` when the reachable state space holds no
    goal state and ``PlannerTimeoutError`` when a limit runs out."""
    gp = problem if isinstance(problem, GroundProblem) else ground(problem)
    budget = Budget(time_limit, clock=clock, label=gp.problem.filename)
    if gp.goal_impossible:
        raise UnsolvableError(f"{gp.problem.filename}: unsolvable: a goal equality is false")
    budget.stage = "grounding"
    actions = gp.actions(budget)
    budget.stage = "searching"
    n_atoms = len(gp.atoms)
    table = [(bits(a.pre_pos), bits(a.add)) for a in actions]
    goal_pos, goal_neg = gp.goal_pos, gp.goal_neg
    goal_idx = bits(goal_pos)

    def h(state: int) -> float:
        cost = [INF] * n_atoms
        for i in bits(state):
            cost[i] = 0
        changed = True
        while changed:
            changed = False
            budget.tick(len(table))
            for pre, add in table:
                c: float = 1
                for i in pre:
                    c += cost[i]
                if c == INF:
                    continue
                for j in add:
                    if c < cost[j]:
                        cost[j] = c
                        changed = True
        total: float = 0
        for g in goal_idx:
            total += cost[g]
        # negative goals are not estimated (0): the heuristic only guides, it need not be admissible
        return total

    def reached(state: int) -> bool:
        return state & goal_pos == goal_pos and not state & goal_neg

    init = gp.init
    parent: dict[int, tuple[int, object] | None] = {init: None}
    h0 = h(init)
    if h0 == INF:
        raise UnsolvableError(f"{gp.problem.filename}: unsolvable: the goal cannot be reached even with delete "
                              "effects ignored")
    succ = [(a.pre_pos, a.pre_neg, a.keep, a.add, a) for a in actions]
    open_list = [(h0, 0, init)]
    counter = expanded = 0
    while open_list:
        _, _, state = heapq.heappop(open_list)
        if reached(state):
            steps = []
            while (link := parent[state]) is not None:
                prev, a = link
                steps.append(str(a))
                state = prev
            return PlanResult(tuple(reversed(steps)), "builtin gbfs(hadd)", False, expanded, counter,
                              budget.elapsed())
        expanded += 1
        if node_limit is not None and expanded > node_limit:
            raise PlannerTimeoutError(f"{gp.problem.filename}: no plan found within {node_limit:,} expansions")
        budget.tick(len(succ))
        for pre, neg, keep, add, a in succ:
            if state & pre == pre and not state & neg:
                nxt = (state & keep) | add
                if nxt in parent:
                    continue
                parent[nxt] = (state, a)
                hn = h(nxt)
                if hn == INF:
                    continue
                counter += 1
                heapq.heappush(open_list, (hn, counter, nxt))
    raise UnsolvableError(f"{gp.problem.filename}: unsolvable: the reachable state space holds no goal state "
                          f"({expanded:,} states expanded)")
