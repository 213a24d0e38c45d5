"""The hidden part of a protocol-wrapped case (``Case.spec`` of "holistic"/"stepwise").

The wrapper keeps its base case whole (``base``), so the base family's
environment and oracle judge the plan exactly as they would judge an executed
one. A step-wise case also stores its gold prefix (the first ``j`` calls of the
reference plan, with the results they gave) and the gold continuation, so
checking it never depends on recomputing the reference plan.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ...errors import PlanprobeError
from ...schema import Case
from ..base import PlannedCall
from ..spec_reading import StrictModel, read_spec

HOLISTIC = "holistic"
STEPWISE = "stepwise"
PROTOCOLS = (HOLISTIC, STEPWISE)
SPEC_VERSION = 1
MAX_STEPS = 3


class GoldCall(StrictModel):
    tool: str
    arguments: str  # exactly as the reference plan sends it
    result: str = ""  # what the tool answered (prefix steps only)

    def call(self) -> PlannedCall:
        return PlannedCall(self.tool, self.arguments)


class HolisticSpec(StrictModel):
    version: int = SPEC_VERSION
    base: dict[str, Any]


class StepwiseSpec(StrictModel):
    version: int = SPEC_VERSION
    base: dict[str, Any]
    k: int = Field(ge=1, le=MAX_STEPS)  # steps asked for
    prefix: list[GoldCall]  # the gold prefix shown to the agent (j = len(prefix))
    gold: list[GoldCall]  # the reference continuation: k steps, fewer where the plan ends

    def prefix_calls(self) -> list[PlannedCall]:
        return [g.call() for g in self.prefix]


def _model(case: Case) -> type[StrictModel]:
    if case.family == HOLISTIC:
        return HolisticSpec
    if case.family == STEPWISE:
        return StepwiseSpec
    raise PlanprobeError(f"case {case.id}: family {case.family!r} is not a planning protocol")


def spec_of(case: Case):
    """The wrapper's spec, parsed once per case object."""
    def build(c: Case):
        return read_spec(c, _model(c))
    return case.derived("protocols.spec", build)


def base_case(case: Case) -> Case:
    """The wrapped base case, parsed once per case object (its own derived data, e.g.
    the constraint family's compiled form, then lives as long as the wrapper's)."""
    def build(c: Case) -> Case:
        base = read_spec(c, Case, data=spec_of(c).base, prefix=("spec", "base"))
        if base.family in PROTOCOLS:
            raise PlanprobeError(f"case {c.id}: field 'spec.base.family': a protocol cannot wrap another "
                                 f"protocol ({base.family!r})")
        return base
    return case.derived("protocols.base", build)
