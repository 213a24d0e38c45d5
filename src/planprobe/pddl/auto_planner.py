"""Choose the optimal planner per task: the built-in A* while it is cheap, Fast Downward beyond.

Why: the built-in A* with LM-cut needs no process, so it wins on small tasks (Fast
Downward's start-up and translation cost 0.13-0.2 s of CPU before its search
begins), but it is 2-10x slower per state on tasks needing thousands of
expansions (docs/BENCHMARKS.md, "The built-in planner against Fast Downward").

The switch is decided on **work, never on wall time**, so one task on one
installation always takes the same path: the built-in search runs until it has
done ``work_limit`` units of expansions x relevant ground actions (LM-cut's cost
per state grows with the number of actions: 2-5 us per action and expansion on
the pyperplan tasks); a task that needs more goes to Fast Downward with the rest
of the time limit, when the ``planner`` extra is installed. Without it (or when
Fast Downward rejects the task) the built-in search simply goes on under the
caller's own limits, exactly as ``planner.solve`` would.

Both planners are optimal for unit costs (A* with an admissible heuristic), so
the plan's length does not depend on the choice; its steps may (ties). Every
result says which planner ran and why in ``PlanResult.choice``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from . import fast_downward
from .bits import bits
from .budget import Budget
from .errors import NodeLimitError, PlannerError, PlannerTimeoutError, UnsolvableError
from .grounding import GroundProblem, ground
from .model import Problem
from .planner import PlanResult, solve

__all__ = ["AUTO_WORK", "FD_TIME_LIMIT", "solve_auto"]

# expansions x relevant ground actions before the built-in search hands over (about 0.7 s of
# pure-Python search at 2-5 us per action and expansion; calibrated in docs/BENCHMARKS.md)
AUTO_WORK = 200_000
# Fast Downward's wall-clock limit when the caller set none (the built-in search's own bound is
# then its node limit): a task it cannot solve in this time raises PlannerTimeoutError
FD_TIME_LIMIT = 60.0


def solve_auto(problem: Problem | GroundProblem, *, heuristic: str = "lmcut", time_limit: float | None = 60.0,
               node_limit: int | None = None, work_limit: int = AUTO_WORK, ties: str = "lifo",
               fd_available: Callable[[], bool] = fast_downward.available,
               clock: Callable[[], float] = time.monotonic) -> PlanResult:
    """An optimal plan for ``problem`` from the built-in A* or, past ``work_limit``, Fast Downward.

    ``time_limit`` bounds the whole call (both planners); ``node_limit`` bounds the
    built-in search's expansions as in ``planner.solve``; ``heuristic`` and ``ties``
    are the built-in search's (``planner.solve``). ``fd_available`` is the
    lookup of the optional extra (injectable, so tests can simulate its absence).
    A ``GroundProblem`` whose ``init`` was changed (a state reached by a replay) is
    handed to Fast Downward with that state as its initial state."""
    if not fd_available():
        result = solve(problem, heuristic=heuristic, time_limit=time_limit, node_limit=node_limit, clock=clock,
                       ties=ties)
        return dataclasses.replace(result, choice="builtin: Fast Downward is not installed "
                                                  "(pip install 'planprobe[planner]')")
    budget = Budget(time_limit, clock=clock)
    gp = problem if isinstance(problem, GroundProblem) else ground(problem)
    try:
        result = solve(gp, heuristic=heuristic, time_limit=budget.remaining(), node_limit=node_limit, clock=clock,
                       work_limit=work_limit, ties=ties)  # what grounding left of the limit
        return dataclasses.replace(result, choice=f"builtin: solved within {work_limit:,} units of work "
                                                  "(expansions x relevant actions)")
    except NodeLimitError as exc:
        handed_over = (f"fast-downward: the built-in search reached its limit of {exc.limit:,} expansions "
                       f"without a plan (work budget: {work_limit:,} expansions x relevant actions"
                       + (f"; node limit: {node_limit:,}" if node_limit is not None else "") + ")")
    left = budget.remaining()
    fd_limit = FD_TIME_LIMIT if left is None else left
    if fd_limit <= 0:
        raise PlannerTimeoutError(budget.message())
    try:
        result = fast_downward.solve(_as_problem(gp), time_limit=fd_limit, clock=clock)
    except (UnsolvableError, PlannerTimeoutError):
        raise
    except PlannerError as exc:  # e.g. a type Fast Downward does not accept: the built-in goes on alone
        result = solve(gp, heuristic=heuristic, time_limit=budget.remaining(), node_limit=node_limit, clock=clock,
                       ties=ties)
        return dataclasses.replace(result, choice=f"builtin: Fast Downward could not take the task ({exc})")
    return dataclasses.replace(result, seconds=budget.elapsed(),
                               choice=handed_over)


def _as_problem(gp: GroundProblem) -> Problem:
    """``gp``'s problem, with the initial state ``gp.init`` if that was changed."""
    problem = gp.problem
    if gp.init == gp.mask(problem.init):
        return problem
    return dataclasses.replace(problem, init=tuple(gp.atoms[i] for i in bits(gp.init)))
