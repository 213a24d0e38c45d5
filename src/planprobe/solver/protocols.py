"""The planning protocols as the solver reads them: a task that asks for a plan in text.

A protocol case (``--protocol holistic|stepwise``) offers no tools: its task is the base task, then
``Planning mode: holistic.`` or ``Planning mode: step-wise.``, the tools as a JSON list after
``The tools, as JSON:``, for step-wise the steps already carried out (``Step n: {"tool": …,
"parameters": …}`` and ``Result: …``), and the JSON the reply must be. The solver plays the base task
in its head: the base view's reader decides call after call, each planned call recorded as done,
until the goal holds (holistic: the whole ``tool_chain``) or ``k`` calls are planned (step-wise:
``next_steps``). A refusal is the refusal tool as the next step when the task offers one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .base import ChatView, Decision, Observed, Step
from .scaffolds import refusal_tool

_MODE = re.compile(r"\n\nPlanning mode: (holistic|step-wise)\. ")
_TOOLS = re.compile(r"\nThe tools, as JSON:\n(\[\n.*?\n\])\n\n", re.DOTALL)
_STEP = re.compile(r"^Step \d+: (\{.*?\})\nResult: (.*?)(?=\nStep \d+: \{|\n\nPredict )", re.DOTALL | re.MULTILINE)
_COUNT = re.compile(r"Give exactly (one|\d+) steps?")
PLANNED = "Done (planned)."  # the result a planned call is taken to have: the reader plans it applicable
LIMIT = 1000  # calls in one holistic plan, a guard against a reader that never finishes


def _steps(text: str) -> tuple[Observed, ...]:
    out = []
    for m in _STEP.finditer(text):
        try:
            step = json.loads(m.group(1))
        except json.JSONDecodeError:
            continue
        params = step.get("parameters")
        out.append(Observed(Step(str(step.get("tool", "")), params if isinstance(params, dict) else {}),
                            m.group(2)))
    return tuple(out)


def protocol_view(view: ChatView) -> tuple[str, ChatView, int] | None:
    """(mode, the base task's view, steps asked for) when the task is a protocol case, else None."""
    mode = _MODE.search(view.task)
    tools = _TOOLS.search(view.task)
    if mode is None or tools is None:
        return None
    try:
        schemas = tuple(t for t in json.loads(tools.group(1)) if isinstance(t, dict))
    except json.JSONDecodeError:
        return None
    rest = view.task[tools.end():]
    history = _steps(rest) if mode.group(1) == "step-wise" else ()
    count = _COUNT.search(rest)
    k = (1 if count.group(1) == "one" else int(count.group(1))) if count else 1
    return mode.group(1), ChatView(system=view.system, task=view.task[:mode.start()], tools=schemas,
                                   history=history), k


def _call_json(step: Step, reason: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": step.tool, "parameters": step.arguments}
    if reason is not None:
        out["reason"] = reason
    return out


def protocol_decision(view: ChatView, decide: Callable[[ChatView], Decision]) -> Decision | None:
    """The protocol's answer (a JSON text), or None when the task is not a protocol case."""
    found = protocol_view(view)
    if found is None:
        return None
    mode, base, k = found
    planned: list[Step] = []
    limit = LIMIT if mode == "holistic" else k
    while len(planned) < limit:
        d = decide(base)
        if d.underspecified is not None:
            return d
        if d.refuse is not None:
            tool = refusal_tool(base)
            if tool is None:
                return d
            planned.append(Step(tool, {"reason": d.refuse}))
            break
        if not d.calls:
            break  # the goal holds
        for call in d.calls:
            planned.append(call)
            base = ChatView(base.system, base.task, base.tools, (*base.history, Observed(call, PLANNED)))
    if mode == "holistic":
        chain = [_call_json(s, f"step {n + 1} of {len(planned)} of the plan") for n, s in enumerate(planned)]
        return Decision(answer=json.dumps({"plan": "the plan found from the task's text", "tool_chain": chain}))
    return Decision(answer=json.dumps({"next_steps": [_call_json(s) for s in planned[:k]]}))
