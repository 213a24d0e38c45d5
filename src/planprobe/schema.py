"""The shared vocabulary: cases, tools, traces and verdicts.

Every case family (constraint planning, PDDL, robustness variants, judged tasks)
speaks these types, so suites, runs and reports need no family-specific plumbing.
What differs between families lives in ``Case.spec``: a JSON object the family
validates itself and the agent never sees.

The format is versioned (``SCHEMA_VERSION``). A reader accepts every version up to
its own and refuses newer ones with a message that says to upgrade.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, Literal, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
)

from .tool_args import parse_arguments, validate_arguments

SCHEMA_VERSION = 1
# Traces have their own version: 2 added who spoke (``agent``/``step`` on messages and
# calls), sub-episodes, per-role models and the re-rollout link; version 1 traces read
# as they are (those fields take their defaults; see runner/steps.py for their steps).
TRACE_VERSION = 2
DEFAULT_ROLE = "agent"  # the role of a single-model agent, and of everything a role-less agent does


class _Model(BaseModel):
    """Strict about unknown fields so typos in hand-written suites are caught."""

    model_config = ConfigDict(extra="forbid")


class OracleKind(str, Enum):
    """Where a verdict comes from: an exact check, or an LLM judge."""

    FORMAL = "formal"
    JUDGED = "judged"


class ErrorClass(str, Enum):
    """Verdict error classes. Definition order is precedence: the first class a
    failed trace shows is its primary class, the one counted in distributions."""

    INFRA = "infra"  # the model service failed; never a planning failure
    AGENT_CRASH = "agent_crash"  # the agent code raised
    TIMEOUT = "timeout"  # time, iteration or context-window limit hit
    MISSED_REFUSAL = "missed_refusal"  # an unsolvable task was attempted instead of refused
    WRONG_REFUSAL = "wrong_refusal"  # a solvable task was refused
    ACT_ERROR = "act_error"  # unknown tool, malformed or invalid arguments
    EXTRANEOUS_TOOL = "extraneous_tool"  # a distractor tool the task does not need was called
    ACTION_LOST = "action_lost"  # a required action never executed
    REPEATED_ACTION = "repeated_action"  # an action executed more than once
    PARAMETER_ERROR = "parameter_error"  # wrong start time: overlap or past the day
    ORDER_ERROR = "order_error"  # an order or time-window constraint violated
    SUBOPTIMAL_COST = "suboptimal_cost"  # a valid plan, but dearer than the cheapest one


ERROR_PRECEDENCE: dict[str, int] = {e.value: i for i, e in enumerate(ErrorClass)}


def sort_errors(errors: set[str] | list[str]) -> list[str]:
    """Order error classes by precedence; unknown (future) classes go last."""
    return sorted(set(errors), key=lambda e: (ERROR_PRECEDENCE.get(e, len(ERROR_PRECEDENCE)), e))


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


class ToolSpec(_Model):
    """A tool as the agent sees it (OpenAI function-calling shape). Frozen, so
    generators can share one instance between the cases that offer the tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}, "additionalProperties": False}
    )

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


class CaseMeta(_Model):
    """Facts about a case used to slice results; never shown to the agent."""

    topic: str | None = None
    difficulty: dict[str, float] = Field(default_factory=dict)
    seed: int | None = None
    generator: dict[str, Any] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    transforms: list[str] = Field(default_factory=list)
    parent: str | None = None  # the case this one was derived from (mutants, variants)


class Case(_Model):
    """One test: what the agent is told, the tools it gets, and the hidden spec
    its environment and oracle are built from."""

    schema_version: int = SCHEMA_VERSION
    id: str = Field(min_length=1)
    family: str = Field(min_length=1)
    task: str
    system: str | None = None
    tools: list[ToolSpec] = Field(default_factory=list)
    oracle: OracleKind = OracleKind.FORMAL
    spec: dict[str, Any] = Field(default_factory=dict)
    meta: CaseMeta = Field(default_factory=CaseMeta)

    # What a family derives from the case (a parsed spec, a compiled checker),
    # kept with the instance so repeated checks do not redo it. Never serialised.
    _derived: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __copy__(self):
        # a copy (model_copy, maybe with a changed spec) must not inherit derived data
        clone = super().__copy__()
        object.__setattr__(clone, "__pydantic_private__", {"_derived": {}})
        return clone

    def __deepcopy__(self, memo=None):
        clone = super().__deepcopy__(memo)
        object.__setattr__(clone, "__pydantic_private__", {"_derived": {}})
        return clone

    def forget_derived(self) -> None:
        """Drop derived data (a long run calls this when a case is finished)."""
        private = self.__pydantic_private__
        assert private is not None  # the model declares a private attribute, so pydantic made the dict
        private["_derived"] = {}

    def derived(self, key: str, build):
        # straight to pydantic's private-attribute dict: this runs once per verdict
        private = self.__pydantic_private__
        assert private is not None  # as in forget_derived
        cache = private["_derived"]
        value = cache.get(key)
        if value is None:
            value = cache[key] = build(self)
        return value


