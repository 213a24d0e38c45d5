"""Reference agents that need no model.

* ``oracle`` executes a plan its family's solver computed from the hidden spec:
  it must pass every case, which makes it the check that cases are solvable and
  that the oracle accepts valid plans.
* ``random`` executes every action once in random order: the floor any model
  should beat.
* ``faulty:<fault>`` executes a valid plan with exactly one injected fault, so
  tests can prove the oracle names each fault's class. When a case leaves no
  room for the fault it runs the valid plan and says so in ``trace.meta``.

A family whose agents answer in text instead of calling tools (the planning
protocols) has the ``AnswersInText`` capability; the agents then finish with its
answer and execute nothing.
"""

from __future__ import annotations

import random

from ..environment import Environment
from ..schema import Case, ErrorClass
from ..suites.base import (
    AnswersInText,
    AnswersSomeInText,
    ClassifiesFaults,
    PlannedCall,
)
from ..suites.registry import get_family

FINAL_ANSWER = "All tasks are done."


async def _execute(env: Environment, calls: list[PlannedCall]) -> str:
    for call in calls:
        env.step()
        env.call(call.name, call.arguments)
    env.finish(FINAL_ANSWER)
    return FINAL_ANSWER


def _answer(env: Environment, answer: str) -> str:
    """Finish with a text answer (families whose agents plan instead of executing)."""
    env.step()
    env.finish(answer)
    return answer


def _rng(kind: str, case: Case, env: Environment, seed: int) -> random.Random:
    return random.Random(f"planprobe/agent/{kind}/{seed}/{case.id}/{env.trace.trial}")


class OracleAgent:
    name = "oracle"

    async def __call__(self, case: Case, env: Environment) -> str | None:
        family = get_family(case.family)
        answer = family.reference_answer(case) if isinstance(family, AnswersSomeInText) else None
        if answer is not None:  # a family may answer in text for some cases only (judged: APB's protocol)
            return _answer(env, answer)
        return await _execute(env, family.reference_plan(case))


class RandomAgent:
    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    async def __call__(self, case: Case, env: Environment) -> str | None:
        family = get_family(case.family)
        if isinstance(family, AnswersInText):
            return _answer(env, family.random_answer(case, _rng("random", case, env, self.seed)))
        return await _execute(env, family.random_plan(case, _rng("random", case, env, self.seed)))


class FaultyAgent:
    def __init__(self, fault: str, seed: int = 0):
        self.fault = fault
        self.seed = seed
        self.name = f"faulty:{fault}"

    async def __call__(self, case: Case, env: Environment) -> str | None:
        family = get_family(case.family)
        env.trace.meta["fault"] = self.fault
        expected = (family.fault_class(case, self.fault) if isinstance(family, ClassifiesFaults)
                    else family.faults.get(self.fault))
        env.trace.meta["expected_error"] = expected
        if self.fault == "stall":  # think forever without acting: this agent does it in any family
            env.trace.meta["expected_error"] = expected or ErrorClass.TIMEOUT.value
            env.trace.meta["fault_injected"] = True
            while True:
                env.step()
        if isinstance(family, AnswersInText):
            answer = family.faulty_answer(case, self.fault, _rng("faulty", case, env, self.seed))
            env.trace.meta["fault_injected"] = answer is not None
            return _answer(env, answer if answer is not None else family.reference_answer(case))
        plan = family.faulty_plan(case, self.fault, _rng("faulty", case, env, self.seed))
        env.trace.meta["fault_injected"] = plan is not None
        if plan is None:
            plan = family.reference_plan(case)
        return await _execute(env, plan)
