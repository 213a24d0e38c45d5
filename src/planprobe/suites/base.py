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


# OPTIONAL methods. Callers look them up with getattr and do without them, so a
# family implements only those its cases can answer (not part of the Protocol, so
# that isinstance-free duck typing keeps every existing family conforming):
#
# For the planning protocols (suites/protocols), on a base family:
#   planning_tools(case) -> list[ToolSpec]
#       the tools as an agent that plans without executing must see them (e.g. with
#       durations that would otherwise be revealed only by running). Default: case.tools.
#   extendable(case, calls: list[PlannedCall]) -> tuple[bool, str]
#       whether the calls, as the beginning of a plan, can still be completed into a
#       valid plan; the string says why not. Required by the step-wise protocol.
#   prefix_evidence(case, calls) -> list[Evidence]
#       the same question answered as verdict evidence (error classes, constraint ids);
#       empty when extendable. Without it a step-wise failure gets one generic
#       order_error evidence built from extendable's reason.
#
# For judging attempts (suites/registry.restart_tool_of, schema.split_attempts), on any family
# whose environment grants restarts:
#   restart_tool(case) -> Optional[str]
#       the name of the tool whose valid calls the environment grants as restarts; attempt
#       boundaries are derived from the raw calls of that tool, never from annotations.
#       Default (no hook): no restarts, every call is judged.
#
# For the reference agents (agents/reference.py), on any family whose agent answers
# in text instead of calling tools (the protocol wrappers):
#   reference_answer(case) -> str                          the oracle agent's answer
#   random_answer(case, rng) -> str                        the random agent's answer
#   faulty_answer(case, fault, rng) -> Optional[str]       one fault injected, or None
#       when the case leaves no room for it (the agent then gives the reference answer)
