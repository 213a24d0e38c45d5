"""PMC's zero-shot prompts, in planprobe's own words (no benchmark-specific hints).

The paper's appendix F says what each prompt must do; the prompts here do it in
substance: the manager fills a JSON template (F.2); an executor says what it has
found and what it still needs, tries another tool before giving up, and reports
in full detail (F.3); the supervisor rewrites a sub-task in the manager's JSON
format (F.4); the deliverer answers under the global constraints and common sense
(F.5). The case's own instructions (its system prompt: the answer format, how to
use the tools) reach every role, framed for that role (``instructions``).
"""

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
{instructions}
Request:
{task}"""

REPAIR = """Your plan cannot be carried out: {problem}. Reply with the corrected plan, one JSON object \
in the same format and nothing else."""

EXECUTOR = """Carry out this sub-task of a larger request, using the tools you are given.

Sub-task: {description}{parameters}{constraints}

Before each tool call, say what you have found so far and what you still need, so you do not repeat \
a call. If a tool does not give what the sub-task needs, try another of your tools before giving up.
When it is done, reply with your report to the team: they see nothing of your work but this report, \
so give everything you found and did in full detail, clearly structured (names, numbers, times, \
prices exactly as the tools gave them), and leave nothing out."""

SUPERVISOR = """A sub-task is about to start. The sub-tasks it depends on have finished; rewrite it so \
that it uses what they found and did: make its description and parameters precise with their results, \
and keep its goal and its constraints. Here is the sub-task in the manager's JSON format:

{subtask}

Results of the sub-tasks it depends on:
{outcomes}
{instructions}
Reply with the rewritten sub-task as one JSON object in the same format (keep its id, executor, tools \
and depends_on as they are), with nothing else in your reply."""

DELIVERER = """You are delivering the final answer to a request that a team worked on in sub-tasks. \
Using their results, answer the request; the answer must keep every global constraint, and use common \
sense where the results leave a choice open. Use only what the results say; do not invent details.
{instructions}
Request:
{task}

Global constraints:
{constraints}

Results of the sub-tasks:
{outcomes}"""

# How each role is told the case's instructions (its system prompt), which are the only place
# some families state the answer format or how to use the tools.
_FRAMES = {
    "manager": "The request comes with these instructions; they bind the whole team, so carry what they "
               "require into the sub-tasks and constraints (your own reply is still the plan object above):",
    "supervisor": "The request comes with these instructions; keep the sub-task in line with them (your own "
                  "reply is still the rewritten sub-task):",
    "deliverer": "The request comes with these instructions; your reply is the team's answer, so it must "
                 "follow them, in the answer format they give:",
    "executor": "You are an executor in a team: you carry out one sub-task of a larger request, and another "
                "member writes the final answer. The request came with these instructions; follow what they "
                "say about gathering information and calling the tools:",
}


def instructions(role: str, system: str | None) -> str:
    """The case's instructions framed for ``role`` ("" when the case has none)."""
    if not system or not system.strip():
        return ""
    return f"\n{_FRAMES[role]}\n<<<\n{system.strip()}\n>>>\n"


def executor_system(system: str | None) -> str | None:
    """An executor's system message: the case's instructions framed for it (None: the executor's own)."""
    framed = instructions("executor", system)
    return framed.strip() or None


def tool_lines(tools: Sequence[ToolSpec]) -> str:
    return "\n".join(f"- {t.name}: {t.description}" for t in tools)


def bullet(items: Sequence[str]) -> str:
    return "\n".join(f"- {i}" for i in items) or "- (none)"


def executor_task(description: str, parameters: dict[str, Any], constraints: Sequence[str]) -> str:
    params = f"\nParameters: {json.dumps(parameters, sort_keys=True)}" if parameters else ""
    rules = f"\nConstraints for this sub-task:\n{bullet(constraints)}" if constraints else ""
    return EXECUTOR.format(description=description, parameters=params, constraints=rules)
