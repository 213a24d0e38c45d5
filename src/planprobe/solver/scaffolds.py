"""The scaffold layer: one chat call → ``ChatView``; a ``Decision`` → the reply in that scaffold's form.

Three answer forms are read today:

* **function calling** (the ``tools`` agent and any OpenAI-style client): the tool list comes
  with the call; the task is the first user message, the case's instructions the system
  message; each earlier assistant tool call is paired with the ``tool`` message that answered it.
* **ReAct text** (the ``react`` agent): no tool list comes with the call; the first user message
  lists the tools as text (``name: description Arguments: {...}``) and ends with ``Request:``
  and the task; earlier replies carry ``Action:``/``Action Input:`` lines and the following
  user message the ``Observation:``.

* **the modular agent's tags** (``modular``, AgentDebug's rollout): no tool list comes with the
  call; one prompt per step holds ``Your task is:``, ``Available tools:`` (``- name: description
  Parameters: {...}``) and the most recent steps (``Step i: action: tool: NAME parameters: {...}``
  and ``Observation: …``); the reply is ``<plan>``, then ``<action>tool: NAME parameters: {...}
  </action>`` or ``<answer>…</answer>``. Only the last steps are shown, with the ``<memory>`` of the
  previous reply (``Your memory so far …``): the solver keeps its notes there as a careful model
  would — every step's action and observation, one JSON object a line — and reads them back, so
  the steps that left the window are still known. ``ChatView.unseen`` says how many earlier steps
  neither the window nor the memory holds.

A **PMC executor** (function calling, its first user message ``Carry out this sub-task …``) is read
as function calling whose task is its sub-task: the facts the supervisor put into the sub-task
(``pmc_reports``) are calls already made, and its final answer is a report of every call it made.

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
from .pmc_reports import split_facts, write_report

UNDERSPECIFIED = "UNDERSPECIFIED:"  # the reply's marker when the text does not determine an answer
REFUSE = "REFUSE:"  # the final-answer form of a refusal when no refusal tool is offered
DONE = "Done: the goal holds."

_REACT_TOOLS = re.compile(r"You have access to the following tools:\n\n(.*?)\n\nUse the following format:", re.DOTALL)
_REACT_NAMES = re.compile(r"^Action: the tool to call, exactly one of \[(.*)\]$", re.MULTILINE)
_REACT_TASK = re.compile(r"\nRequest:\n(.*)\Z", re.DOTALL)
_ACTION = re.compile(r"^Action:[ \t]*(.*)$", re.MULTILINE)
_INPUT = re.compile(r"^Action Input:[ \t]*(.*)$", re.MULTILINE | re.DOTALL)
_OBSERVATION = "Observation: "
_MODULAR = "You are an expert agent that completes tasks step by step"
_MODULAR_TASK = re.compile(r"\nYour task is: (.*?)(?:\nAvailable tools:\n|\nYou have already taken \d+ step\(s\)\.|"
                           r"\nCurrent observation: )", re.DOTALL)
_MODULAR_TOOLS = re.compile(r"\nAvailable tools:\n(.*?)\n(?:\nFeedback on your earlier steps|Current observation: |\n"
                            r"First recall|\nStart by thinking|$)", re.DOTALL)
_MODULAR_TAKEN = re.compile(r"\nYou have already taken (\d+) step\(s\)\.")
_MODULAR_STEP = re.compile(r"^Step (\d+): action: (.*?)\nObservation: (.*?)(?=\nStep \d+: action: |\nYou are now at step )",
                           re.DOTALL | re.MULTILINE)
_MODULAR_ACTION = re.compile(r"^tool: (\S+) parameters: (.*)$", re.DOTALL)
_MODULAR_MEMORY = re.compile(r"\nYour memory so far \(what you last wrote inside <memory> </memory>\):\n(.*?)\n"
                             r"The most recent \d+ step\(s\), each with", re.DOTALL)
_NOTES = "Every step so far, one JSON object a line (step, action, observation):"
# a PMC executor's prompt: the sub-task between "Sub-task: " and the executor's working instructions
_PMC_EXECUTOR = "Carry out this sub-task of a larger request"
_PMC_SUBTASK = re.compile(r"\nSub-task: (.*?)\n\nBefore each tool call, ", re.DOTALL)


class UnreadableChat(ValueError):
    """The call is in no answer form the solver reads."""


@dataclass(frozen=True)
class Read:
    """A chat call read: the view, and the form the reply must take."""

    view: ChatView
    form: str  # "tools" | "react" | "modular"
    memory: str = ""  # the modular form's notes to keep in the reply's <memory> (empty: none to keep)
    given: int = 0  # a PMC executor's: how many calls of ``view.history`` its sub-task gave (the facts)
    report: bool = False  # a PMC executor's: its final answer is a report to the team (``pmc_reports``)


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {"(unparsed)": text}
    return value if isinstance(value, dict) else {"(unparsed)": text}


def _system(messages: list[Message]) -> str:
    return "\n\n".join(m.content or "" for m in messages if m.role == "system")


def _pmc_subtask(prompt: str) -> tuple[str, tuple[Observed, ...], bool]:
    """A PMC executor's task is its sub-task (description, parameters, constraints); the words around
    it tell the executor how to work and report, not what the task is. The facts the supervisor put
    into the sub-task are calls already made (``pmc_reports``). (task, facts, whether it is one)."""
    if not prompt.startswith(_PMC_EXECUTOR):
        return prompt, (), False
    found = _PMC_SUBTASK.search(prompt)
    if found is None:
        return prompt, (), False
    task, facts = split_facts(found.group(1))
    return task, facts, True


def _first_user(messages: list[Message]) -> str:
    for m in messages:
        if m.role == "user":
            return m.content or ""
    raise UnreadableChat("the call has no user message (no task)")


def read_chat(messages: list[Message], tools: list[ToolSpec] | None) -> Read:
    """The view of one chat call, in the form it came in."""
    first, facts, executor = _pmc_subtask(_first_user(messages))
    if tools:
        return Read(_function_view(messages, tools, first, facts), "tools", given=len(facts), report=executor)
    if _REACT_TOOLS.search(first) and _REACT_TASK.search(first):
        return Read(_react_view(messages, first), "react")
    if first.startswith(_MODULAR) and _MODULAR_TASK.search(first):
        view, notes = _modular_view(messages, first)
        return Read(view, "modular", notes)
    # no tools and no tool-listing prompt: a text task, answered as function calling answers (content)
    return Read(_function_view(messages, [], first), "tools")


def _function_view(messages: list[Message], tools: list[ToolSpec], task: str,
                   facts: tuple[Observed, ...] = ()) -> ChatView:
    results = {m.tool_call_id: m.content or "" for m in messages if m.role == "tool"}
    history = list(facts)
    for m in messages:
        if m.role != "assistant":
            continue
        for tc in m.tool_calls or []:
            fn = tc.get("function", {})
            history.append(Observed(Step(fn.get("name", ""), _arguments(fn.get("arguments", ""))),
                                    results.get(tc.get("id"), "")))
    schemas = tuple({"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools)
    return ChatView(system=_system(messages), task=task, tools=schemas, history=tuple(history))


def _listed(props: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameters as a text listing shows them (``Arguments: {"work_order": "string"}``): it
    says no argument is optional, so a careful model gives every one it lists — each is required (a
    constraint case's ``work_order`` went unsent under ``react`` and ``modular``: 7 of 20 unsolvable
    variants and controls ran into the iteration limit, all passing under ``tools``)."""
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}, "required": list(props)}


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
        parameters = _listed(_arguments(args) if sep else {})
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


