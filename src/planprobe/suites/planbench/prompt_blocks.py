"""PlanBench's prompt layout: the ``[STATEMENT]`` blocks of its eight tasks.

Why a module of its own: the task families build prompts from these blocks
(domain intro + example statements + the query statement), and the conformance
check reads recorded prompts back; both need PlanBench's exact text, which is
pinned here once (derived from PlanBench's recorded GPT-4 queries and checked
against them in ``tests/pddl/test_translation.py``).

Every function returns one block starting with ``"\\n[STATEMENT]\\n"``; pass
``plan``/``answer`` for a worked example, leave them out for the query the
model must complete. A prompt is ``translator.config.intro(variant)`` followed
by example blocks and the query block.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...pddl.grounding import GroundAction
from ...pddl.model import Atom
from ...pddl.translation import Translator, atom_sort_key, join_items

__all__ = [
    "ACTION_SEQUENCE",
    "ACTION_SEQUENCE_END",
    "PLAN",
    "PLAN_END",
    "RESULTING_STATE",
    "STATEMENT",
    "VERIFICATION",
    "execution_statement",
    "fact_list",
    "optimality_statement",
    "plan_statement",
    "replanning_statement",
    "reuse_statement",
    "verification_message",
    "verification_statement",
]

STATEMENT, PLAN, PLAN_END = "[STATEMENT]", "[PLAN]", "[PLAN END]"
VERIFICATION, RESULTING_STATE = "[VERIFICATION]", "[RESULTING STATE]"
ACTION_SEQUENCE, ACTION_SEQUENCE_END = "[ACTION SEQUENCE]", "[ACTION SEQUENCE END]"

Steps = Sequence[str | GroundAction | Sequence[str]]


def _facts(tr: Translator, atoms: Iterable[Atom] | str) -> str:
    return atoms if isinstance(atoms, str) else tr.atoms(atoms)


def _plan(tr: Translator, steps: Steps, end: str = PLAN_END) -> str:
    return "\n" + "".join(line + "\n" for line in tr.plan(steps)) + end + "\n"


def _head(tr: Translator, init: Iterable[Atom] | str | None) -> str:
    text = tr.init() if init is None else _facts(tr, init)
    return f"\n{STATEMENT}\nAs initial conditions I have that, {text.strip()}."


def _goal(tr: Translator, goal: Iterable[Atom] | str | None) -> str:
    return tr.goal() if goal is None else _facts(tr, goal)


def plan_statement(tr: Translator, plan: Steps | None = None, *, init: Iterable[Atom] | str | None = None,
                   goal: Iterable[Atom] | str | None = None) -> str:
    """Plan generation (t1), generalization (t5), goal reformulation (t8): the
    problem, then ``[PLAN]`` with the plan and ``[PLAN END]`` (or nothing for the query).
    ``init``/``goal`` default to the problem's; pass atoms (or ready text) to state others."""
    return (f"{_head(tr, init)}\nMy goal is to have that {_goal(tr, goal)}.\n\nMy plan is as follows:\n\n{PLAN}"
            + (_plan(tr, plan) if plan is not None else ""))


def optimality_statement(tr: Translator, plan: Steps | None = None, *, init: Iterable[Atom] | str | None = None,
                         goal: Iterable[Atom] | str | None = None) -> str:
    """Cost-optimal planning (t2): unit-cost actions, "I want to minimize the time taken"."""
    text = (f"{_head(tr, init)}\nMy goal is to have that {_goal(tr, goal)}. I want to minimize the time taken to "
            f"achieve my goal.\nMy plan is as follows:\n\n{PLAN}")
    if plan is None:
        return text + " "
    n = len(plan)
    return text + _plan(tr, plan) + f"The total time to execute the plan is {n} minute{'s' if n > 1 else ''}.\n"


