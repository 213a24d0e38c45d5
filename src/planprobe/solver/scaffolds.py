"""The scaffold layer: one chat call → ``ChatView``; a ``Decision`` → the reply in that scaffold's form.

Two answer forms are read today:

* **function calling** (the ``tools`` agent and any OpenAI-style client): the tool list comes
  with the call; the task is the first user message, the case's instructions the system
  message; each earlier assistant tool call is paired with the ``tool`` message that answered it.
* **ReAct text** (the ``react`` agent): no tool list comes with the call; the first user message
  lists the tools as text (``name: description Arguments: {...}``) and ends with ``Request:``
  and the task; earlier replies carry ``Action:``/``Action Input:`` lines and the following
  user message the ``Observation:``.

This module knows these forms only as a model does, from the text of the prompt; it imports
nothing from the agents (tested in tests/test_import_graph.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..models.base import tool_call
from ..schema import Message, ToolSpec
from .base import ChatView, Decision, Observed, Step

UNDERSPECIFIED = "UNDERSPECIFIED:"  # the reply's marker when the text does not determine an answer
REFUSE = "REFUSE:"  # the final-answer form of a refusal when no refusal tool is offered
DONE = "Done: the goal holds."

_REACT_TOOLS = re.compile(r"You have access to the following tools:\n\n(.*?)\n\nUse the following format:", re.DOTALL)
_REACT_NAMES = re.compile(r"^Action: the tool to call, exactly one of \[(.*)\]$", re.MULTILINE)
_REACT_TASK = re.compile(r"\nRequest:\n(.*)\Z", re.DOTALL)
_ACTION = re.compile(r"^Action:[ \t]*(.*)$", re.MULTILINE)
_INPUT = re.compile(r"^Action Input:[ \t]*(.*)$", re.MULTILINE | re.DOTALL)
_OBSERVATION = "Observation: "


class UnreadableChat(ValueError):
    """The call is in no answer form the solver reads."""


@dataclass(frozen=True)
class Read:
    """A chat call read: the view, and the form the reply must take."""

    view: ChatView
    form: str  # "tools" | "react"


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {"(unparsed)": text}
    return value if isinstance(value, dict) else {"(unparsed)": text}


def _system(messages: list[Message]) -> str:
    return "\n\n".join(m.content or "" for m in messages if m.role == "system")


def _first_user(messages: list[Message]) -> str:
    for m in messages:
        if m.role == "user":
            return m.content or ""
    raise UnreadableChat("the call has no user message (no task)")


def read_chat(messages: list[Message], tools: list[ToolSpec] | None) -> Read:
    """The view of one chat call, in the form it came in."""
    first = _first_user(messages)
    if tools:
        return Read(_function_view(messages, tools, first), "tools")
    if _REACT_TOOLS.search(first) and _REACT_TASK.search(first):
        return Read(_react_view(messages, first), "react")
    raise UnreadableChat("no tool list comes with the call and the prompt is not in ReAct form")


def _function_view(messages: list[Message], tools: list[ToolSpec], task: str) -> ChatView:
    results = {m.tool_call_id: m.content or "" for m in messages if m.role == "tool"}
    history = []
    for m in messages:
        if m.role != "assistant":
            continue
        for tc in m.tool_calls or []:
            fn = tc.get("function", {})
            history.append(Observed(Step(fn.get("name", ""), _arguments(fn.get("arguments", ""))),
                                    results.get(tc.get("id"), "")))
    schemas = tuple({"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools)
    return ChatView(system=_system(messages), task=task, tools=schemas, history=tuple(history))


def _react_tools(prompt: str) -> tuple[dict[str, Any], ...]:
    """The tools as the ReAct prompt lists them: one ``name: description Arguments: {...}`` line each
    (split on the names the prompt's format line lists, so a description may hold anything)."""
    block = _REACT_TOOLS.search(prompt)
    names_line = _REACT_NAMES.search(prompt)
    if block is None or names_line is None:
        return ()
    names = [n.strip() for n in names_line.group(1).split(", ") if n.strip()]
    text = block.group(1)
    starts = sorted((m.start(), name) for name in names
                    for m in re.finditer(rf"(?:^|\n){re.escape(name)}: ", text))
    out = []
    for i, (start, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        line = text[start:end].strip()[len(name) + 2:]
        desc, sep, args = line.rpartition(" Arguments: ")
        props = _arguments(args) if sep else {}
        parameters = {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}}
        out.append({"name": name, "description": desc if sep else line, "parameters": parameters})
    return tuple(out)


def _react_view(messages: list[Message], prompt: str) -> ChatView:
    task_match = _REACT_TASK.search(prompt)
    task = task_match.group(1) if task_match else ""
    history = []
    users = [m for m in messages if m.role == "user"]
    replies = [m for m in messages if m.role == "assistant"]
    observations = [m.content or "" for m in users[1:]]
    for reply, observation in zip(replies, observations):
        action = _ACTION.search(reply.content or "")
        if action is None:
            continue
        given = _INPUT.search(reply.content or "")
        step = Step(action.group(1).strip(), _arguments(given.group(1).strip() if given else "{}"))
        history.append(Observed(step, observation.removeprefix(_OBSERVATION)))
    return ChatView(system=_system(messages), task=task, tools=_react_tools(prompt), history=tuple(history))


def refusal_tool(view: ChatView) -> str | None:
    """The tool the task offers for refusing (by its description), or None."""
    for tool in view.tools:
        if str(tool.get("description", "")).lstrip().lower().startswith("refuse"):
            return str(tool["name"])
    return None


def refusal_made(view: ChatView) -> str | None:
    """The reason given, when the agent already called the refusal tool in this episode."""
    tool = refusal_tool(view)
    for seen in view.history:
        if tool is not None and seen.step.tool == tool:
            return str(seen.step.arguments.get("reason", ""))
    return None


def render(decision: Decision, read: Read) -> Message:
    """The reply to send: the decision in the call's answer form."""
    calls = decision.calls
    answer = decision.answer
    if decision.refuse is not None:
        tool = refusal_tool(read.view)
        if tool is not None:
            calls = (Step(tool, {"reason": decision.refuse}),)
        else:
            answer = f"{REFUSE} {decision.refuse}"
    elif decision.underspecified is not None:
        answer = f"{UNDERSPECIFIED} {decision.underspecified}"
    if read.form == "tools":
        if calls:
            first = len(read.view.history)
            return Message(role="assistant", content=None, tool_calls=[
                tool_call(f"call_{first + i}", s.tool, json.dumps(s.arguments)) for i, s in enumerate(calls)])
        return Message(role="assistant", content=answer or "")
    if calls:  # ReAct takes one action per reply: the first (a Decision's calls are independent)
        step = calls[0]
        return Message(role="assistant", content=f"Thought: the next step of my plan is {step.tool}.\n"
                                                 f"Action: {step.tool}\nAction Input: {json.dumps(step.arguments)}")
    return Message(role="assistant", content=f"Thought: I have completed every task\nFinal Answer: {answer or ''}")


def underspecified_in(text: str | None) -> str | None:
    """What the solver found missing, when ``text`` (a reply or a final answer) says so."""
    if not text:
        return None
    at = text.find(UNDERSPECIFIED)
    return text[at + len(UNDERSPECIFIED):].strip() if at >= 0 else None
