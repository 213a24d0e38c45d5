"""Delete-relaxed reachability over ground actions: what some sequence of actions
could make true if nothing were ever deleted.

Why one place: the planners refuse a goal no relaxed plan reaches before searching,
and the protocol hooks use the same closure to prune dead ends and to name the
goal atoms that can never be made true again.
"""

from __future__ import annotations

from collections.abc import Sequence

from .budget import Budget
from .errors import UnsolvableError
from .grounding import GroundAction, GroundProblem, State
from .model import PDDLLiteral

__all__ = ["relaxed_closure", "relaxed_lost_goals", "require_relaxed_goal"]


def relaxed_closure(actions: Sequence[GroundAction], state: State, budget: Budget | None = None) -> State:
    """Every atom reachable from ``state`` with delete effects ignored (a bit mask);
    ``budget`` is ticked once per sweep over the actions."""
    reached, changed = state, True
    while changed:
        changed = False
        for a in actions:
            if reached & a.pre_pos == a.pre_pos and a.add & ~reached:
                reached |= a.add
                changed = True
        if budget is not None:
            budget.tick(len(actions))
    return reached


def relaxed_lost_goals(gp: GroundProblem, reached: State) -> list[PDDLLiteral]:
    """The positive goal literals whose atom is not in ``reached``."""
    return [lit for lit, bit in gp.goal_conditions if bit and lit.positive and not reached & bit]


def require_relaxed_goal(gp: GroundProblem, actions: Sequence[GroundAction], budget: Budget | None = None) -> None:
    """Raise ``UnsolvableError`` naming the goals no relaxed plan from the initial state reaches."""
    lost = relaxed_lost_goals(gp, relaxed_closure(actions, gp.init, budget))
    if lost:
        raise UnsolvableError(f"{gp.problem.filename}: unsolvable: the goal {' '.join(map(str, lost))} cannot be "
                              "reached even with delete effects ignored")
