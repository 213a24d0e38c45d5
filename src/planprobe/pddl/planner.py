"""A built-in optimal planner: A* over int-bitset states.

Why built in: cost-optimal reference plans are needed for every generated
case (PlanBench's t2 scores a plan against the optimum) and for small problems
starting a Fast Downward process costs more than the search itself. For large
problems use ``fast_downward.solve`` (the optional ``planner`` extra); see
docs/pddl.md for when to switch.

Heuristics (all admissible, so A* returns an optimal plan; actions have unit cost):

* ``hmax`` (the library default, kept for reproducible reference plans) — the
  first layer of the delete-relaxed planning graph in which all goal atoms
  appear; computed with bit masks; cheapest per state, weakest.
* ``lmcut`` (the CLI default) — LM-cut (``lmcut.py``), with landmarks inherited
  from parent to child and states re-queued when their fresh estimate is higher
  (see ``_Search``): the choice for IPC-style tasks (Depot, Elevators, Freecell).
* ``blind`` — 0 at goal states, else 1 (breadth-first in effect).

The search runs on ``SearchTask``: relevant actions only, states cut down to
relevant atoms, an index of applicable actions.

Limits: ``time_limit`` seconds for the whole call — grounding, set-up and search
all check a ``Budget`` — and ``node_limit`` expansions; hitting one raises
``PlannerTimeoutError``. An exhausted search, or a goal unreachable even with
delete effects ignored, raises ``UnsolvableError``.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass

from .budget import Budget
from .errors import NodeLimitError, PlannerTimeoutError, UnsolvableError
from .grounding import GroundProblem, State, ground
from .lmcut import INF, LMCut
from .model import Problem
from .relaxed import require_relaxed_goal
from .search_task import SearchTask

__all__ = ["HEURISTICS", "TIES", "PlanResult", "solve"]

HEURISTICS = ("hmax", "lmcut", "blind")
TIES = ("fifo", "lifo")  # among states of equal f and g: the older first (default) or the newer


@dataclass(frozen=True)
class PlanResult:
    """A plan and how it was found. ``steps`` are PDDL text like ``(unstack a b)``;
    ``choice`` says why ``planner`` was used when it was chosen automatically
    (``auto_planner.solve_auto``), else it is empty."""

    steps: tuple[str, ...]
    planner: str
    optimal: bool
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0
    choice: str = ""

    @property
    def cost(self) -> int:
        return len(self.steps)  # unit costs

    def text(self) -> str:
        """The plan as a ``sas_plan``-style file (VAL and ``planprobe pddl validate`` read it)."""
        return "".join(f"{s}\n" for s in self.steps) + f"; cost = {self.cost} (unit cost)\n"


def _hmax(task: SearchTask, budget: Budget) -> Callable[[State], float]:
    """The first layer of the delete-relaxed planning graph holding every goal atom."""
    goal = task.goal_pos
    pre_add = [(pre, add) for pre, add in zip(task.pre_pos, task.add)]

    def h(state: State) -> float:
        if state & goal == goal:
            return 0
        reached, remaining, level = state, pre_add, 0
        while True:
            new, rest = reached, []
            for pre, add in remaining:
                if reached & pre == pre:
                    new |= add
                else:
                    rest.append((pre, add))
            budget.tick(len(remaining))
            if new == reached:
                return INF
            level += 1
            if new & goal == goal:
                return level
            reached, remaining = new, rest

    return h


def _blind(task: SearchTask, budget: Budget) -> Callable[[State], float]:
    goal_reached = task.goal_reached
    return lambda s: 0 if goal_reached(s) else 1


def _lmcut(task: SearchTask, budget: Budget) -> Callable[[State], float]:
    pres, adds, goal = task.ordered_conditions()
    return LMCut(pres, adds, goal, len(task.gp.atoms), budget)


_MAKE = {"hmax": _hmax, "lmcut": _lmcut, "blind": _blind}


def solve(problem: Problem | GroundProblem, *, heuristic: str = "hmax", time_limit: float | None = 60.0,
          node_limit: int | None = None, clock: Callable[[], float] = time.monotonic,
          work_limit: int | None = None, ties: str = "fifo") -> PlanResult:
    """An optimal (shortest) plan for ``problem``, found by A*.

    ``time_limit`` bounds everything this call does — grounding, set-up and
    search — measured with ``clock`` (injectable for tests). ``work_limit`` caps
    expansions × relevant ground actions (a deterministic measure of the search's
    work: LM-cut's cost per state grows with the actions), on top of ``node_limit``.
    ``ties`` orders states of equal f and g: ``fifo`` (the library default, kept so
    reference plans stay the same) or ``lifo`` (the newest first: dives along a
    plateau of equal f; the CLI's and ``solve_auto``'s choice, see ``_Search``).
    Raises ``UnsolvableError`` when no plan exists, ``NodeLimitError`` (a
    ``PlannerTimeoutError``) when ``node_limit`` or ``work_limit`` runs out and
    ``PlannerTimeoutError`` when ``time_limit`` (seconds) does."""
    if heuristic not in _MAKE:
        raise ValueError(f"heuristic {heuristic!r}: expected one of {', '.join(HEURISTICS)}")
    if ties not in TIES:
        raise ValueError(f"ties {ties!r}: expected one of {', '.join(TIES)}")
    budget = Budget(time_limit, clock=clock)
    gp = problem if isinstance(problem, GroundProblem) else ground(problem)
    budget.label = gp.problem.filename
    if gp.goal_impossible:
        raise UnsolvableError(f"{gp.problem.filename}: unsolvable: a goal equality is false "
                              f"({' '.join(str(lit) for lit in gp.unmet_goals(gp.init))})")
    budget.stage = "grounding"
    actions = gp.actions(budget)
    budget.stage = "preparing the search"
    budget.check()
    require_relaxed_goal(gp, actions, budget)
    task = SearchTask(gp, actions, budget)
    if work_limit is not None:
        by_work = max(1, work_limit // max(1, len(task.actions)))
        node_limit = by_work if node_limit is None else min(node_limit, by_work)
    h = _MAKE[heuristic](task, budget)
    budget.stage = "searching"
    budget.check()
    return _astar(task, h, heuristic, budget, node_limit, ties == "lifo")


class _Search:
    """A* with reopening; ties on f go to the deeper node, then to the older one
    (``lifo``: the newer one). LIFO matters on plateaus where many states share the
    optimal f: on IPC Woodworking 3 every expanded state has f = 17 = h*(init) and
    FIFO expands 4,847 states where LIFO, diving after the newest child, expands 17
    (Fast Downward, FIFO in its own operator order: 18); elsewhere the two orders
    expand within a few percent of each other (docs/BENCHMARKS.md).

    With a heuristic that reports its landmarks (LM-cut), a child inherits every
    landmark of its parent that does not contain the action leading to it (any
    plan from the child, prefixed by that action, is a plan from the parent, so it
    uses an action of each such landmark) and its own LM-cut starts from there —
    after Pommerening & Helmert's incremental LM-cut (ICAPS 2013). A child's
    estimate is also at least its parent's minus one. Which landmarks a parent
    passes on depends on the task:

    * *stored* (the start): those its own evaluation found — inherited and new —
      so an expansion costs no evaluation of its own;
    * *fresh*: recomputed from scratch at each expansion; if the fresh estimate is
      higher than the one the state was queued with, the state goes back to the
      queue instead of being expanded.

    Every ``SAMPLE_EVERY``-th expansion in stored mode is also evaluated fresh,
    only to measure: once ``SAMPLES`` samples are in and at least a third of them
    found the stored estimate ``STALE`` or more below the fresh one (landmarks
    passed down many generations can go stale), the search switches to fresh mode
    for good. On IPC's Depot 3, Freecell 4–5 and Elevators 5 stored mode needs
    about half the time of fresh mode and stale estimates are rare (at most 23%
    of samples); on Elevators 4 and Freecell 6 they are common (64–68%) and
    stored mode would expand 15× more states. All estimates stay admissible, so
    the plan stays optimal."""

    SAMPLE_EVERY, SAMPLES, STALE, SWITCH_SHARE = 16, 32, 2, (1, 3)

    def __init__(self, task: SearchTask, h: Callable[[State], float], budget: Budget, inherit: bool = True,
                 lifo: bool = False):
        self.task, self.h, self.budget = task, h, budget
        self.step = -1 if lifo else 1  # the tie counter's direction
        # landmarks are inherited from a heuristic that reports them: LM-cut
        self.lm: LMCut | None = h if inherit and isinstance(h, LMCut) else None
        self.inherit = self.lm is not None
        self.expanded = self.generated = self.requeued = 0
        self.mode = "stored" if self.inherit else "plain"

    def run(self, node_limit: int | None) -> tuple[State, dict[State, tuple[State, int]]] | None:
        """The goal state reached and the parent links, or None when the space is exhausted."""
        task, h, tick, lm = self.task, self.h, self.budget.tick, self.lm
        keep, add, applicable, goal_reached = task.keep, task.add, task.applicable, task.goal_reached
        init = task.init
        best_g: dict[State, int] = {init: 0}
        parent: dict[State, tuple[State, int]] = {}
        h_cache: dict[State, float] = {}
        stored: dict[State, list[list[int]]] = {}  # landmarks of queued states (stored mode)
        requeued: dict[State, tuple[float, list[list[int]]]] = {}  # fresh landmarks of re-queued states
        samples = stale = 0
        counter, step = 0, self.step
        cuts: list[list[int]] = []  # the landmarks of the state being expanded (when inheriting)
        if lm is not None:
            h0, stored[init] = lm.landmarks(init)
        else:
            h0 = h(init)
        if h0 == INF:
            return None
        h_cache[init] = h0
        open_list: list = [(h0, 0, counter, init)]
        while open_list:
            f, neg_g, _, state = heapq.heappop(open_list)
            g = -neg_g
            if g > best_g[state]:
                continue
            if goal_reached(state):
                return state, parent
            if node_limit is not None and self.expanded >= node_limit:
                raise _NodeLimit
            tick(64)
            if lm is not None:
                h_state = h_cache[state]
                kept = stored.pop(state, None)
                if kept is not None and self.expanded % self.SAMPLE_EVERY == 0:  # how stale are stored ones?
                    samples += 1
                    stale += lm.landmarks(state)[0] >= h_state + self.STALE
                    if samples >= self.SAMPLES and stale * self.SWITCH_SHARE[1] >= samples * self.SWITCH_SHARE[0]:
                        self.mode = "fresh"
                        stored.clear()
                if kept is not None:
                    cuts = kept
                else:
                    fresh = requeued.pop(state, None)
                    h_fresh, cuts = fresh if fresh is not None else lm.landmarks(state)
                    if g + h_fresh > f:  # better informed now: back to the queue
                        h_cache[state] = h_fresh
                        requeued[state] = (h_fresh, cuts)
                        counter += step
                        self.requeued += 1
                        heapq.heappush(open_list, (g + h_fresh, neg_g, counter, state))
                        continue
                keep_stored = self.mode == "stored"
                cut_of = {o: k for k, cut in enumerate(cuts) for o in cut}
                all_free = list(cut_of)
                floor = h_state - 1
            self.expanded += 1
            g1 = g + 1
            for n in applicable(state):
                nxt = (state & keep[n]) | add[n]
                old = best_g.get(nxt)
                if old is not None and old <= g1:
                    continue
                hn = h_cache.get(nxt)
                if hn is None:
                    if lm is not None:
                        k = cut_of.get(n)
                        new: list[list[int]] | None = [] if keep_stored else None
                        if k is None:  # every landmark of the parent is one of the child
                            hn = lm.run(nxt, all_free, len(cuts), record=new)
                        else:  # all but the one holding the action
                            hn = lm.run(nxt, [o for o in all_free if cut_of[o] != k], len(cuts) - 1, record=new)
                        hn = max(hn, floor)
                        if new is not None and hn != INF:  # new is a list exactly when keep_stored
                            stored[nxt] = (cuts if k is None else [c for j, c in enumerate(cuts) if j != k]) + new
                    else:
                        hn = h(nxt)
                    h_cache[nxt] = hn
                if hn == INF:
                    continue
                self.generated += 1
                best_g[nxt] = g1
                parent[nxt] = (state, n)
                counter += step
                heapq.heappush(open_list, (g1 + hn, -g1, counter, nxt))
        return None


class _NodeLimit(Exception):
    pass


def _astar(task: SearchTask, h: Callable[[State], float], heuristic: str, budget: Budget,
           node_limit: int | None, lifo: bool = False) -> PlanResult:
    gp, search = task.gp, _Search(task, h, budget, lifo=lifo)
    try:
        found = search.run(node_limit)
    except _NodeLimit:
        raise NodeLimitError(_limit_message(gp, f"the node limit of {node_limit:,} expansions",
                                            search.expanded, heuristic),
                             limit=node_limit or 0, expanded=search.expanded) from None
    except PlannerTimeoutError:
        raise PlannerTimeoutError(_limit_message(gp, f"the time limit of {budget.time_limit:g} s",
                                                 search.expanded, heuristic)) from None
    if found is None:
        if search.expanded == 0:
            raise UnsolvableError(f"{gp.problem.filename}: unsolvable: the goal cannot be reached even with "
                                  "delete effects ignored")
        raise UnsolvableError(f"{gp.problem.filename}: unsolvable: the search space is exhausted "
                              f"({search.expanded:,} states expanded) without reaching the goal")
    state, parent = found
    steps = []
    while state != task.init:
        state, n = parent[state]
        steps.append(str(task.actions[n]))
    return PlanResult(tuple(reversed(steps)), f"builtin astar({heuristic})", True, search.expanded, search.generated,
                      budget.elapsed())


def _limit_message(gp: GroundProblem, limit: str, expanded: int, heuristic: str = "lmcut") -> str:
    other = "" if heuristic == "lmcut" else "try the lmcut heuristic (--heuristic lmcut), "
    return (f"{gp.problem.filename}: no plan found within {limit} ({expanded:,} states expanded); "
            f"{other}raise the limit or use Fast Downward (--planner fast-downward)")

