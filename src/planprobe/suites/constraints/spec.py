"""The hidden part of a constraint-family case (``Case.spec``).

Everything the environment and the oracle need: the actions and their tools,
the derived constraints with the clauses they come from (so evidence can quote
the case's own words), the seeded durations of the extended mode, and the
skeleton (so dissection can re-word the case without changing its meaning).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ...errors import PlanprobeError
from ...schema import Case
from ..spec_reading import StrictModel, read_spec

SPEC_VERSION = 2  # 2: word tables with one meaning per phrase, and ``style``; 1 still reads
FAMILY = "constraints"
RESTART_TOOL = "request_restart"
STYLES = ("planprobe", "paper")


class ActionSpec(StrictModel):
    id: str
    name: str
    tool: str
    duration: int | None = None  # extended mode: hours, revealed only when the tool runs


class ConstraintAtom(StrictModel):
    """``order``: a before b; ``start_ge``: a starts at hour or later; ``end_le``: a ends by hour."""

    id: str
    kind: Literal["order", "start_ge", "end_le"]
    a: str
    b: str | None = None
    hour: int | None = None
    clauses: list[int] = Field(default_factory=list)

    def later(self) -> str:
        """``b`` of an order constraint (check_spec has made sure it is there)."""
        if self.b is None:
            raise KeyError(f"constraint {self.id}: an order constraint needs 'b'")
        return self.b

    def bound(self) -> int:
        """``hour`` of a time window (check_spec has made sure it is there)."""
        if self.hour is None:
            raise KeyError(f"constraint {self.id}: a time window needs 'hour'")
        return self.hour


class ConstraintSpec(StrictModel):
    version: int = SPEC_VERSION
    mode: Literal["basic", "extended"]
    style: Literal["planprobe", "paper"] = "planprobe"  # "paper": PDoctor's own templates, tools and classes
    actions: list[ActionSpec]
    constraints: list[ConstraintAtom]
    # where each sub-sentence lies in the task text: [start, end) character offsets,
    # so evidence quotes the case's own words and reports can highlight them in place
    clauses: list[tuple[int, int]]
    skeleton: list[dict[str, Any]] = Field(default_factory=list)
    horizon: int = 24

    @property
    def extended(self) -> bool:
        return self.mode == "extended"

    @property
    def paper(self) -> bool:
        return self.style == "paper"


def parse_spec(case: Case) -> ConstraintSpec:
    spec = read_spec(case, ConstraintSpec, FAMILY)
    if not 1 <= spec.version <= SPEC_VERSION:
        raise PlanprobeError(f"field 'spec.version': version {spec.version} is not one this planprobe reads "
                             f"(1-{SPEC_VERSION}); upgrade planprobe")
    return spec


def check_spec(case: Case, spec: ConstraintSpec) -> None:
    """Cross-field checks pydantic cannot do: ids resolve, tools exist, durations set."""
    ids = [a.id for a in spec.actions]
    if len(set(ids)) != len(ids):
        raise PlanprobeError("field 'spec.actions': action ids repeat")
    if len(spec.actions) < 1:
        raise PlanprobeError("field 'spec.actions': no actions")
    tools = {t.name for t in case.tools}
    for k, a in enumerate(spec.actions):
        if a.tool not in tools:
            raise PlanprobeError(f"field 'spec.actions.{k}.tool': no tool named {a.tool!r} in the case's tools")
        if spec.extended and (a.duration is None or a.duration < 1):
            raise PlanprobeError(f"field 'spec.actions.{k}.duration': extended cases need a duration >= 1")
    for k, (start, end) in enumerate(spec.clauses):
        if not 0 <= start <= end <= len(case.task):
            raise PlanprobeError(f"field 'spec.clauses.{k}': span [{start}, {end}) lies outside the task text")
    known = set(ids)
    for k, c in enumerate(spec.constraints):
        refs = [c.a] + ([c.b] if c.kind == "order" else [])
        for r in refs:
            if r not in known:
                raise PlanprobeError(f"field 'spec.constraints.{k}': unknown action id {r!r}")
        if c.kind == "order" and c.b is None:
            raise PlanprobeError(f"field 'spec.constraints.{k}.b': an order constraint needs 'b'")
        if c.kind != "order" and c.hour is None:
            raise PlanprobeError(f"field 'spec.constraints.{k}.hour': a time window needs 'hour'")
