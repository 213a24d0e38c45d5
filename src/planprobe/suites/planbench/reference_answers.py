"""Replies for the reference agents, in PlanBench's format.

* ``reference_answer`` — a correct reply: the known plan, one action per line,
  then ``[PLAN END]`` (t2 adds its time, as PlanBench's examples do); t3
  PlanBench's verdict text for the validator's finding; t7 the resulting
  state; ``REFUSE:`` and the planner's proof when the goal is contradictory.
  The ``oracle`` agent gives it, and must pass every case.
* ``random_answer`` — a random executable walk (plan tasks), a random verdict
  with a random explanation (t3), the state after a random walk of the same
  length (t7): the floor a model should beat.
* ``faulty_answer`` — the reference with one fault (``FAULTS``: the error class
  the oracle must report), or None when the case leaves no room for it.
"""

from __future__ import annotations

import random

from ...pddl.simulator import random_walk
from ...pddl.validator import Outcome, validate
from ...schema import Case, ErrorClass
from .prepared import PreparedCase, prepare
from .prompt_blocks import verification_message
from .spec import PLAN_TASKS

__all__ = ["FAULTS", "faulty_answer", "random_answer", "reference_answer"]

FAULTS: dict[str, str] = {
    "truncate": ErrorClass.ACTION_LOST.value,  # the last step left out (t7: one true fact left out)
    "swap": ErrorClass.ORDER_ERROR.value,  # two steps swapped so that one cannot run
    "pad": ErrorClass.SUBOPTIMAL_COST.value,  # t2: a step and its undoing added: valid, not optimal
    "garble": ErrorClass.ACT_ERROR.value,  # a reply with no plan, verdict or state in it
    "refuse": ErrorClass.WRONG_REFUSAL.value,  # a solvable case refused
}
PLAN_END = "[PLAN END]"


def _plan_text(prepared: PreparedCase, steps: list[str]) -> str:
    text = "\n".join([*prepared.tr.plan(steps), PLAN_END])
    if prepared.spec.task == "t2":
        n = len(steps)
        text += f"\nThe total time to execute the plan is {n} minute{'s' if n != 1 else ''}."
    return text


def _reference_steps(prepared: PreparedCase) -> list[str]:
    if prepared.spec.reference is not None:
        return list(prepared.spec.reference)
    from ...pddl.planner import (
        solve,  # a hand-written case without a reference: plan it
    )

    return list(solve(prepared.grounded, time_limit=None).steps)


def reference_answer(case: Case) -> str:
    prepared = prepare(case)
    spec = prepared.spec
    if spec.unsolvable is not None:
        return f"REFUSE: no plan can achieve the goal: {spec.unsolvable}"
    if spec.task == "t3":
        return verification_message(prepared.tr, prepared.truth).rstrip("\n")
    if spec.task == "t7":
        return prepared.tr.atoms(prepared.resulting_state)
    return _plan_text(prepared, _reference_steps(prepared))


def _walk(prepared: PreparedCase, rng: random.Random, length: int) -> tuple[list[str], int]:
    return random_walk(prepared.grounded, rng, length)


def random_answer(case: Case, rng: random.Random) -> str:
    prepared = prepare(case)
    task = prepared.spec.task
    if task == "t3":
        return _random_verdict(prepared, rng)
    if task == "t7":
        _, state = _walk(prepared, rng, len(prepared.spec.plan or []))
        return prepared.tr.atoms(a for a in prepared.grounded.decode(state) if prepared.tr.visible(a))
    steps, _ = _walk(prepared, rng, rng.randint(1, 2 * max(1, len(prepared.problem.objects))))
    return _plan_text(prepared, steps)


def _random_verdict(prepared: PreparedCase, rng: random.Random) -> str:
    tr = prepared.tr
    choice = rng.randrange(3)
    if choice == 0:
        return "The above plan is valid."
    if choice == 1:
        goal = [lit.atom for lit in prepared.problem.goal if lit.positive and tr.visible(lit.atom)]
        return f"The above plan is invalid. This is the unmet goal condition:\n{tr.atom(rng.choice(goal))}"
    plan = prepared.spec.plan or []
    facts = sorted(a for a in prepared.problem.init if tr.visible(a))
    if not plan or not facts:
        return "The above plan is invalid."
    k = rng.randrange(len(plan))
    return (f"The above plan is invalid.The following action at step {k + 1} has an unmet precondition:\n"
            f"{tr.action(plan[k])}\nThe unmet precondition is:\n{tr.atom(rng.choice(facts))}")


def faulty_answer(case: Case, fault: str, rng: random.Random) -> str | None:
    prepared = prepare(case)
    spec = prepared.spec
    if spec.unsolvable is not None or fault not in FAULTS:
        return None
    if fault == "refuse":
        return "REFUSE: I do not think this can be done."
    if fault == "garble":
        return "I am not sure."
    if spec.task == "t7":
        if fault != "truncate" or len(prepared.resulting_state) < 2:
            return None
        kept = sorted(prepared.resulting_state)
        kept.pop(rng.randrange(len(kept)))
        return prepared.tr.atoms(kept)
    if spec.task not in PLAN_TASKS:
        return None
    steps = _reference_steps(prepared)
    if fault == "truncate":
        cut = steps[:-1]
        if len(steps) < 2 or validate(prepared.grounded, cut).outcome is not Outcome.GOAL_NOT_REACHED:
            return None
        return _plan_text(prepared, cut)
    if fault == "swap":
        order = list(range(len(steps) - 1))
        rng.shuffle(order)
        for i in order:
            swapped = steps[:i] + [steps[i + 1], steps[i]] + steps[i + 2:]
            if validate(prepared.grounded, swapped).outcome is Outcome.INEXECUTABLE:
                return _plan_text(prepared, swapped)
        return None
    if spec.task != "t2":  # pad: only cost-optimal planning counts the length
        return None
    padded = _detour(prepared, steps, rng)
    return None if padded is None else _plan_text(prepared, padded)


def _detour(prepared: PreparedCase, steps: list[str], rng: random.Random) -> list[str] | None:
    """``steps`` with an action and its undoing inserted somewhere (still valid, longer)."""
    grounded = prepared.grounded
    states = [grounded.init]
    for step in steps:
        name, *args = step.strip("()").split()
        states.append(grounded.ground(name, args).apply(states[-1]))
    actions = grounded.actions()
    positions = list(range(len(steps) + 1))
    rng.shuffle(positions)
    for i in positions:
        s = states[i]
        first = [a for a in actions if a.applicable(s)]
        rng.shuffle(first)
        for a in first:
            s1 = a.apply(s)
            for b in actions:
                if b.applicable(s1) and b.apply(s1) == s:
                    return steps[:i] + [str(a), str(b)] + steps[i:]
    return None
