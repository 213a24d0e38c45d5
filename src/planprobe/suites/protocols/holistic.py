"""The holistic planning protocol (APB §3, Fig. 34) as a ``Family`` ("holistic").

The agent writes the whole plan as JSON — ``{"plan": …, "tool_chain": [{"tool",
"parameters", "reason"}, …]}`` — and executes nothing. The check replays the
tool chain, in order, through a fresh environment of the base case and lets the
base family's oracle judge the resulting trace: the same error classes and
evidence as an executed plan, with steps numbered by their place in the chain.

A call to a tool the base case has but the planning agent was not shown (the
constraint family's restart tool in the extended mode) is an Act Error: a plan
made in advance cannot restart.

Faults: every executable family's (the base plan with that fault, written as a
tool chain) plus ``unparseable`` (an answer in Python-dict quotes: not JSON).
"""

from __future__ import annotations

import random

from ...schema import Case, Trace
from ..base import ClassifiesFaults, PlannedCall
from ..registry import get_family
from . import prompts
from .family import ACT, UNPARSEABLE, ProtocolFamily, base_faults, not_offered
from .spec import HOLISTIC, base_case
from .wrap import replay

PLAN_SUMMARY = "Carry out every task once, in an order that meets every requirement."


class HolisticFamily(ProtocolFamily):
    name = HOLISTIC
    answer_keys = ("tool_chain", "steps", "calls")

    @property
    def faults(self) -> dict[str, str]:
        return {**base_faults(), UNPARSEABLE: ACT}

    def fault_class(self, case: Case, fault: str) -> str | None:
        """The base family's class for its faults (it may depend on the case, e.g. its style)."""
        if fault == UNPARSEABLE:
            return ACT
        base = base_case(case)
        family = get_family(base.family)
        found = family.fault_class(base, fault) if isinstance(family, ClassifiesFaults) else family.faults.get(fault)
        return found if found is not None else self.faults.get(fault)  # e.g. stall, which the agent does anywhere

    def _judge(self, case: Case, base: Case, calls: list[PlannedCall], trace: Trace):
        extra = not_offered(base, calls)
        verdict = get_family(base.family).check(base, replay(base, calls, trace.trial, trace.agent))
        return verdict, extra

    # -- reference agents ----------------------------------------------------

    def reference_answer(self, case: Case) -> str:
        base = base_case(case)
        return prompts.holistic_answer(get_family(base.family).reference_plan(base), PLAN_SUMMARY)

    def random_answer(self, case: Case, rng: random.Random) -> str:
        base = base_case(case)
        return prompts.holistic_answer(get_family(base.family).random_plan(base, rng), PLAN_SUMMARY)

    def faulty_answer(self, case: Case, fault: str, rng: random.Random) -> str | None:
        if fault == UNPARSEABLE:
            return self.reference_answer(case).replace('"', "'")
        base = base_case(case)
        family = get_family(base.family)
        if fault not in family.faults:
            return None
        plan = family.faulty_plan(base, fault, rng)
        return None if plan is None else prompts.holistic_answer(plan, PLAN_SUMMARY)
