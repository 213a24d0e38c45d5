"""The planning protocols as a constraint case's view shows them (holistic: write the whole plan;
step-wise: given the steps carried out so far and their results, the next k steps). Nothing runs:
the tools come as JSON in the task text, with each task's duration in its description, and the
steps so far as "Step n: {…}" / "Result: …" lines. Read from the text alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .base import Observed, Step

_MODE = re.compile(r"^Planning mode: (holistic|step-wise)\.", re.MULTILINE)
_TOOLS = "The tools, as JSON:\n"
_STEP = re.compile(r"^Step \d+: (\{.*\})\nResult: (.*)$", re.MULTILINE)
_COUNT = re.compile(r"Give exactly (one|\d+) steps?")


@dataclass(frozen=True)
class Protocol:
    mode: str  # "holistic" or "step-wise"
    steps: int  # how many next steps to give (step-wise)
    tools: tuple[dict[str, Any], ...]
    prefix: tuple[Observed, ...]


def _tools(text: str) -> tuple[dict[str, Any], ...]:
    at = text.find(_TOOLS)
    if at < 0:
        return ()
    rows = []
    for line in text[at + len(_TOOLS):].split("\n"):
        line = line.strip().rstrip(",")
        if line == "]":
            break
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                rows.append(row)
    return tuple(rows)


def read_protocol(task: str) -> Protocol | None:
    m = _MODE.search(task)
    if m is None:
        return None
    prefix = []
    for step, result in _STEP.findall(task):
        try:
            call = json.loads(step)
        except ValueError:
            continue
        params = call.get("parameters") if isinstance(call, dict) else None
        prefix.append(Observed(Step(str(call.get("tool")), params if isinstance(params, dict) else {}), result))
    c = _COUNT.search(task)
    steps = 1 if c is None or c.group(1) == "one" else int(c.group(1))
    return Protocol(m.group(1), steps, _tools(task), tuple(prefix))


def holistic_answer(calls: list[Step], plan: str) -> str:
    return json.dumps({"plan": plan, "tool_chain": [
        {"tool": c.tool, "parameters": c.arguments, "reason": f"step {n + 1} of {len(calls)} of the plan"}
        for n, c in enumerate(calls)]})


def stepwise_answer(calls: list[Step]) -> str:
    return json.dumps({"next_steps": [{"tool": c.tool, "parameters": c.arguments} for c in calls]})
