"""What every case family provides, so runner, agents and reports stay generic."""

from __future__ import annotations

import random
from typing import NamedTuple, Optional, Protocol

from ..environment import Environment, Limits
from ..schema import Case, Trace, Verdict


class PlannedCall(NamedTuple):
    """One tool call a scripted (reference) agent will make, arguments as sent."""

    name: str
    arguments: str


class Family(Protocol):
    name: str
    # fault name -> the error class the oracle must report when it is injected
    faults: dict[str, str]

    def validate(self, case: Case) -> None:
        """Raise PlanprobeError naming the field if the case cannot be run."""
        ...

    def environment(self, case: Case, limits: Limits, trial: int, agent: str) -> Environment: ...

    def check(self, case: Case, trace: Trace) -> Verdict: ...

    def reference_plan(self, case: Case) -> list[PlannedCall]: ...

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]: ...

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> Optional[list[PlannedCall]]:
        """A plan with exactly this fault, or None when the case leaves no room for it."""
        ...
