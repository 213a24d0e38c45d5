"""The world an agent acts in: a case's tools, executed and recorded.

An ``Environment`` turns tool calls into results and writes every call, with
its raw arguments, result and timestamps, into the episode's ``Trace``. Agents
also log their messages and token usage here, and call ``step()`` once per
iteration so the iteration limit is enforced the same way for every agent.
Families subclass it and implement ``execute``.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from .schema import (
    DEFAULT_ROLE,
    Case,
    Message,
    SubEpisode,
    ToolCall,
    ToolCallError,
    ToolSpec,
    Trace,
    Usage,
)
from .tool_args import parse_arguments, validate_arguments

# The trace of the episode running in this asyncio task, so that layers below the
# agent (model backends retrying a call) can note what happened in it.
current_trace: ContextVar[Trace | None] = ContextVar("planprobe_current_trace", default=None)
# trace.meta key a model backend sets while one of its calls is being retried, so that
# a time limit hit during service trouble is recorded as infrastructure, not as Timeout
INFRA_PENDING = "infra_retries_pending"


@dataclass(frozen=True)
class Limits:
    """Per-episode limits; the defaults are the seed's (PDoctor §6.1)."""

    max_iterations: int = 50
    timeout_s: float = 180.0


async def within(coro: Any, seconds: float) -> Any:
    """``coro``'s result, or ``asyncio.TimeoutError`` after ``seconds``. On Python 3.11+ the deadline
    is a timeout scope around the awaited call, not ``wait_for``'s extra task per call: the episode's
    limit and each model request's deadline took a tenth of the harness's CPU per case at
    concurrency 64 that way (issue #30)."""
    timeout = getattr(asyncio, "timeout", None)
    if timeout is None:  # Python 3.10
        return await asyncio.wait_for(coro, seconds)
    async with timeout(seconds):
        return await coro


class IterationLimitExceeded(Exception):
    """Raised by ``Environment.step`` when the agent uses up its iterations."""


class Environment:
    def __init__(self, case: Case, limits: Limits = Limits(), trial: int = 0, agent: str = ""):
        self.case = case
        self.limits = limits
        self.tools: list[ToolSpec] = list(case.tools)
        self._tools_by_name = {t.name: t for t in self.tools}
        self.trace = Trace(case_id=case.id, trial=trial, agent=agent)
        self._t0 = time.monotonic()
        self.attempt = 0
        self.role = DEFAULT_ROLE  # who acts through this object (an AgentView acts as another role)
        self.episode: str | None = None  # the sub-episode it acts in; None: the episode itself

    # -- what agents use -------------------------------------------------

    def user_message(self) -> Message:
        """The first user message: the task (a family may attach content parts, e.g. images)."""
        return Message(role="user", content=self.case.task)

    def chat_params(self, params: Any) -> Any:
        """The model call settings for this case (a family may ask for JSON mode)."""
        return params

    def step(self) -> None:
        """Count one agent iteration (a model call, or one action of a scripted agent)."""
        self.trace.iterations += 1
        if self.trace.iterations > self.limits.max_iterations:
            raise IterationLimitExceeded(f"more than {self.limits.max_iterations} iterations")

    def count_coordination(self) -> None:
        """Count a coordinating role's model call (PMC's manager, supervisor, deliverer) in the
        trace's iterations without holding it to the limit: the limit bounds the loops of the
        agents that act on the task, and a coordinator's calls are bounded by the plan's shape
        (one manager call and its repairs, one rewrite per dependent sub-task, one delivery)."""
        self.trace.iterations += 1

    def call(self, name: str, arguments: str | dict | None = None, call_id: str | None = None) -> str:
        """Run one tool call and record it; always returns the text the agent sees."""
        return self._call(name, arguments, call_id, self.role, self.episode)

    def _call(self, name: str, arguments: str | dict | None, call_id: str | None, role: str,
              episode: str | None) -> str:
        t_start = self.elapsed()
        raw = arguments if isinstance(arguments, str) else _dump(arguments)
        attempt = self.attempt
        tool = self._tools_by_name.get(name)
        args = parse_arguments(arguments)
        error: str | None = None
        if tool is None:
            error = ToolCallError.UNKNOWN_TOOL.value
            result = f"Error: there is no tool named '{name}'. Available tools: {', '.join(self._tools_by_name)}."
        elif args is None:
            error = ToolCallError.MALFORMED_ARGUMENTS.value
            result = f"Error: the arguments of '{name}' are not a JSON object: {raw[:200]}"
        else:
            problem = validate_arguments(tool.parameters, args)
            if problem:
                error = ToolCallError.INVALID_ARGUMENTS.value
                result = f"Error: invalid arguments for '{name}': {problem}."
            else:
                result, error = self.execute(name, args)
        self.trace.tool_calls.append(
            ToolCall(
                index=len(self.trace.tool_calls), attempt=attempt, name=name, arguments=raw, args=args,
                result=result, error=error, call_id=call_id, t_start=t_start, t_end=self.elapsed(),
                agent=role, step=self.trace.iterations, episode=episode,
            )
        )
        return result

    def log(self, message: Message) -> None:
        """Record a message of the agent's conversation, annotated with who and when (the
        annotations never reach a model: ``Message.wire``)."""
        self._log(message, self.role, self.episode)

    def _log(self, message: Message, role: str, episode: str | None) -> None:
        step = self.trace.iterations
        if message.agent is None and message.step is None:  # a new message: annotate it as it is
            message.__dict__.update(agent=role, step=step)  # (plain fields: skip pydantic's per-field setattr)
        elif (message.agent, message.step) != (role, step):  # logged before (e.g. a shared constant): a copy
            message = message.model_copy(update={"agent": role, "step": step})
        self._messages_of(episode).append(message)

    def add_usage(self, usage: Usage) -> None:
        self.trace.usage.add(usage)

    # -- roles and sub-episodes (multi-agent planners) -----------------------

    def as_role(self, role: str) -> AgentView:
        """This environment as another agent role sees it: what it does is recorded as that role's."""
        return AgentView(self, role, self.episode)

    def sub_episode(self, role: str, task: str | None = None, own_budget: bool = False) -> AgentView:
        """Begin a sub-agent's own conversation (e.g. an executor given one sub-task): its
        messages and answer are kept apart in ``trace.episodes``, its tool calls act on this
        environment and are judged with all others. Its iterations count in the trace's; with
        ``own_budget`` the iteration limit bounds this sub-agent's own loop (each of PMC's
        executors is an agent with its own loop), else the episode's total."""
        return self._begin_episode(role, task, self.episode, own_budget)

    def _begin_episode(self, role: str, task: str | None, parent: str | None,
                       own_budget: bool = False) -> AgentView:
        count = sum(1 for e in self.trace.episodes if e.agent == role)
        sub = SubEpisode(id=f"{role}-{count + 1}", agent=role, parent=parent, task=task,
                         step=self.trace.iterations)
        self.trace.episodes.append(sub)
        return AgentView(self, role, sub.id, own_budget)

    def _episode(self, episode: str) -> SubEpisode:
        return next(e for e in self.trace.episodes if e.id == episode)

    def _messages_of(self, episode: str | None) -> list[Message]:
        return self.trace.messages if episode is None else self._episode(episode).messages

    def finish(self, answer: str | None) -> None:
        self.trace.final_answer = answer

    def elapsed(self) -> float:
        return round(time.monotonic() - self._t0, 6)

    # -- what families implement ----------------------------------------

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        """Carry out a valid call; returns (result text, ToolCallError value or None)."""
        raise NotImplementedError

    def restart(self) -> None:
        """Begin a new attempt: later calls belong to it and only the last attempt is judged."""
        self.attempt += 1
        self.trace.restarts = self.attempt


