"""The hidden part of a ``pddl`` case (``Case.spec``).

Self-contained: the domain and problem as PDDL text (any STRIPS domain the
parser reads, obfuscated or not), how the world talks to the agent, and the
policy for failed calls. Everything else (tools, ground actions, reference
plans) is derived from it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...schema import Case
from ..spec_reading import read_spec

SPEC_VERSION = 1
FAMILY = "pddl"


class AgentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = SPEC_VERSION
    domain: str = Field(min_length=1)  # PDDL domain text
    problem: str = Field(min_length=1)  # PDDL problem text
    # how states, goals and actions are said: "nl" through the domain's translation
    # config (translation.py), "pddl" as PDDL facts like (on a b)
    language: Literal["nl", "pddl"] = "pddl"
    # what a successful call returns: the whole state after it, or only what changed
    observation: Literal["state", "changes"] = "state"
    # "error": a call whose preconditions do not hold is a planning error (order_error);
    # "allowed": it is feedback the agent may learn from, only the final state counts
    failed_calls: Literal["error", "allowed"] = "error"
    # the task's parts as shown to the agent: domain (rules), init, goal, objects (legend)
    description: dict[str, str] = Field(default_factory=dict)
    # obfuscation: original name -> shown name (obfuscate.Renaming.to_json()); None if plain
    renaming: dict[str, Any] | None = None
    # a known valid plan (PDDL steps) and whether it is optimal; None: computed when needed
    plan: list[str] | None = None
    plan_optimal: bool | None = None


def parse_spec(case: Case) -> AgentSpec:
    return read_spec(case, AgentSpec, FAMILY)