def _modular_view(messages: list[Message], prompt: str) -> tuple[ChatView, str]:
    """The view, and the notes to keep in the reply's memory: every step known so far."""
    task = _MODULAR_TASK.search(prompt)
    block = _MODULAR_TOOLS.search(prompt)
    tools = []
    for line in (block.group(1).split("\n- ") if block else []):
        line = line.removeprefix("- ")
        name, sep, rest = line.partition(": ")
        desc, psep, args = rest.rpartition(" Parameters: ")
        if sep:
            tools.append({"name": name, "description": desc if psep else rest,
                          "parameters": _listed(_arguments(args) if psep else {})})
    memory = _MODULAR_MEMORY.search(prompt)
    steps = _notes(memory.group(1)) if memory else {}
    window = prompt[memory.end():] if memory else prompt
    for m in _MODULAR_STEP.finditer(window):
        steps[int(m.group(1))] = (m.group(2).strip(), m.group(3))
    taken = _MODULAR_TAKEN.search(prompt)
    last = int(taken.group(1)) if taken else 0
    first_known = last + 1  # the steps known without a gap up to the last one
    while first_known - 1 in steps:
        first_known -= 1
    history = []
    for n in range(first_known, last + 1):
        action = _MODULAR_ACTION.match(steps[n][0])
        if action is not None:
            history.append(Observed(Step(action.group(1), _arguments(action.group(2).strip())), steps[n][1]))
    notes = "\n".join([_NOTES] + [json.dumps({"step": n, "action": steps[n][0], "observation": steps[n][1]})
                                   for n in range(first_known, last + 1)]) if last else ""
    view = ChatView(system=_system(messages), task=task.group(1) if task else "", tools=tuple(tools),
                    history=tuple(history), unseen=first_known - 1)
    return view, notes


def _notes(text: str) -> dict[int, tuple[str, str]]:
    """The steps a memory holds, when it is in the solver's own note form (other lines are skipped:
    a memory another model wrote is prose the solver does not rely on)."""
    out: dict[int, tuple[str, str]] = {}
    for line in text.splitlines():
        try:
            note = json.loads(line)
        except json.JSONDecodeError:
            continue
        if (isinstance(note, dict) and isinstance(note.get("step"), int) and isinstance(note.get("action"), str)
                and isinstance(note.get("observation"), str)):
            out[note["step"]] = (note["action"], note["observation"])
    return out


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
            first = len(read.view.history) - read.given
            return Message(role="assistant", content=None, tool_calls=[
                tool_call(f"call_{first + i}", s.tool, json.dumps(s.arguments)) for i, s in enumerate(calls)])
        if read.report and decision.underspecified is None:  # a PMC executor reports everything it did
            answer = write_report(read.view.history[read.given:], answer or "")
        return Message(role="assistant", content=answer or "")
    if read.form == "modular":
        memory = f"<memory>\n{read.memory}\n</memory>\n" if read.memory else ""
        if calls:
            step = calls[0]
            return Message(role="assistant", content=f"{memory}<plan>The next step of my plan is {step.tool}.</plan>\n"
                                                     f"<action>tool: {step.tool} parameters: "
                                                     f"{json.dumps(step.arguments)}</action>")
        return Message(role="assistant", content=f"{memory}<plan>The task is complete.</plan>\n<answer>{answer or ''}</answer>")
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
    return text[at + len(UNDERSPECIFIED):].split("</answer>")[0].strip() if at >= 0 else None
