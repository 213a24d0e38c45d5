"""The simulator: plan steps as text → ground actions → successor states.

States are ints (see ``grounding``). ``applicable``/``apply`` are the whole
semantics of STRIPS with negative preconditions: preconditions hold, then the
delete effects are removed and the add effects set.

Plan steps are read as ``(unstack a b)`` or ``unstack a b`` (any case, extra
spaces allowed); a step that does not parse or does not name a ground action of
the problem raises ``PlanStepError`` whose ``kind`` says which (``syntax``,
``unknown_action``, ``arity``, ``unknown_object``, ``type``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

from .errors import PlanStepError
from .grounding import GroundAction, GroundProblem, State
from .model import Atom, PDDLLiteral

__all__ = [
    "random_walk",
    "State",
    "Step",
    "applicable",
    "apply",
    "ground_step",
    "parse_plan",
    "parse_step",
    "run",
    "state_atoms",
    "unmet_preconditions",
]

Step = str | GroundAction | Sequence[str]  # text, an action, or ("unstack", "a", "b")

_STEP_CACHE_LIMIT = 100_000


def parse_step(text: str) -> tuple[str, tuple[str, ...]]:
    """``"(unstack A b)"`` or ``"unstack a b"`` → ``("unstack", ("a", "b"))``."""
    t = text.strip()
    inner = t[1:-1] if t[:1] == "(" and t[-1:] == ")" else t
    if "(" not in inner and ")" not in inner:
        parts = inner.lower().split()
        if parts:
            return parts[0], tuple(parts[1:])
    raise PlanStepError("syntax", t, "expected a step like '(action arg1 arg2)'" if t
                        else "empty step: expected a step like '(action arg1 arg2)'")


def parse_plan(text: str) -> list[str]:
    """A plan file (one step per line, as Fast Downward's ``sas_plan`` or VAL
    take it) → its steps; blank lines and ``;`` comments are skipped."""
    steps = []
    for line in text.splitlines():
        line = line.split(";", 1)[0].strip()
        if line:
            steps.append(line)
    return steps


def ground_step(gp: GroundProblem, step: Step) -> GroundAction:
    """The ground action a step names; raises ``PlanStepError``. Text steps are
    cached per problem, so validating many plans parses each distinct step once."""
    if isinstance(step, GroundAction):
        return step
    if isinstance(step, str):
        ga = gp.step_cache.get(step)
        if ga is None:
            name, args = parse_step(step)
            ga = gp.ground(name, args, step.strip())
            if len(gp.step_cache) >= _STEP_CACHE_LIMIT:
                gp.step_cache.clear()
            gp.step_cache[step] = ga
        return ga
    if not step:
        raise PlanStepError("syntax", "", "empty step: expected a step like '(action arg1 arg2)'")
    name, *rest = step
    return gp.ground(name, rest)


def applicable(state: State, action: GroundAction) -> bool:
    return state & action.pre_pos == action.pre_pos and not state & action.pre_neg and not action.impossible


def apply(state: State, action: GroundAction, ignore_deletes: bool = False) -> State:
    """The successor state (preconditions are not checked here)."""
    return state | action.add if ignore_deletes else (state & action.keep) | action.add


def unmet_preconditions(state: State, action: GroundAction) -> tuple[PDDLLiteral, ...]:
    return action.unmet(state)


def run(gp: GroundProblem, plan: Iterable[Step], state: State | None = None) -> Iterator[tuple[GroundAction, State]]:
    """Execute ``plan`` from ``state`` (default: the initial state), yielding each
    action with the state after it. Raises ``PlanStepError`` for a bad step, and
    one of kind ``inapplicable`` naming the step and its unmet preconditions for
    an action that cannot apply (``validator.validate`` gives a verdict instead)."""
    state = gp.init if state is None else state
    for i, step in enumerate(plan, 1):
        action = ground_step(gp, step)
        if not applicable(state, action):
            unmet = " ".join(str(lit) for lit in action.unmet(state))
            raise PlanStepError("inapplicable", str(action), f"step {i} is not applicable: unmet {unmet}")
        state = (state & action.keep) | action.add
        yield action, state


def state_atoms(gp: GroundProblem, state: State) -> frozenset[Atom]:
    return gp.decode(state)


def random_walk(gp: GroundProblem, rng: random.Random, length: int,
                stop_at_goal: bool = False) -> tuple[list[str], State]:
    """Up to ``length`` random applicable actions from the initial state (fewer where none
    applies, or, with ``stop_at_goal``, once the goal holds): the steps and the state
    reached. The floor a planner should beat, for the reference ``random`` agents."""
    actions = gp.actions()
    state, steps = gp.init, []
    for _ in range(length):
        if stop_at_goal and gp.goal_reached(state):
            break
        options = [a for a in actions if a.applicable(state)]
        if not options:
            break
        action = rng.choice(options)
        state = action.apply(state)
        steps.append(str(action))
    return steps, state
