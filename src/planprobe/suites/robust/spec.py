"""The hidden part of a robustness variant (``Case.spec`` of family "robust").

The variant keeps its base case whole (``base``), so the base family's
environment and oracle judge the planning itself, and records what was changed
around it: which tools are distractors, which one is broken and what replaces
it, why the case is unsolvable, what each tool costs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ...schema import Case
from ..spec_reading import StrictModel, read_spec

FAMILY = "robust"
SPEC_VERSION = 2  # 2: aliases (renamed tools), given parameter values, symmetric broken pairs
REFUSE_TOOL = "refuse"


class Broken(StrictModel):
    tool: str  # the needed tool that fails
    replacement: str  # the designated replacement, which works
    error: str  # the realistic error the broken tool returns


class Given(StrictModel):
    """A required parameter of a tool whose value the task states (missing-info's controls)."""

    tool: str
    param: str
    value: str


class Unsolvable(StrictModel):
    kind: Literal["removal", "contradiction", "missing-info"]
    proof: str  # why no plan exists, for the evidence
    removed_tool: str | None = None
    missing_tool: str | None = None
    missing_param: str | None = None


class Composite(StrictModel):
    tool: str
    first: str
    second: str
    cost: int


class RobustSpec(StrictModel):
    version: int = SPEC_VERSION
    base: dict[str, Any]  # the base case (with a contradiction added, for that kind)
    transforms: list[str]
    distractors: list[str] = Field(default_factory=list)
    broken: Broken | None = None
    unsolvable: Unsolvable | None = None
    refuse_tool: str | None = None  # present in every case of a suite with unsolvable variants
    costs: dict[str, int] = Field(default_factory=dict)
    composites: list[Composite] = Field(default_factory=list)
    min_cost: int | None = None
    min_cost_plan: list[str] = Field(default_factory=list)
    min_cost_args: list[str] = Field(default_factory=list)  # arguments (JSON) of each call; empty: none
    aliases: dict[str, str] = Field(default_factory=dict)  # variant tool name -> the base tool it runs
    given: Given | None = None

    def base_name(self, name: str) -> str:
        """The base tool a variant tool runs (spec version 1 named the replacement only in ``broken``)."""
        if name in self.aliases:
            return self.aliases[name]
        if self.version < 2 and self.broken is not None and name == self.broken.replacement:
            return self.broken.tool
        return name

    def alias_of(self, base: str, variant_names: frozenset[str] | set[str]) -> str:
        """The variant's name for a base tool: its own if the variant has it, else its alias."""
        if base in variant_names:
            return base
        return next((a for a, b in self.aliases.items() if b == base), base)


def parse_spec(case: Case) -> RobustSpec:
    return read_spec(case, RobustSpec, FAMILY)


def base_case(case: Case) -> Case:
    """The base case of a variant, parsed once per case object."""
    def build(c: Case) -> Case:
        return read_spec(c, Case, data=spec_of(c).base, prefix=("spec", "base"))
    return case.derived("robust.base", build)


def spec_of(case: Case) -> RobustSpec:
    return case.derived("robust.spec", parse_spec)


def follow_on_args(base: Case, first: str, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments a composite passes its second action: the base family's
    ``follow_on_args`` hook (a timed case's start shifts by the first's duration), else the same."""
    from ..base import ChainsComposites, has_capability
    from ..registry import get_family

    family = get_family(base.family)
    return family.follow_on_args(base, first, args) if has_capability(family, ChainsComposites) else args
