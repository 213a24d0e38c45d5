"""The PMC manager's sub-task graph: read, checked, ordered (no model here).

The manager answers with one JSON object (the template is in ``pmc_prompts``):
``{"subtasks": [{"id", "description", "executor", "tools", "parameters",
"depends_on", "local_constraints"}], "global_constraints": [...]}``. A reply is
read leniently (a code fence or text around the object is ignored) and then
checked strictly; every defect has a class so a failed case says *why* the plan
was unusable: ``bad_json``, ``bad_shape``, ``empty``, ``duplicate_id``,
``unknown_executor``, ``unknown_tool``, ``unknown_dependency``, ``cycle``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..lenient_json import loads, outermost_object

EXECUTORS = ("function_calling", "react")  # the executors the manager chooses from, "as tools"
PLAN_ERRORS = ("bad_json", "bad_shape", "empty", "too_many", "duplicate_id", "unknown_executor", "unknown_tool",
               "unknown_dependency", "cycle")
# Each executor has its own iteration budget (docs/pmc.md), so the number of sub-tasks bounds the
# episode's work: PMC's plans have a handful (the paper's travel plans 4-6); a plan of more is a defect.
MAX_SUBTASKS = 20


class PlanDefect(Exception):
    """A manager plan that cannot be executed; ``kind`` is one of ``PLAN_ERRORS``."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class SubTask:
    id: str
    description: str
    executor: str
    tools: tuple[str, ...]
    parameters: dict[str, Any] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    local_constraints: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "description": self.description, "executor": self.executor,
                "tools": list(self.tools), "parameters": self.parameters, "depends_on": list(self.depends_on),
                "local_constraints": list(self.local_constraints)}


@dataclass(frozen=True)
class Plan:
    subtasks: tuple[SubTask, ...]
    global_constraints: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"subtasks": [s.to_json() for s in self.subtasks], "global_constraints": list(self.global_constraints)}

    def get(self, sid: str) -> SubTask:
        return next(s for s in self.subtasks if s.id == sid)


def extract_json(reply: str) -> Any:
    """The JSON object in a reply: a fenced block, else the outermost braces."""
    span = outermost_object(reply or "")
    if span is None:
        raise PlanDefect("bad_json", "the reply holds no JSON object")
    try:
        return loads(span)
    except json.JSONDecodeError as exc:
        raise PlanDefect("bad_json", f"{exc.msg} at character {exc.pos}") from None


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
        raise PlanDefect("bad_shape", f"{where} must be a list of strings")
    return tuple(str(v) for v in value)


def parse_plan(reply: str, tools: Sequence[str], executors: Sequence[str] = EXECUTORS) -> Plan:
    """Read and check a manager reply; raises ``PlanDefect`` naming the first defect."""
    data = extract_json(reply)
    if not isinstance(data, dict) or not isinstance(data.get("subtasks"), list):
        raise PlanDefect("bad_shape", "the object needs a 'subtasks' list")
    if not data["subtasks"]:
        raise PlanDefect("empty", "the plan has no sub-tasks")
    if len(data["subtasks"]) > MAX_SUBTASKS:
        raise PlanDefect("too_many", f"the plan has {len(data['subtasks'])} sub-tasks; at most {MAX_SUBTASKS}")
    subtasks: list[SubTask] = []
    for n, raw in enumerate(data["subtasks"]):
        where = f"subtasks[{n}]"
        if not isinstance(raw, dict):
            raise PlanDefect("bad_shape", f"{where} is not an object")
        sid, desc = raw.get("id"), raw.get("description")
        if not isinstance(sid, (str, int)) or str(sid).strip() == "":
            raise PlanDefect("bad_shape", f"{where}.id is missing")
        if not isinstance(desc, str) or not desc.strip():
            raise PlanDefect("bad_shape", f"{where}.description is missing")
        executor = raw.get("executor")
        if not isinstance(executor, str) or executor not in executors:
            raise PlanDefect("unknown_executor", f"{where}.executor {executor!r} is not one of {', '.join(executors)}")
        names = _strings(raw.get("tools"), f"{where}.tools")
        unknown = [t for t in names if t not in tools]
        if unknown:
            raise PlanDefect("unknown_tool", f"{where}.tools names {unknown[0]!r}, which is not a tool of this task")
        params = raw.get("parameters") or {}
        if not isinstance(params, dict):
            raise PlanDefect("bad_shape", f"{where}.parameters must be an object")
        subtasks.append(SubTask(id=str(sid).strip(), description=desc.strip(), executor=executor,
                                tools=names or tuple(tools), parameters=params,
                                depends_on=_strings(raw.get("depends_on"), f"{where}.depends_on"),
                                local_constraints=_strings(raw.get("local_constraints"), f"{where}.local_constraints")))
    ids = [s.id for s in subtasks]
    for sid in ids:
        if ids.count(sid) > 1:
            raise PlanDefect("duplicate_id", f"two sub-tasks have id {sid!r}")
    for s in subtasks:
        for d in s.depends_on:
            if d not in ids:
                raise PlanDefect("unknown_dependency", f"sub-task {s.id!r} depends on {d!r}, which is not a sub-task")
    plan = Plan(tuple(subtasks), _strings(data.get("global_constraints"), "global_constraints"))
    levels(plan)  # raises on a cycle
    return plan


def parse_rewrite(reply: str, sub: SubTask) -> SubTask:
    """The supervisor's rewrite of ``sub`` (PMC F.4: in the manager's JSON format). Its
    description, parameters and local constraints are taken; id, executor, tools and
    dependencies stay the manager's (the graph is fixed once checked). Raises ``PlanDefect``."""
    data = extract_json(reply)
    if isinstance(data, dict) and isinstance(data.get("subtasks"), list) and len(data["subtasks"]) == 1:
        data = data["subtasks"][0]  # the sub-task sent back inside a whole plan
    if not isinstance(data, dict):
        raise PlanDefect("bad_shape", "the rewrite is not a JSON object")
    desc = data.get("description")
    if not isinstance(desc, str) or not desc.strip():
        raise PlanDefect("bad_shape", "the rewrite's description is missing")
    params = data.get("parameters", sub.parameters)
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise PlanDefect("bad_shape", "the rewrite's parameters must be an object")
    rules = _strings(data.get("local_constraints", list(sub.local_constraints)), "the rewrite's local_constraints")
    return SubTask(id=sub.id, description=desc.strip(), executor=sub.executor, tools=sub.tools, parameters=params,
                   depends_on=sub.depends_on, local_constraints=rules)


def levels(plan: Plan) -> list[list[SubTask]]:
    """Kahn's order in waves: each wave's sub-tasks depend only on earlier waves, so a wave
    runs concurrently. Within a wave, the manager's order. A cycle raises ``PlanDefect``."""
    done: set[str] = set()
    left = list(plan.subtasks)
    out: list[list[SubTask]] = []
    while left:
        wave = [s for s in left if all(d in done for d in s.depends_on)]
        if not wave:
            raise PlanDefect("cycle", "sub-tasks " + ", ".join(sorted(s.id for s in left)) + " depend on each other")
        out.append(wave)
        done |= {s.id for s in wave}
        left = [s for s in left if s.id not in done]
    return out

