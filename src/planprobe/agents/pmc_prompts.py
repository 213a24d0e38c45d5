"""PMC's zero-shot prompts, in planprobe's own words (no benchmark-specific hints)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..schema import ToolSpec

MANAGER = """You are the manager of a team of executors. Break the request below into sub-tasks that \
executors can carry out, and write the plan as one JSON object, with nothing else in your reply:

{{"subtasks": [{{"id": "s1", "description": "what to do", "executor": "function_calling", \
"tools": ["tool_name"], "parameters": {{}}, "depends_on": [], "local_constraints": ["a rule only this sub-task must keep"]}}], \
"global_constraints": ["a rule the whole answer must keep"]}}

Executors you can assign (choose one per sub-task): {executors}.
- function_calling: calls the tools directly.
- react: reasons step by step in text, then calls the tools.
Tools (give each sub-task only the tools it needs):
{tools}
A sub-task lists in depends_on the ids of the sub-tasks whose results it needs; sub-tasks that do not \
depend on each other run at the same time, so put every ordering requirement into depends_on. A rule \
that concerns one sub-task is a local constraint of it; a rule about the whole request is global.

Request:
{task}"""

REPAIR = """Your plan cannot be carried out: {problem}. Reply with the corrected plan, one JSON object \
in the same format and nothing else."""

EXECUTOR = """Carry out this sub-task of a larger request, using the tools you are given.

Sub-task: {description}{parameters}{constraints}

When it is done, reply with a short report of what you did and what you found."""

SUPERVISOR = """A sub-task is about to start. The sub-tasks it depends on have finished; rewrite its \
description so that it uses what they found and did. Keep its goal and its constraints; reply with the \
rewritten description only.

Sub-task: {description}

Results of the sub-tasks it depends on:
{outcomes}"""

DELIVERER = """You are delivering the final answer to a request that a team worked on in sub-tasks. \
Using their results, answer the request; the answer must keep every global constraint.

Request:
{task}

Global constraints:
{constraints}

Results of the sub-tasks:
{outcomes}"""


def tool_lines(tools: Sequence[ToolSpec]) -> str:
    return "\n".join(f"- {t.name}: {t.description}" for t in tools)


def bullet(items: Sequence[str]) -> str:
    return "\n".join(f"- {i}" for i in items) or "- (none)"


def executor_task(description: str, parameters: dict[str, Any], constraints: Sequence[str]) -> str:
    params = f"\nParameters: {json.dumps(parameters, sort_keys=True)}" if parameters else ""
    rules = f"\nConstraints for this sub-task:\n{bullet(constraints)}" if constraints else ""
    return EXECUTOR.format(description=description, parameters=params, constraints=rules)