# ---------------------------------------------------------------------------
# Traces
# ---------------------------------------------------------------------------


class ToolCallError(str, Enum):
    UNKNOWN_TOOL = "unknown_tool"
    MALFORMED_ARGUMENTS = "malformed_arguments"  # not a JSON object
    INVALID_ARGUMENTS = "invalid_arguments"  # JSON, but not what the schema asks
    TOOL_FAILURE = "tool_failure"  # the tool itself failed (broken-tool variants)


class ToolCall(_Model):
    index: int
    attempt: int = 0  # annotation: the attempt the environment counted; never read when judging
    name: str
    arguments: str  # exactly as the agent sent it
    args: dict[str, Any] | None = None  # parsed arguments, None when malformed
    result: str = ""
    error: str | None = None  # a ToolCallError value, None when the call was valid
    call_id: str | None = None
    t_start: float = 0.0  # seconds since the episode began
    t_end: float = 0.0
    # who made it (trace version 2): the agent role, the iteration (``env.step()`` count) it
    # was made in, and the sub-episode it belongs to (None: the episode itself)
    agent: str | None = None
    step: int | None = None
    episode: str | None = None


# Message fields that annotate a trace and are never sent to a model
MESSAGE_ANNOTATIONS = {"agent", "step"}


class Message(_Model):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    # trace annotations (version 2), set by the environment when it logs the message:
    # the agent role whose context it belongs to and the iteration it was logged in
    agent: str | None = None
    step: int | None = None
    # extra content parts after the text (OpenAI shape, e.g. {"type": "image_url", …}); text-only
    # backends leave them out with a note in the text
    parts: list[dict[str, Any]] | None = None

    def wire(self) -> dict[str, Any]:
        """The message as a model receives it (OpenAI shape): no annotations, no empty fields."""
        return self.model_dump(exclude_none=True, exclude=MESSAGE_ANNOTATIONS)


class Usage(_Model):
    model_calls: int = 0  # calls that reached the model
    cached_calls: int = 0  # calls answered from the record/replay cache
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def add(self, other: Usage) -> None:
        self.model_calls += other.model_calls
        self.cached_calls += other.cached_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd


class TraceStatus(str, Enum):
    COMPLETED = "completed"  # the agent stopped by itself
    TIMEOUT = "timeout"
    ITERATION_LIMIT = "iteration_limit"
    AGENT_ERROR = "agent_error"  # the agent code raised
    INFRA_ERROR = "infra_error"  # the model service failed past all retries
    CONTEXT_LIMIT = "context_limit"  # the conversation outgrew the model's context window


class TraceError(_Model):
    kind: str
    message: str
    t: float = 0.0


class SubEpisode(_Model):
    """A sub-agent's own conversation inside an episode (a planner's executor): its
    messages and answer; the tool calls it makes stay in ``Trace.tool_calls`` (the one
    log the oracle judges), marked with its ``id`` in ``ToolCall.episode``."""

    id: str  # unique in the trace, "<role>-<n>" in the order the episodes began
    agent: str  # its role
    parent: str | None = None  # the sub-episode it runs inside; None: the episode itself
    task: str | None = None  # what it was asked to do
    step: int = 0  # the iteration in which it began
    messages: list[Message] = Field(default_factory=list)
    final_answer: str | None = None
    usage: Usage = Field(default_factory=Usage)


class Origin(_Model):
    """The link from a re-rollout to the episode it re-ran (runner/rollout.py): the first
    ``steps`` iterations of the original were replayed, then ``guidance`` was inserted."""

    case_id: str
    trial: int = 0
    agent: str
    trace_sha256: str  # of the original trace's JSON: which episode, exactly
    steps: int  # iterations replayed from the original
    replayed_calls: int  # tool calls replayed (the first ones of this trace)
    replayed_messages: int  # messages copied from the original (the first ones of this trace)
    guidance: str | None = None
    guidance_message: int | None = None  # index in ``messages`` of the inserted guidance
    attempt: int = 1  # 1, 2, … for repeated re-rollouts of one original
    run: str | None = None  # the run directory the original came from, when known


