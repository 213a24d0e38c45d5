"""PMC's planning roles as the solver plays them, each from its own prompt alone.

* **manager** (``You are the manager of a team of executors.``): the request after ``Request:``, the
  case's instructions between ``<<<`` and ``>>>``, the tools listed as ``- name: description``. The
  first task reader that claims the request and can split it (``split``, e.g. the itinerary reader:
  gather each city's accommodations, restaurants and attractions as independent sub-tasks, then the
  transportation the plan needs from what they found) writes the sub-task graph. A request no reader
  splits — one whose tools all act on the one shared environment, in an order the results decide
  (constraints, PDDL agent tasks): nothing to gather apart — is delegated whole: one sub-task whose
  description is the request word for word, every tool, a function-calling executor.
* **executor**: the solver under the ``tools`` scaffold, the sub-task as its task, the facts the
  supervisor put into it as calls already made; it replies with a report (``pmc_reports``).
* **supervisor** (``A sub-task is about to start.``): the sub-task in the manager's JSON format and
  the reports of its direct dependencies; it rewrites the description with the facts they found.
  A dependency whose report is not given: under-specified (it never guesses what was found).
* **deliverer** (``You are delivering the final answer``): the request, the instructions and every
  report. A reader that composes (``deliver``) writes the family's answer from the facts of all the
  reports (a fact it needs that no report gives: under-specified); otherwise the one sub-task's answer
  is passed on. A report that says the sub-task was under-specified is passed on as the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..schema import Message
from .base import ChatView, Decision, Observed
from .pmc_reports import reports_in, with_facts
from .readers import readers
from .scaffolds import REFUSE, UNDERSPECIFIED

MANAGER = "You are the manager of a team of executors."
SUPERVISOR = "A sub-task is about to start."
DELIVERER = "You are delivering the final answer"
_REQUEST = re.compile(r"\nRequest:\n(.*)\Z", re.DOTALL)
_TOOLS = re.compile(r"\nTools \(give each sub-task only the tools it needs\):\n(.*?)\nA sub-task lists in depends_on",
                    re.DOTALL)
_TOOL = re.compile(r"^- ([A-Za-z0-9_-]{1,64}): (.*)$", re.MULTILINE)
_SUBTASK = re.compile(r"in the manager's JSON format:\n\n(\{.*?\})\n\nResults of the sub-tasks it depends on:\n",
                      re.DOTALL)
_SUPERVISOR_FRAME = "\nThe request comes with these instructions; keep the sub-task"  # after the results
_SUPERVISOR_END = "\nReply with the rewritten sub-task as one JSON object"
_RESULTS = re.compile(r"\nResults of the sub-tasks:\n(.*)\Z", re.DOTALL)
_DELIVERY = re.compile(r"\nRequest:\n(.*?)\n\nGlobal constraints:\n.*?\n\nResults of the sub-tasks:\n", re.DOTALL)
_INSTRUCTIONS = re.compile(r"\n<<<\n(.*?)\n>>>\n\nRequest:\n", re.DOTALL)


def _instructions(prompt: str) -> str:
    """The case's instructions as the role was shown them ("" when there are none)."""
    found = _INSTRUCTIONS.search(prompt)
    return found.group(1) if found else ""


def _delegate(request: str, names: list[str]) -> dict[str, Any]:
    return {"subtasks": [{"id": "s1", "description": request, "executor": "function_calling", "tools": names,
                          "parameters": {}, "depends_on": [], "local_constraints": []}], "global_constraints": []}


def _manager(prompt: str) -> str | None:
    request, tools = _REQUEST.search(prompt), _TOOLS.search(prompt)
    if request is None or tools is None:
        return None
    listed = _TOOL.findall(tools.group(1))
    names = [name for name, _ in listed]
    view = ChatView(system=_instructions(prompt), task=request.group(1),
                    tools=tuple({"name": n, "description": d, "parameters": {}} for n, d in listed))
    for reader in readers():  # a reader that splits its requests says so (``split``: None when not its own)
        split = getattr(reader, "split", None)
        subtasks = split(view) if split is not None else None
        if subtasks:
            return json.dumps({"subtasks": subtasks, "global_constraints": []})
    return json.dumps(_delegate(request.group(1), names))