def _dump(arguments: dict | None) -> str:
    return json.dumps(arguments if arguments is not None else {}, sort_keys=True)


class AgentView(Environment):
    """One agent role's handle on a shared environment (``Environment.as_role`` and
    ``sub_episode`` make them). It is used exactly like the environment — same tools, same
    iteration count and limits, same tool state — but what it logs and calls is recorded
    as its role's, and a sub-episode's messages, usage and answer go to that sub-episode."""

    def __init__(self, env: Environment, role: str, episode: str | None,
                 own_budget: bool = False):  # shares env's state: no super()
        self._env = env
        self._own_budget = own_budget
        self._used = 0  # iterations of this view's own loop, when it has its own budget
        self.case = env.case
        self.limits = env.limits
        self.tools = env.tools
        self._tools_by_name = env._tools_by_name
        self.trace = env.trace
        self.role = role
        self.episode = episode

    def __getattr__(self, name: str) -> Any:
        """Anything else (the attempt count, a family environment's own state) is the environment's."""
        if name == "_env":
            raise AttributeError(name)
        return getattr(self._env, name)

    def step(self) -> None:
        if not self._own_budget:
            self._env.step()
            return
        self._env.count_coordination()  # numbered in the trace's steps, bounded here
        self._used += 1
        if self._used > self.limits.max_iterations:
            raise IterationLimitExceeded(f"more than {self.limits.max_iterations} iterations in {self.episode}")

    def count_coordination(self) -> None:
        self._env.count_coordination()

    def call(self, name: str, arguments: str | dict | None = None, call_id: str | None = None) -> str:
        return self._env._call(name, arguments, call_id, self.role, self.episode)

    def log(self, message: Message) -> None:
        self._env._log(message, self.role, self.episode)

    def add_usage(self, usage: Usage) -> None:
        self._env.add_usage(usage)
        if self.episode is not None:
            self._env._episode(self.episode).usage.add(usage)

    def finish(self, answer: str | None) -> None:
        """A sub-episode's answer is its own; the episode's answer is given by the top role."""
        if self.episode is None:
            self._env.finish(answer)
        else:
            self._env._episode(self.episode).final_answer = answer

    def elapsed(self) -> float:
        return self._env.elapsed()

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        return self._env.execute(name, args)

    def restart(self) -> None:
        self._env.restart()

    def as_role(self, role: str) -> AgentView:
        return AgentView(self._env, role, self.episode)

    def sub_episode(self, role: str, task: str | None = None, own_budget: bool = False) -> AgentView:
        return self._env._begin_episode(role, task, self.episode, own_budget)
