"""The world an agent acts in: a case's tools, executed and recorded.

An ``Environment`` turns tool calls into results and writes every call, with
its raw arguments, result and timestamps, into the episode's ``Trace``. Agents
also log their messages and token usage here, and call ``step()`` once per
iteration so the iteration limit is enforced the same way for every agent.
Families subclass it and implement ``execute``.
"""

from __future__ import annotations

import json
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Optional, Union

from .schema import Case, Message, ToolCall, ToolCallError, ToolSpec, Trace, Usage
from .tool_args import parse_arguments, validate_arguments


# The trace of the episode running in this asyncio task, so that layers below the
# agent (model backends retrying a call) can note what happened in it.
current_trace: ContextVar[Optional[Trace]] = ContextVar("planprobe_current_trace", default=None)
# trace.meta key a model backend sets while one of its calls is being retried, so that
# a time limit hit during service trouble is recorded as infrastructure, not as Timeout
INFRA_PENDING = "infra_retries_pending"


@dataclass(frozen=True)
class Limits:
    """Per-episode limits; the defaults are the seed's (PDoctor §6.1)."""

    max_iterations: int = 50
    timeout_s: float = 180.0


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

    # -- what agents use -------------------------------------------------

    def step(self) -> None:
        """Count one agent iteration (a model call, or one action of a scripted agent)."""
        self.trace.iterations += 1
        if self.trace.iterations > self.limits.max_iterations:
            raise IterationLimitExceeded(f"more than {self.limits.max_iterations} iterations")

    def call(self, name: str, arguments: Union[str, dict, None] = None, call_id: Optional[str] = None) -> str:
        """Run one tool call and record it; always returns the text the agent sees."""
        t_start = self.elapsed()
        raw = arguments if isinstance(arguments, str) else _dump(arguments)
        attempt = self.attempt
        tool = self._tools_by_name.get(name)
        args = parse_arguments(arguments)
        error: Optional[str] = None
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
            )
        )
        return result

    def log(self, message: Message) -> None:
        self.trace.messages.append(message)

    def add_usage(self, usage: Usage) -> None:
        self.trace.usage.add(usage)

    def finish(self, answer: Optional[str]) -> None:
        self.trace.final_answer = answer

    def elapsed(self) -> float:
        return round(time.monotonic() - self._t0, 6)

    # -- what families implement ----------------------------------------

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, Optional[str]]:
        """Carry out a valid call; returns (result text, ToolCallError value or None)."""
        raise NotImplementedError

    def restart(self) -> None:
        """Begin a new attempt: later calls belong to it and only the last attempt is judged."""
        self.attempt += 1
        self.trace.restarts = self.attempt


def _dump(arguments: Optional[dict]) -> str:
    return json.dumps(arguments if arguments is not None else {}, sort_keys=True)
