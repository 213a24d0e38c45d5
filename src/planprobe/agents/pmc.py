"""PMC (seed 002): a manager plans a sub-task graph, executors carry it out, a
supervisor rewrites each dependent sub-task (in the manager's JSON format) from
its neighbours' outcomes, a deliverer answers under the global constraints.

Roles and their models: ``manager``, ``executor``, ``supervisor``, ``deliverer``
(``--model manager=…,executor=…``; a bare model serves the rest). The manager's
plan is checked (``pmc_plan``); a defective plan is sent back once with the
defect named, and a plan still defective fails the case with a ``plan_error``
naming its class. Sub-tasks run in waves: the sub-tasks of a wave depend only
on earlier waves and run concurrently. Every executor and supervisor has its own
sub-episode in the trace; tool calls act on the one shared environment, which
the family's oracle judges. Every role is given the case's own instructions (its
system prompt), framed for that role. ``trace.meta["pmc"]`` keeps the plan, the
waves, the rewritten sub-tasks, the repairs and the usage of each role.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..environment import Environment
from ..errors import PlanprobeError
from ..models.base import ChatParams, ChatResult, Model
from ..schema import Case, Message, ToolSpec, TraceError, Usage
from . import pmc_prompts as P
from .pmc_plan import (
    EXECUTORS,
    Plan,
    PlanDefect,
    SubTask,
    levels,
    parse_plan,
    parse_rewrite,
)
from .tools_agent import _for_trial

ROLES = ("manager", "executor", "supervisor", "deliverer")
T = TypeVar("T")


@dataclass
class _Metered:
    """A role's model, counting that role's usage (the trace's usage counts all roles)."""

    model: Model
    usage: Usage

    @property
    def name(self) -> str:
        return self.model.name

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        result = await self.model.chat(messages, tools, params)
        self.usage.add(result.usage)
        return result

    async def aclose(self) -> None:  # the run closes the real models
        return None


class PmcAgent:
    name = "pmc"

    def __init__(self, models: Any, params: ChatParams = ChatParams(), repairs: int = 1):
        from ..models.roles import RoleModels

        role_models = RoleModels.of(models)
        if role_models is None:
            raise PlanprobeError("--agent pmc needs a model: add --model local or --model manager=…,executor=…")
        role_models.check_roles(ROLES, "pmc")
        self.models = {role: role_models.for_role(role, "pmc") for role in ROLES}
        self.params = params
        self.repairs = repairs

    async def __call__(self, case: Case, env: Environment) -> str | None:
        if not env.tools:
            raise PlanprobeError(f"--agent pmc needs a family with tools; case {case.id!r} has none")
        usage = {role: Usage() for role in ROLES}
        meters = {role: _Metered(self.models[role], usage[role]) for role in ROLES}
        info: dict[str, Any] = {"plan": None, "waves": [], "rewritten": {}, "rewrite_problems": {}, "repairs": []}
        env.trace.meta["pmc"] = info
        try:
            plan = await self._plan(case, env, meters["manager"], info)
            if plan is None:
                return None
            outcomes: dict[str, str] = {}
            executed: dict[str, SubTask] = {}  # each sub-task as its executor was given it
            for wave in levels(plan):
                info["waves"].append([s.id for s in wave])
                done = await all_or_none(self._subtask(case, env, s, outcomes, meters, info) for s in wave)
                for sub, (ran, report) in zip(wave, done):
                    executed[sub.id], outcomes[sub.id] = ran, report
            return await self._deliver(case, env, plan, executed, outcomes, meters["deliverer"])
        finally:
            info["usage_by_role"] = {role: u.model_dump() for role, u in usage.items()}

    async def _ask(self, view: Environment, model: _Metered, messages: list[Message]) -> str:
        view.count_coordination()  # counted, not limited: the executors' own loops are (docs/pmc.md)
        result = await model.chat(messages, None, _for_trial(self.params, view))
        view.add_usage(result.usage)
        reply = result.message.content or ""
        view.log(Message(role="assistant", content=reply))
        return reply

    async def _plan(self, case: Case, env: Environment, model: _Metered, info: dict) -> Plan | None:
        view = env.as_role("manager")
        prompt = P.MANAGER.format(executors=", ".join(EXECUTORS), tools=P.tool_lines(env.tools), task=case.task,
                                  instructions=P.instructions("manager", case.system))
        messages = [Message(role="user", content=prompt)]
        view.log(messages[0])
        names = [t.name for t in env.tools]
        for attempt in range(self.repairs + 1):
            reply = await self._ask(view, model, messages)
            try:
                plan = parse_plan(reply, names)
            except PlanDefect as defect:
                info["repairs"].append({"kind": defect.kind, "message": defect.message})
                if attempt == self.repairs:
                    info["plan_error"] = defect.kind
                    env.trace.errors.append(TraceError(kind="plan_error", t=env.elapsed(),
                                                       message=f"PMC manager plan unusable ({defect.kind}): "
                                                               f"{defect.message}"))
                    return None
                messages += [Message(role="assistant", content=reply.rstrip()),
                             Message(role="user", content=P.REPAIR.format(problem=defect.message))]
                view.log(messages[-1])
                continue
            info["plan"] = plan.to_json()
            return plan
        return None

    async def _subtask(self, case: Case, env: Environment, sub: SubTask, outcomes: dict[str, str],
                       meters: dict[str, _Metered], info: dict) -> tuple[SubTask, str]:
        """Run one sub-task (rewritten first when it has dependencies); (the sub-task as run, its report)."""
        if sub.depends_on:  # Definition 4.3: rewritten from the direct neighbours' outcomes
            sub = await self._rewrite(case, env, sub, outcomes, meters["supervisor"], info)
        text = P.executor_task(sub.description, sub.parameters, sub.local_constraints)
        view = env.sub_episode("executor", task=text, own_budget=True)
        view.tools = [t for t in env.tools if t.name in sub.tools]
        sub_case = case.model_copy(update={"task": text, "system": P.executor_system(case.system)})
        view.case = sub_case  # executors read the task from the case they are given or from env.case
        executor = _executor(sub.executor, meters["executor"], self.params)
        answer = await executor(sub_case, view)
        return sub, answer or ""

    async def _rewrite(self, case: Case, env: Environment, sub: SubTask, outcomes: dict[str, str],
                       model: _Metered, info: dict) -> SubTask:
        """The supervisor's rewrite, in the manager's JSON format (PMC F.4); an unreadable
        rewrite leaves the manager's sub-task as it was, and says why in the trace."""
        view = env.sub_episode("supervisor", task=sub.id)
        neighbours = "\n".join(f"- {d}: {outcomes.get(d) or '(no report)'}" for d in sub.depends_on)
        original = json.dumps(sub.to_json(), ensure_ascii=False)
        prompt = Message(role="user", content=P.SUPERVISOR.format(
            subtask=original, outcomes=neighbours, instructions=P.instructions("supervisor", case.system)))
        view.log(prompt)
        reply = (await self._ask(view, model, [prompt])).strip()
        view.finish(reply)
        try:
            rewritten = parse_rewrite(reply, sub)
        except PlanDefect as defect:
            info["rewrite_problems"][sub.id] = f"{defect.kind}: {defect.message}"
            return sub
        info["rewritten"][sub.id] = rewritten.to_json()
        return rewritten

    async def _deliver(self, case: Case, env: Environment, plan: Plan, executed: dict[str, SubTask],
                       outcomes: dict[str, str], model: _Metered) -> str:
        view = env.as_role("deliverer")
        results = "\n".join(f"- {s.id} ({executed.get(s.id, s).description}): {outcomes.get(s.id) or '(no report)'}"
                            for s in plan.subtasks)  # each sub-task as it was run (rewritten or not)
        prompt = Message(role="user", content=P.DELIVERER.format(
            task=case.task, outcomes=results, constraints=P.bullet(plan.global_constraints),
            instructions=P.instructions("deliverer", case.system)))
        view.log(prompt)
        answer = await self._ask(view, model, [prompt])
        view.finish(answer)
        return answer


async def all_or_none(coros: Iterable[Awaitable[T]]) -> list[T]:
    """Run a wave's sub-tasks concurrently; their results in order. When one fails, or the
    episode is cancelled (its time limit), the others are cancelled and awaited before the
    failure goes on, so no model or tool call outlives its case (``asyncio.gather`` leaves
    the siblings running into a closed client; Python 3.10 has no ``TaskGroup``)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    done: set[asyncio.Future[T]] = set()
    try:
        if tasks:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()  # a no-op on the finished ones
        if tasks:
            await asyncio.wait(tasks)
    failures = [t.exception() for t in tasks if not t.cancelled()]  # every exception retrieved: no warnings
    for task, failure in zip((t for t in tasks if not t.cancelled()), failures):
        if task in done and failure is not None:  # the first failure in the manager's order
            raise failure
    return [t.result() for t in tasks]


def _executor(kind: str, model: Model, params: ChatParams):
    if kind == "react":
        from .react import ReactAgent

        return ReactAgent(model, params)
    from .tools_agent import ToolsAgent

    return ToolsAgent(model, params)
