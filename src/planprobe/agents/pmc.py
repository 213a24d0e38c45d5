"""PMC (seed 002): a manager plans a sub-task graph, executors carry it out, a
supervisor rewrites each dependent sub-task from its neighbours' outcomes, a
deliverer answers under the global constraints.

Roles and their models: ``manager``, ``executor``, ``supervisor``, ``deliverer``
(``--model manager=…,executor=…``; a bare model serves the rest). The manager's
plan is checked (``pmc_plan``); a defective plan is sent back once with the
defect named, and a plan still defective fails the case with a ``plan_error``
naming its class. Sub-tasks run in waves: the sub-tasks of a wave depend only
on earlier waves and run concurrently. Every executor and supervisor has its own
sub-episode in the trace; tool calls act on the one shared environment, which
the family's oracle judges. ``trace.meta["pmc"]`` keeps the plan, the waves,
the rewritten descriptions, the repairs and the usage of each role.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..environment import Environment
from ..errors import PlanprobeError
from ..models.base import ChatParams, ChatResult, Model
from ..schema import Case, Message, ToolSpec, TraceError, Usage
from . import pmc_prompts as P
from .pmc_plan import EXECUTORS, Plan, PlanDefect, SubTask, levels, parse_plan
from .tools_agent import _for_trial

ROLES = ("manager", "executor", "supervisor", "deliverer")


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
        info: dict[str, Any] = {"plan": None, "waves": [], "rewritten": {}, "repairs": []}
        env.trace.meta["pmc"] = info
        try:
            plan = await self._plan(case, env, meters["manager"], info)
            if plan is None:
                return None
            outcomes: dict[str, str] = {}
            for wave in levels(plan):
                info["waves"].append([s.id for s in wave])
                done = await asyncio.gather(*(self._subtask(case, env, s, outcomes, meters, info) for s in wave))
                outcomes.update(zip((s.id for s in wave), done))
            return await self._deliver(case, env, plan, outcomes, meters["deliverer"])
        finally:
            info["usage_by_role"] = {role: u.model_dump() for role, u in usage.items()}

    async def _ask(self, view: Environment, model: _Metered, messages: list[Message]) -> str:
        view.step()
        result = await model.chat(messages, None, _for_trial(self.params, view))
        view.add_usage(result.usage)
        reply = result.message.content or ""
        view.log(Message(role="assistant", content=reply))
        return reply

    async def _plan(self, case: Case, env: Environment, model: _Metered, info: dict) -> Plan | None:
        view = env.as_role("manager")
        prompt = P.MANAGER.format(executors=", ".join(EXECUTORS), tools=P.tool_lines(env.tools), task=case.task)
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
                       meters: dict[str, _Metered], info: dict) -> str:
        description = sub.description
        if sub.depends_on:  # Definition 4.3: rewritten from the direct neighbours' outcomes
            view = env.sub_episode("supervisor", task=sub.id)
            neighbours = "\n".join(f"- {d}: {outcomes.get(d) or '(no report)'}" for d in sub.depends_on)
            prompt = Message(role="user", content=P.SUPERVISOR.format(description=description, outcomes=neighbours))
            view.log(prompt)
            rewritten = (await self._ask(view, meters["supervisor"], [prompt])).strip()
            view.finish(rewritten)
            if rewritten:
                description = rewritten
                info["rewritten"][sub.id] = rewritten
        text = P.executor_task(description, sub.parameters, sub.local_constraints)
        view = env.sub_episode("executor", task=text)
        view.tools = [t for t in env.tools if t.name in sub.tools]
        sub_case = case.model_copy(update={"task": text, "system": None})
        view.case = sub_case  # executors read the task from the case they are given or from env.case
        executor = _executor(sub.executor, meters["executor"], self.params)
        answer = await executor(sub_case, view)
        return answer or ""

    async def _deliver(self, case: Case, env: Environment, plan: Plan, outcomes: dict[str, str],
                       model: _Metered) -> str:
        view = env.as_role("deliverer")
        results = "\n".join(f"- {s.id} ({s.description}): {outcomes.get(s.id) or '(no report)'}"
                            for s in plan.subtasks)
        prompt = Message(role="user", content=P.DELIVERER.format(task=case.task, outcomes=results,
                                                                 constraints=P.bullet(plan.global_constraints)))
        view.log(prompt)
        answer = await self._ask(view, model, [prompt])
        view.finish(answer)
        return answer


def _executor(kind: str, model: Model, params: ChatParams):
    if kind == "react":
        from .react import ReactAgent

        return ReactAgent(model, params)
    from .tools_agent import ToolsAgent

    return ToolsAgent(model, params)