class Trace(_Model):
    """Everything that happened in one episode, enough to re-check it offline."""

    schema_version: int = TRACE_VERSION
    case_id: str
    trial: int = 0
    agent: str
    model: str | None = None
    status: TraceStatus = TraceStatus.COMPLETED
    messages: list[Message] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    final_answer: str | None = None
    restarts: int = 0  # annotation: restarts the environment granted; judging counts them from the calls
    iterations: int = 0
    usage: Usage = Field(default_factory=Usage)
    errors: list[TraceError] = Field(default_factory=list)
    wall_time_s: float = 0.0
    meta: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, str] = Field(default_factory=dict)  # role -> model name, when roles had their own
    episodes: list[SubEpisode] = Field(default_factory=list)  # sub-episodes, in the order they began
    origin: Origin | None = None  # set on a re-rollout: the episode it re-ran

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value < 1:
            raise ValueError(f"{value} is not a trace version (1 or more)")
        if value > TRACE_VERSION:
            raise ValueError(f"trace version {value} is newer than this planprobe understands ({TRACE_VERSION}); "
                             "upgrade planprobe")
        return value

    def attempts(self, restart_tool: ToolSpec | None) -> list[list[ToolCall]]:
        """The calls split into attempts, from the raw calls alone (see ``split_attempts``);
        the ``attempt`` and ``restarts`` annotations are never read."""
        return split_attempts(self.tool_calls, restart_tool)

    def judged_calls(self, restart_tool: ToolSpec | None) -> list[ToolCall]:
        """The calls of the last attempt, the only one judged. ``restart_tool`` is the case's
        restart tool (None when its environment grants no restarts: every call is judged)."""
        return split_attempts(self.tool_calls, restart_tool)[-1]

    def restart_count(self, restart_tool: ToolSpec | None) -> int:
        """How many restarts the environment granted, counted from the raw calls."""
        return len(split_attempts(self.tool_calls, restart_tool)) - 1


_Call = TypeVar("_Call")


def granted_restart(name: str, arguments: str, restart_tool: ToolSpec | None) -> bool:
    """Whether a call (as sent) is one the environment grants as a restart: a call of the
    restart tool whose arguments are a JSON object that fits the tool's schema. A malformed
    or invalid restart call is refused by the environment like any invalid call — no restart
    happens, and the call stays in its attempt, where the oracle judges it as an Act Error."""
    if restart_tool is None or name != restart_tool.name:
        return False
    args = parse_arguments(arguments)
    return args is not None and not validate_arguments(restart_tool.parameters, args)


def split_attempts(calls: Sequence[_Call], restart_tool: ToolSpec | None) -> list[list[_Call]]:
    """Attempt boundaries from the raw tool log only: every granted restart call (see
    ``granted_restart``) ends its attempt and is its last call; the calls after it form the
    next attempt. Always at least one attempt; the last one is empty when the log ends with
    a restart. Works on anything with ``name`` and ``arguments`` (recorded or planned calls).

    Judging from the raw calls means a trace is judged the same with its annotations
    stripped, and an annotation that claims a restart no call asked for is never believed."""
    if restart_tool is None:
        return [list(calls)]
    out: list[list[_Call]] = [[]]
    for call in calls:
        out[-1].append(call)
        if granted_restart(call.name, call.arguments, restart_tool):  # type: ignore[attr-defined]
            out.append([])
    return out


# ---------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------


class Evidence(_Model):
    """One reason a verdict failed, symbolically and in the case's own words."""

    error: str  # an ErrorClass value
    kind: str  # e.g. "violated_constraint", "lost_action", "invalid_call"
    symbolic: str
    text: str
    step: int | None = None  # index of the tool call concerned, if any
    constraint_ids: list[str] = Field(default_factory=list)


class Verdict(_Model):
    # validate_by_name: "unsat_core" is read either way (it is one of the alias choices); saying so keeps the
    # pydantic mypy plugin from treating the field as reachable only through a dynamic alias
    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True)

    schema_version: int = SCHEMA_VERSION
    case_id: str
    trial: int = 0
    passed: bool
    errors: list[str] = Field(default_factory=list)  # ErrorClass values, primary first
    evidence: list[Evidence] = Field(default_factory=list)
    # a minimum unsatisfiable set of constraint ids (the plan's violations that cannot all be fixed);
    # stored as "core", the name run directories of every version use
    unsat_core: list[str] = Field(default_factory=list, validation_alias=AliasChoices("unsat_core", "core"),
                                  serialization_alias="core")
    oracle: OracleKind = OracleKind.FORMAL
    checker: str = ""
    score: float | None = None
    # what a check observed beyond pass/fail, e.g. {"refused": True, "broken_tool": "used_replacement",
    # "cost": 11, "min_cost": 9}: robustness analyses count these
    labels: dict[str, Any] = Field(default_factory=dict)

    @property
    def primary(self) -> str | None:
        return self.errors[0] if self.errors else None

    @property
    def infra(self) -> bool:
        return ErrorClass.INFRA.value in self.errors
