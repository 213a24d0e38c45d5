"""The seam between the solver's two layers.

* The **scaffold layer** turns one chat call (messages and tool list, in whatever form the
  agent scaffold uses: function calling, ReAct text, the modular agent's tags, a PMC role's
  prompt) into a ``ChatView`` — the task as the model was shown it and the calls made so far
  with what they returned — and a ``Decision`` back into that scaffold's answer form.
* A **task reader** (one per kind of task text) reads a ``ChatView`` and decides what a perfect
  planner does next, from that text alone.

Keeping the two apart means every reader is tested once per scaffold for free, and a case that
passes under one scaffold and fails under another points at the scaffold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Step:
    """One tool call: the tool's name and its arguments (already parsed)."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Observed:
    """A call the agent made and the text its tool returned."""

    step: Step
    result: str


@dataclass(frozen=True)
class ChatView:
    """What the model was shown, in one form for every scaffold.

    ``system``: the case's instructions (system prompt); ``task``: the task text; ``tools``: the
    tool schemas offered (OpenAI function form: name, description, parameters); ``history``: the
    calls made so far in this episode with their results, in order; ``unseen``: how many earlier
    calls the scaffold no longer shows (the modular agent shows only its last steps), so a reader
    knows ``history`` does not start at the beginning.
    """

    system: str
    task: str
    tools: tuple[dict[str, Any], ...] = ()
    history: tuple[Observed, ...] = ()
    unseen: int = 0


@dataclass(frozen=True)
class Decision:
    """What a perfect planner does next. Exactly one of the four is set:

    ``calls``: the next tool calls (one, or several independent ones); ``answer``: the final text
    answer (a plan in text, a PlanBench reply, an itinerary); ``refuse``: the task cannot be done,
    with the reason; ``underspecified``: the text does not determine an answer, naming what is
    missing (a finding about the family, recorded by the run, never hidden).
    """

    calls: tuple[Step, ...] = ()
    answer: str | None = None
    refuse: str | None = None
    underspecified: str | None = None

    def __post_init__(self) -> None:
        set_ = [bool(self.calls), self.answer is not None, self.refuse is not None, self.underspecified is not None]
        if sum(set_) != 1:
            raise ValueError("a Decision sets exactly one of calls, answer, refuse, underspecified")


class TaskReader(Protocol):
    """Reads one kind of task text. ``claims`` says whether the view is this reader's kind of
    task (from the text and tools alone); ``decide`` returns the next move."""

    name: str

    def claims(self, view: ChatView) -> bool: ...

    def decide(self, view: ChatView) -> Decision: ...
