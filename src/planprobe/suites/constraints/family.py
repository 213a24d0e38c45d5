"""The constraint-planning family (PDoctor) as a ``Family``."""

from __future__ import annotations

import random
from typing import Optional

from ...environment import Environment, Limits
from ...schema import Case, Trace, Verdict
from ..base import PlannedCall
from . import oracle, plans
from .compiled import compiled
from .environment import ConstraintEnvironment
from .spec import FAMILY, check_spec, parse_spec


class ConstraintFamily:
    name = FAMILY
    faults = plans.FAULTS

    def validate(self, case: Case) -> None:
        check_spec(case, parse_spec(case))

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return ConstraintEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        return oracle.check(case, trace)

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        return plans.reference_plan(compiled(case))

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        return plans.random_plan(compiled(case), rng)

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> Optional[list[PlannedCall]]:
        return plans.faulty_plan(compiled(case), fault, rng)
