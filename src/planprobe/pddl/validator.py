"""Plan validation with VAL-grade explanations and PlanBench's relaxations.

``validate(problem, plan)`` executes the plan from the initial state and says
why it fails, the way VAL does: the first step that cannot execute (1-based)
with each unmet precondition (negative ones and equalities included), or each
goal literal the final state misses, or the step that does not name an action
of the problem.

Relaxed validation follows PlanBench (seed 004, appendix A.4.2): *delete
relaxation* ignores delete effects, *precondition relaxation* ignores
preconditions (any action executes anywhere), *both* does both. A plan valid
in the real model is valid under every relaxation. Steps must still name ground
actions with well-typed arguments: the relaxations change the model, not the
vocabulary.

Speed: the problem is prepared once (``grounding.ground``); each distinct step
text is parsed and grounded once per problem and cached, so validating a plan is
a dictionary look-up and a few integer operations per step.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

from .errors import PlanStepError
from .grounding import GroundAction, GroundProblem, State, ground
from .model import Atom, PDDLLiteral, Problem
from .simulator import Step, ground_step, parse_plan

__all__ = ["Outcome", "Relaxation", "ValidationResult", "validate"]


class Relaxation(str, Enum):
    NONE = "none"
    DELETE = "delete"  # ignore delete effects
    PRECONDITION = "precondition"  # ignore preconditions
    BOTH = "both"

    @classmethod
    def parse(cls, value: None | str | Relaxation) -> Relaxation:
        if value is None:
            return cls.NONE
        try:
            return cls(value.lower() if isinstance(value, str) else value)
        except ValueError:
            raise ValueError(f"relaxation {value!r}: expected one of none, delete, precondition, both") from None


_FLAGS = {  # relaxation → (ignore preconditions, ignore deletes)
    Relaxation.NONE: (False, False), Relaxation.DELETE: (False, True),
    Relaxation.PRECONDITION: (True, False), Relaxation.BOTH: (True, True),
}
_DESCRIBE = {
    Relaxation.DELETE: "delete relaxation: delete effects ignored",
    Relaxation.PRECONDITION: "precondition relaxation: preconditions ignored",
    Relaxation.BOTH: "delete and precondition relaxation: delete effects and preconditions ignored",
}


class Outcome(str, Enum):
    VALID = "valid"
    INEXECUTABLE = "inexecutable"  # a step's preconditions do not hold
    GOAL_NOT_REACHED = "goal_not_reached"  # every step executed; some goal literal is false
    UNPARSEABLE_STEP = "unparseable_step"  # a step is not an action of the problem (see ``error.kind``)


class ValidationResult:
    """The verdict on one plan.

    ``step`` is the 1-based failing step (inexecutable / unparseable), ``action``
    its text (``(put-down d)``), ``unmet_preconditions`` / ``unmet_goals`` the
    false literals, ``error`` the ``PlanStepError`` of an unparseable step, and
    ``state`` the state reached (before the failing step, or after the last).
    """

    __slots__ = ("_failed", "_gp", "_unmet_goals", "_unmet_pre", "action", "error", "outcome", "plan_length",
                 "relax", "state", "step")

    def __init__(self, gp: GroundProblem, outcome: Outcome, relax: Relaxation, plan_length: int, state: State,
                 step: int | None = None, failed: GroundAction | None = None, action: str | None = None,
                 error: PlanStepError | None = None):
        self._gp, self.outcome, self.relax, self.plan_length, self.state = gp, outcome, relax, plan_length, state
        self.step, self._failed, self.error = step, failed, error
        self.action = str(failed) if failed is not None else action
        self._unmet_pre: tuple[PDDLLiteral, ...] | None = None
        self._unmet_goals: tuple[PDDLLiteral, ...] | None = None

    @property
    def failed_action(self) -> GroundAction | None:
        """The ground action of the step that could not execute (inexecutable plans)."""
        return self._failed

    @property
    def unmet_preconditions(self) -> tuple[PDDLLiteral, ...]:
        """Each false precondition literal of the failing step (computed on first access)."""
        if self._unmet_pre is None:
            failed = self._failed  # set exactly when the plan is inexecutable
            self._unmet_pre = failed.unmet(self.state) if failed is not None and self.outcome is Outcome.INEXECUTABLE else ()
        return self._unmet_pre

    @property
    def unmet_goals(self) -> tuple[PDDLLiteral, ...]:
        """Each false goal literal (computed on first access)."""
        if self._unmet_goals is None:
            self._unmet_goals = self._gp.unmet_goals(self.state) if self.outcome is Outcome.GOAL_NOT_REACHED else ()
        return self._unmet_goals

    @property
    def valid(self) -> bool:
        return self.outcome is Outcome.VALID

    def __bool__(self) -> bool:
        return self.valid

    @property
    def state_atoms(self) -> frozenset[Atom]:
        """The true atoms of ``state`` (e.g. the resulting state of a valid plan)."""
        return self._gp.decode(self.state)

    def explain(self) -> str:
        """A human-readable account in the manner of VAL's output."""
        relaxed = f" (under {_DESCRIBE[self.relax]})" if self.relax is not Relaxation.NONE else ""
        n = self.plan_length
        steps = f"{n} step{'' if n == 1 else 's'}"
        if self.outcome is Outcome.VALID:
            return f"Plan valid{relaxed}: {steps} executed, goal satisfied."
        lines: list[str] = []
        if self.outcome is Outcome.UNPARSEABLE_STEP:
            assert self.error is not None
            what = "does not parse" if self.error.kind == "syntax" else "is not an action of the problem"
            return f"Plan invalid{relaxed}: step {self.step} {self.action!r} {what}: {self.error.reason}."
        if self.outcome is Outcome.INEXECUTABLE:
            lines.append(f"Plan invalid{relaxed}: step {self.step} {self.action} is not executable.")
            lines.append(f"Plan failed because of unsatisfied precondition{_s(self.unmet_preconditions)} "
                         f"in {self.action} at step {self.step}:")
            lines.extend(f"  {_why(lit)}" for lit in self.unmet_preconditions)
            advice = self.unmet_preconditions
        else:
            lines.append(f"Plan invalid{relaxed}: {steps} executed, but the goal is not satisfied.")
            lines.append(f"Unsatisfied goal{_s(self.unmet_goals)}:")
            lines.extend(f"  {_why(lit)}" for lit in self.unmet_goals)
            advice = self.unmet_goals
        lines.append("Plan Repair Advice:")
        lines.extend(f"  {_advice(lit)}" for lit in advice)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; literals as PDDL text."""
        return {
            "valid": self.valid, "outcome": self.outcome.value, "relax": self.relax.value,
            "plan_length": self.plan_length, "step": self.step, "action": self.action,
            "unmet_preconditions": [str(lit) for lit in self.unmet_preconditions],
            "unmet_goals": [str(lit) for lit in self.unmet_goals],
            "error": None if self.error is None else {"kind": self.error.kind, "message": str(self.error)},
            "state": sorted(str(a) for a in self.state_atoms),
        }

    def __repr__(self) -> str:
        extra = f", step={self.step}, action={self.action!r}" if self.step else ""
        return f"ValidationResult({self.outcome.value}{extra})"


def _s(items) -> str:
    return "" if len(items) == 1 else "s"


def _why(lit: PDDLLiteral) -> str:
    if lit.is_equality:
        a, b = lit.atom.args
        return f"{lit} is false: {a} and {b} {'differ' if lit.positive else 'are the same object'}"
    return f"{lit} is false" if lit.positive else f"{lit} is false: {lit.atom} is true"


def _advice(lit: PDDLLiteral) -> str:
    if lit.is_equality:
        return f"(use arguments that make {lit} true)"
    return f"(Set {lit.atom} to {'true' if lit.positive else 'false'})"


def validate(problem: Problem | GroundProblem, plan: str | Iterable[Step],
             relax: None | str | Relaxation = None) -> ValidationResult:
    """Validate ``plan`` (text, one step per line, or a sequence of steps: text
    like ``"(unstack a b)"``, ``GroundAction``s or ``("unstack", "a", "b")``)
    against ``problem`` (parsed, or prepared with ``grounding.ground`` for speed).
    ``relax``: ``None``/``"none"``, ``"delete"``, ``"precondition"`` or ``"both"``."""
    gp = problem if isinstance(problem, GroundProblem) else ground(problem)
    relaxation = relax if isinstance(relax, Relaxation) else Relaxation.parse(relax)
    ignore_pre, ignore_del = _FLAGS[relaxation]
    if isinstance(plan, str):
        plan = parse_plan(plan)
    cache = gp.step_cache
    state = gp.init
    i = 0
    for step in plan:
        i += 1
        a = cache.get(step) if step.__class__ is str else None
        if a is None:
            try:
                a = ground_step(gp, step)
            except PlanStepError as exc:
                text = (step.strip() if isinstance(step, str) else str(step) if isinstance(step, GroundAction)
                        else f"({' '.join(map(str, step))})")
                return ValidationResult(gp, Outcome.UNPARSEABLE_STEP, relaxation, _length(plan, i), state, i,
                                        action=text, error=exc)
        if not ignore_pre and (state & a.pre_pos != a.pre_pos or state & a.pre_neg or a.impossible):
            return ValidationResult(gp, Outcome.INEXECUTABLE, relaxation, _length(plan, i), state, i, a)
        state = state | a.add if ignore_del else (state & a.keep) | a.add
    if state & gp.goal_pos != gp.goal_pos or state & gp.goal_neg or gp.goal_impossible:
        return ValidationResult(gp, Outcome.GOAL_NOT_REACHED, relaxation, i, state)
    return ValidationResult(gp, Outcome.VALID, relaxation, i, state)


def _length(plan, consumed: int) -> int:
    try:
        return len(plan)
    except TypeError:  # an iterator: the steps after the failing one are not counted
        return consumed
