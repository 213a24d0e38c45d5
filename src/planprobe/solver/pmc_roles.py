"""PMC's planning roles as the solver plays them, each from its own prompt alone.

* **manager** (``You are the manager of a team of executors.``): the request after ``Request:`` and
  the tools listed as ``- name: description``. A perfect manager that cannot plan better than its
  executor delegates the whole request: one sub-task whose description is the request word for word
  (an executor sees nothing else), every tool, a function-calling executor, no dependencies. The
  executor is then the solver under the ``tools`` scaffold, where the task readers do the planning.
* **supervisor** (``A sub-task is about to start.``): with one sub-task it is never asked; asked, it
  keeps the sub-task as the manager wrote it (the request is already in it word for word).
* **deliverer** (``You are delivering the final answer``): the results of the sub-tasks; with one
  sub-task its report is the answer (the executor's final answer), passed on unchanged.

What is not done yet: a manager that splits a request into several sub-tasks, and a deliverer that
writes a family's answer format from several reports (itinerary, TravelPlanner).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..schema import Message

MANAGER = "You are the manager of a team of executors."
SUPERVISOR = "A sub-task is about to start."
DELIVERER = "You are delivering the final answer"
_REQUEST = re.compile(r"\nRequest:\n(.*)\Z", re.DOTALL)
_TOOLS = re.compile(r"\nTools \(give each sub-task only the tools it needs\):\n(.*?)\nA sub-task lists in depends_on",
                    re.DOTALL)
_TOOL = re.compile(r"^- ([A-Za-z0-9_-]{1,64}): ", re.MULTILINE)
_SUBTASK = re.compile(r"in the manager's JSON format:\n\n(\{.*?\})\n\nResults of the sub-tasks it depends on:", re.DOTALL)
_RESULTS = re.compile(r"\nResults of the sub-tasks:\n(.*)\Z", re.DOTALL)


def _manager(prompt: str) -> str | None:
    request, tools = _REQUEST.search(prompt), _TOOLS.search(prompt)
    if request is None or tools is None:
        return None
    names = _TOOL.findall(tools.group(1))
    plan: dict[str, Any] = {"subtasks": [{"id": "s1", "description": request.group(1), "executor": "function_calling",
                          "tools": names, "parameters": {}, "depends_on": [], "local_constraints": []}],
            "global_constraints": []}
    return json.dumps(plan)


def _deliverer(prompt: str) -> str | None:
    results = _RESULTS.search(prompt)
    if results is None:
        return None
    reports = re.split(r"\n(?=- s\d+ \()", results.group(1).strip())
    if len(reports) != 1:
        return None  # several reports to combine: not done yet (module doc)
    # "- s1 (<description, which may hold anything>): <report>": the report follows the last "): "
    # that the description cannot contain after its own end; the executor's report never has it
    text = reports[0]
    at = text.rfind("): ")
    return text[at + 3:] if at >= 0 else None


def role_reply(messages: list[Message]) -> Message | None:
    """The reply of the PMC role the prompt is for, or None when the call is no PMC role's (or one
    the solver does not play yet: then it says so as under-specified)."""
    users = [m for m in messages if m.role == "user"]
    if not users:
        return None
    prompt = users[0].content or ""
    if prompt.startswith(MANAGER):
        text = _manager(prompt)
    elif prompt.startswith(SUPERVISOR):
        found = _SUBTASK.search(prompt)
        text = found.group(1) if found else None
    elif prompt.startswith(DELIVERER):
        text = _deliverer(prompt)
    else:
        return None
    if text is None:
        text = "UNDERSPECIFIED: the solver does not yet play this PMC role's prompt in this form"
    return Message(role="assistant", content=text)