def verification_message(tr: Translator, result) -> str:
    """PlanBench's verdict text for a ``ValidationResult`` (VAL's findings in the domain's words)."""
    if result.valid:
        return "The above plan is valid.\n"
    if result.unmet_goals:
        atoms = sorted((lit.atom for lit in result.unmet_goals if lit.positive), key=atom_sort_key)
        return f"The above plan is invalid. This is the unmet goal condition:\n{tr.atoms(atoms)}"
    atoms = sorted((lit.atom for lit in result.unmet_preconditions if not lit.is_equality), key=atom_sort_key)
    action = tr.action(result.action)
    if len(atoms) == 1:
        return (f"The above plan is invalid.The following action at step {result.step} has an unmet precondition:"
                f"\n{action}\nThe unmet precondition is:\n{tr.atoms(atoms)}")
    return (f"The above plan is invalid. The following action at step {result.step} has unmet preconditions:"
            f"\n{action}\nThe unmet preconditions are:\n{tr.atoms(atoms)}")


def verification_statement(tr: Translator, plan: Steps, answer: str | None = None, *,
                           init: Iterable[Atom] | str | None = None, goal: Iterable[Atom] | str | None = None) -> str:
    """Plan verification (t3): the problem and a plan; ``answer`` is the
    ``verification_message`` of a worked example (``None`` for the query)."""
    text = (f"{_head(tr, init)}\nMy goal is to have that {_goal(tr, goal)}. \nMy plan is as follows:\n\n{PLAN}"
            f"{_plan(tr, plan)}\n{VERIFICATION}")
    return text if answer is None else f"{text}\n{answer}"


def execution_statement(tr: Translator, plan: Steps, resulting_state: Iterable[Atom] | str | None = None, *,
                        init: Iterable[Atom] | str | None = None) -> str:
    """Reasoning about plan execution (t7): the initial state and an action
    sequence; ``resulting_state`` for a worked example, ``None`` for the query."""
    text = (f"{_head(tr, init)}\n I have executed the following action sequence:\n\n{ACTION_SEQUENCE}"
            f"{_plan(tr, plan, ACTION_SEQUENCE_END)}{RESULTING_STATE}\n")
    return text if resulting_state is None else f"{text}{_facts(tr, resulting_state)}\n"


def reuse_statement(tr: Translator, plan: Steps | None = None, *, init: Iterable[Atom] | str | None = None,
                    goal: Iterable[Atom] | str | None = None) -> str:
    """Plan reuse (t4): like ``plan_statement`` with PlanBench's t4 spacing."""
    text = f"{_head(tr, init)}\nMy goal is to have that {_goal(tr, goal)}.\nMy plan is as follows:\n\n{PLAN}"
    return text if plan is None else text + _plan(tr, plan) + " "


def replanning_statement(tr: Translator, plan: Steps, step: int, became_true: Iterable[Atom] | str,
                         became_false: Iterable[Atom] | str, new_plan: Steps | None = None, *,
                         init: Iterable[Atom] | str | None = None, goal: Iterable[Atom] | str | None = None) -> str:
    """Replanning (t6): the problem and its plan, the unexpected event after
    ``step`` (1-based) of it, then ``[PLAN]`` with the new plan (or nothing for the query)."""
    action = tr.action(plan[step - 1])
    text = (f"{_head(tr, init)}\nMy goal is to have that {_goal(tr, goal)}.\nMy plan is as follows:\n\n{PLAN}"
            f"{_plan(tr, plan)}\nDuring execution, an unexpected event has occurred.\n"
            f"After executing the action \"{action}\" at step {step} in the plan, the following facts unexpectedly "
            f"became true: {_facts(tr, became_true)}\nThe following facts became unexpectedly false: "
            f"{_facts(tr, became_false)}\nAfter re-planning from the new state, the plan is as follows:\n{PLAN}")
    return text if new_plan is None else text + _plan(tr, new_plan)


def fact_list(tr: Translator, atoms: Iterable[Atom]) -> str:
    """Facts joined PlanBench's way without sorting (the caller's order)."""
    return join_items([tr.atom(a) for a in atoms if tr.visible(a)])
