"""``--model solver``: a model backend that plans perfectly from what a model is shown.

Each ``chat`` call is answered from that call alone: the scaffold layer reads the messages and
the tool list into a ``ChatView``, the first task reader that claims it decides, and the
decision goes back in the call's answer form. Nothing else is consulted: no case, suite, run
store or cache (the only state kept is the PDDL reader's memo, keyed by exactly the texts a reading
reads of a call — system prompt, task text, tool schemas — and valued by that reading). Deterministic, no network.

Usage is counted so runs report it like any backend: one model call per chat; prompt and
completion "tokens" are whitespace-separated words of the messages sent and of the reply (no
tokenizer; a rough size, never a price).

A call the solver cannot read, or whose text does not determine an answer, is answered with
the marker ``UNDERSPECIFIED:`` and what was missing (a finding about the family or the scaffold,
recorded by the run as ``labels.solver.underspecified``), never with a guess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..models.base import ChatParams, ChatResult
from ..models.registry import ModelEntry
from ..schema import Message, ToolSpec, Usage
from .base import ChatView, Decision
from .pmc_roles import role_reply
from .protocols import protocol_decision
from .readers import readers
from .scaffolds import Read, UnreadableChat, read_chat, refusal_made, render

if TYPE_CHECKING:
    from ..models import ModelOptions

NAME = "solver"


def word_count(messages: list[Message]) -> int:
    """The backend's token count: whitespace-separated words of the messages' text and tool calls."""
    return sum(len((m.content or "").split()) + sum(len(str(tc).split()) for tc in (m.tool_calls or []))
               for m in messages)


def answer(messages: list[Message], tools: list[ToolSpec] | None) -> Message:
    """The solver's reply to one chat call (also what ``SolverModel.chat`` returns)."""
    role = role_reply(messages) if not tools else None  # PMC's planning roles answer in their own forms
    if role is not None:
        return role
    try:
        read = read_chat(messages, tools)
    except UnreadableChat as exc:
        return Message(role="assistant", content=f"UNDERSPECIFIED: the solver cannot read this call: {exc}")
    return render(decide(read), read)


def decide(read: Read) -> Decision:
    refused = refusal_made(read.view)
    if refused is not None:  # the episode's answer is given: say so and stop, whatever the task
        return Decision(answer=f"I refused the task: {refused}")
    # a reader that claims the call as it stands answers it, a protocol case included when the reader reads
    # the protocol's text itself (constraints: it plans on the durations the tool JSON states; played call by
    # call in the head, the extended mode's results were unknown and 5/10 holistic plans lost tasks)
    for reader in readers():
        if reader.claims(read.view):
            return reader.decide(read.view)
    planned = protocol_decision(read.view, decide_view)
    return planned if planned is not None else decide_view(read.view)


def decide_view(view: ChatView) -> Decision:
    """The first reader that claims the task decides."""
    for reader in readers():
        if reader.claims(view):
            return reader.decide(view)
    opening = " ".join(view.task.split()[:12])
    tools = ", ".join(str(t.get("name")) for t in view.tools[:8]) or "none"
    return Decision(underspecified=f"no task reader of the solver recognises this task (it opens {opening!r}; "
                                   f"tools: {tools})")


class SolverModel:
    """The solver as a ``Model``: ``chat(messages, tools, params) -> ChatResult``."""

    name = NAME

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        reply = answer(messages, tools)
        usage = Usage(model_calls=1, prompt_tokens=word_count(messages), completion_tokens=word_count([reply]))
        return ChatResult(message=reply, usage=usage, finish_reason="tool_calls" if reply.tool_calls else "stop")

    async def aclose(self) -> None:
        pass


def _factory(name: str, options: ModelOptions) -> SolverModel:
    return SolverModel()


ENTRY = ModelEntry(NAME, _factory, takes_name=False, cacheable=False,
                   help="plans perfectly from what it is shown (docs/models.md, 'The solver')")