def _supervisor(prompt: str) -> str:
    found = _SUBTASK.search(prompt)
    if found is None:
        return f"{UNDERSPECIFIED} the prompt shows no sub-task in the manager's JSON format"
    try:
        sub = json.loads(found.group(1))
    except json.JSONDecodeError:
        return f"{UNDERSPECIFIED} the sub-task shown is not readable JSON"
    if not isinstance(sub, dict):
        return f"{UNDERSPECIFIED} the sub-task shown is not a JSON object"
    results = prompt[found.end() - 1:]
    results = results[:min(at for at in (results.find(_SUPERVISOR_FRAME), results.find(_SUPERVISOR_END), len(results))
                           if at >= 0)]
    reports = dict(reports_in(results))
    facts: list[Observed] = []
    prose: list[str] = []
    deps = [str(d) for d in sub.get("depends_on") or []]
    others = "|".join(re.escape(d) for d in deps)
    for dep in deps:
        report = reports.get(dep)
        if report is not None:
            facts += report.calls
            continue
        entry = re.search(rf"\n- {re.escape(dep)}: (.*?)(?=\n- (?:{others}): |\Z)", results, re.DOTALL)
        if entry is None or entry.group(1).strip() in ("", "(no report)"):
            return f"{UNDERSPECIFIED} the results of sub-task {dep}, which it depends on, are not in the prompt"
        prose.append(f"What sub-task {dep} reported: {entry.group(1).strip()}")  # another model's words, as given
    description = with_facts(str(sub.get("description", "")), facts)
    sub["description"] = "\n\n".join([description, *prose])
    return json.dumps(sub, ensure_ascii=False)


def _pass_on(text: str) -> str | None:
    """The answer of a lone sub-task whose report is not in the solver's form (another model's), as
    it was written: ``- s1 (<description>): <report>``; the report follows the last ``): ``."""
    at = text.rfind("): ")
    return text[at + 3:] if at >= 0 else None


def _deliverer(prompt: str) -> str | None:
    results, delivery = _RESULTS.search(prompt), _DELIVERY.search(prompt)
    if results is None or delivery is None:
        return None
    entries = re.split(r"\n(?=- \S+ \()", results.group(1).strip())
    reports = reports_in("\n" + results.group(1))
    for entry in entries:  # an executor that found its sub-task under-specified said so instead of reporting
        missing = re.search(r"\): (" + re.escape(UNDERSPECIFIED) + r".*)\Z", entry, re.DOTALL)
        if missing is not None:
            return missing.group(1)  # passed on as the team's answer: the run records it
    facts = tuple(o for _, report in reports for o in report.calls)
    view = ChatView(system=_instructions(prompt), task=delivery.group(1), history=facts)
    for reader in readers():
        deliver = getattr(reader, "deliver", None)
        decision = deliver(view) if deliver is not None else None
        if decision is not None:
            return _written(decision)
    if len(entries) != 1:
        return (f"{UNDERSPECIFIED} no reader of the solver combines the reports of {len(entries)} sub-tasks "
                "into an answer to this request")
    if reports:
        return reports[0][1].answer or f"{UNDERSPECIFIED} the report of sub-task {reports[0][0]} has no answer"
    return _pass_on(entries[0])


def _written(decision: Decision) -> str:
    if decision.answer is not None:
        return decision.answer
    if decision.refuse is not None:
        return f"{REFUSE} {decision.refuse}"
    if decision.underspecified is not None:
        return f"{UNDERSPECIFIED} {decision.underspecified}"
    asked = "; ".join(f"{s.tool} {json.dumps(s.arguments, sort_keys=True)}" for s in decision.calls)
    return f"{UNDERSPECIFIED} the answer needs what no sub-task's report gives: {asked}"


def role_reply(messages: list[Message]) -> Message | None:
    """The reply of the PMC role the prompt is for, or None when the call is no PMC role's."""
    users = [m for m in messages if m.role == "user"]
    if not users:
        return None
    prompt = users[0].content or ""
    text: str | None
    if prompt.startswith(MANAGER):
        text = _manager(prompt)
    elif prompt.startswith(SUPERVISOR):
        text = _supervisor(prompt)
    elif prompt.startswith(DELIVERER):
        text = _deliverer(prompt)
    else:
        return None
    if text is None:
        text = f"{UNDERSPECIFIED} the solver cannot read this PMC role's prompt"
    return Message(role="assistant", content=text)
