"""The words of the planning protocols: what a wrapped case adds to its base task,
and how answers are written (the reference agents write them the same way).

The base task stays, unchanged, at the start of the wrapped task, so the
character spans a base family's evidence cites (``evidence_spans``) still point
at the same words. The protocol text follows it and says explicitly that it
overrides what the base task says about executing (a PDoctor extended task, for
instance, tells the agent to run tools and ask for restarts).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...lenient_json import loads
from ...schema import ToolSpec
from ..base import PlannedCall

PLANNER_SYSTEM = ("You are a planner. Nothing you write is executed and no tool can be called: answer with the "
                  "plan, as JSON in the format the task asks for.")
HOLISTIC_FORMAT = ('{"plan": "<a short description of your strategy>", "tool_chain": [{"tool": "<tool name>", '
                   '"parameters": {<its arguments>}, "reason": "<why this call comes here>"}]}')
STEPWISE_FORMAT = '{"next_steps": [{"tool": "<tool name>", "parameters": {<its arguments>}}]}'

_NO_EXECUTION = (
    "Nothing is executed in this mode and no tool can be called: this replaces any instruction above about "
    "executing the tasks, calling tools or asking for a restart. Everything you need is in the task and in the "
    "tool descriptions below (where a tool would only reveal something when run, such as how long it takes, "
    "its description states it)."
)


def system_text(base_system: str | None) -> str:
    """The wrapped case's system prompt. It replaces an agent's own default ("complete
    tasks by calling the provided tools"), which would contradict the protocol."""
    return f"{base_system}\n\n{PLANNER_SYSTEM}" if base_system else PLANNER_SYSTEM


def tools_json(tools: Sequence[ToolSpec]) -> str:
    """The tools as JSON, one per line: what an agent that cannot call them plans with."""
    rows = [json.dumps({"name": t.name, "description": t.description, "parameters": t.parameters})
            for t in tools]
    return "[\n" + ",\n".join(rows) + "\n]"


def holistic_text(task: str, tools: Sequence[ToolSpec]) -> str:
    return (
        f"{task}\n\n"
        f"Planning mode: holistic. {_NO_EXECUTION}\n"
        f"The tools, as JSON:\n{tools_json(tools)}\n\n"
        "Plan the whole task in advance. Reply with one JSON object and nothing else, in this format:\n"
        f"{HOLISTIC_FORMAT}\n"
        "List every call the task needs, in the order they must run, each with its exact arguments."
    )


def _args(call: PlannedCall) -> Any:
    try:
        return loads(call.arguments) if call.arguments.strip() else {}
    except ValueError:
        return call.arguments


def step_json(call: PlannedCall) -> dict[str, Any]:
    return {"tool": call.name, "parameters": _args(call)}


def stepwise_text(task: str, tools: Sequence[ToolSpec], prefix: Sequence[tuple[PlannedCall, str]], k: int) -> str:
    if prefix:
        done = "These steps have already been carried out, in this order, with these results:\n" + "\n".join(
            f"Step {n}: {json.dumps(step_json(call))}\nResult: {result}" for n, (call, result) in enumerate(prefix))
    else:
        done = "No step has been carried out yet."
    what = "the next step" if k == 1 else f"the next {k} steps, in order"
    count = ("Give exactly one step." if k == 1
             else f"Give exactly {k} steps, fewer only if the task is finished sooner.")
    return (
        f"{task}\n\n"
        f"Planning mode: step-wise. {_NO_EXECUTION}\n"
        f"The tools, as JSON:\n{tools_json(tools)}\n\n"
        f"{done}\n\n"
        f"Predict {what}. Reply with one JSON object and nothing else, in this format:\n"
        f"{STEPWISE_FORMAT}\n{count}"
    )


def holistic_answer(calls: Sequence[PlannedCall], plan: str, reasons: Sequence[str] | None = None) -> str:
    chain = []
    for n, call in enumerate(calls):
        step = step_json(call)
        step["reason"] = reasons[n] if reasons else f"step {n + 1} of {len(calls)} of the plan"
        chain.append(step)
    return json.dumps({"plan": plan, "tool_chain": chain})


def stepwise_answer(calls: Sequence[PlannedCall]) -> str:
    return json.dumps({"next_steps": [step_json(c) for c in calls]})
