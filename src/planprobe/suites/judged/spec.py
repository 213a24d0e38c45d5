"""The spec of a judged case: what the judge needs to know, and what the mock
tools return.

Judged cases are open-ended tasks with no formal oracle (imported APB cases,
hand-written tasks). Their spec holds the setting the judge applies (plain
planning, next-step prediction, extraneous tools, a broken tool, an unsolvable
task), the reference solution the judge is shown as guidance, the steps already
taken (for next-step prediction), and the recorded outputs the mock tools
replay, as APB's trajectories record them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...errors import PlanprobeError
from ...schema import Case, OracleKind
from ..spec_reading import read_spec

FAMILY = "judged"
SPEC_VERSION = 2  # 2: ``protocol`` "apb" with the APB record kept verbatim; 1 still reads
SETTINGS = ("plan", "next_steps", "extraneous", "broken", "unsolvable")
PROTOCOLS = ("execute", "apb")


class Step(BaseModel):
    """One step of a trajectory, normalized from whichever shape the source used."""

    model_config = ConfigDict(extra="forbid")

    tool: str | None = None
    arguments: dict[str, Any] | str | None = None
    thought: str | None = None
    output: str | None = None
    text: str | None = None  # a step that is not a tool call (a message, an answer)
    action: str | None = None  # an action written as text (OpenCUA's sentences, FrameThinker's <action>)


class Reference(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: str | None = None  # a natural-language summary of the strategy
    steps: list[Step] = Field(default_factory=list)  # the tool chain, or the next steps


class ImageRef(BaseModel):
    """An image APB attaches to the prompt: where it is, and what it must hash to."""

    model_config = ConfigDict(extra="forbid")

    path: str  # relative to the APB data directory, as in the record
    mime: str
    sha256: str


class JudgedSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = SPEC_VERSION
    settings: list[str] = Field(default_factory=lambda: ["plan"])
    horizon: int | None = Field(default=None, ge=1, le=10)  # next_steps: how many steps to take
    prefix: list[Step] = Field(default_factory=list)  # steps already taken, shown to the agent
    reference: Reference | None = None
    remaining: list[Step] = Field(default_factory=list)  # the reference's later steps (context only)
    distractors: list[str] = Field(default_factory=list)
    broken_tool: str | None = None
    replacement_tool: str | None = None
    unsolvable_type: str | None = None
    outputs: dict[str, list[str]] = Field(default_factory=dict)  # tool -> recorded outputs, replayed in order
    files: list[str] = Field(default_factory=list)  # referenced files (not available to text agents)
    source: dict[str, Any] = Field(default_factory=dict)
    # protocol "apb": one reply to APB's own prompt, nothing executed; ``apb`` is the
    # record as APB ships it (every field), ``images`` the image files APB would attach
    protocol: str = "execute"
    apb: dict[str, Any] | None = None
    images: list[ImageRef] = Field(default_factory=list)
    data_dir: str | None = None  # where ``images`` are, resolved at run time


def parse_spec(case: Case) -> JudgedSpec:
    return case.derived("judged_spec", _parse)


def _parse(case: Case) -> JudgedSpec:
    return read_spec(case, JudgedSpec)


def check_spec(case: Case, spec: JudgedSpec) -> None:
    """The cross-field checks pydantic cannot do: settings known, named tools offered."""
    if case.oracle != OracleKind.JUDGED:
        raise PlanprobeError("field 'oracle': a judged case needs \"oracle\": \"judged\"")
    if spec.version > SPEC_VERSION:
        raise PlanprobeError(f"field 'spec.version': {spec.version} is newer than this planprobe understands "
                             f"({SPEC_VERSION}); upgrade planprobe")
    for s in spec.settings:
        if s not in SETTINGS:
            raise PlanprobeError(f"field 'spec.settings': unknown setting {s!r} (known: {', '.join(SETTINGS)})")
    if not spec.settings:
        raise PlanprobeError("field 'spec.settings': name at least one setting")
    if spec.protocol not in PROTOCOLS:
        raise PlanprobeError(f"field 'spec.protocol': unknown protocol {spec.protocol!r} (known: {', '.join(PROTOCOLS)})")
    if spec.protocol == "apb" and spec.apb is None:
        raise PlanprobeError("field 'spec.apb': protocol apb needs the APB record")
    if spec.protocol == "apb":  # APB's record carries the setting's facts; nothing is offered as a tool
        return
    if "next_steps" in spec.settings and spec.horizon is None:
        raise PlanprobeError("field 'spec.horizon': next_steps needs the number of steps to predict")
    names = {t.name for t in case.tools}
    for field_name, tool in (("broken_tool", spec.broken_tool), ("replacement_tool", spec.replacement_tool)):
        if tool is not None and tool not in names:
            raise PlanprobeError(f"field 'spec.{field_name}': {tool!r} is not one of the case's tools")
    for tool in spec.distractors:
        if tool not in names:
            raise PlanprobeError(f"field 'spec.distractors': {tool!r} is not one of the case's tools")
    if "broken" in spec.settings and spec.broken_tool is None:
        raise PlanprobeError("field 'spec.broken_tool': the broken setting needs the broken tool's name")
