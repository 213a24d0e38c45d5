"""One served case and the slot (endpoint) it is served on.

An external agent acts on a case through a ``Slot``: the slot holds the case being served
(a ``CaseSession`` around the family's own environment, the same object the built-in agents
call), waits for the next one between cases, and ends the case when the agent calls the
finish tool, disconnects, or breaks a limit. The run engine does the rest (limits, judging,
the run store), because ``ServeAgent`` is an ordinary planprobe agent to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..environment import Environment, IterationLimitExceeded
from ..errors import InfrastructureError
from ..schema import Case, ToolSpec

FINISH = "finish"
FINISH_DESCRIPTION = ("Call this once when you are done with the task. Give your final answer (text) in "
                      "'answer' when the task asks for one. After it, the next case (if any) is served here.")
TASK_URI = "planprobe://task"
DONE = "All cases are done: nothing more is served here."
OVER = " is over: "  # in the refusal of a call to a case that ended without finish


def finish_tool_name(tools: list[ToolSpec]) -> str:
    """``finish``, or ``planprobe_finish`` when the case has a tool of that name itself."""
    return FINISH if all(t.name != FINISH for t in tools) else "planprobe_finish"


def finish_spec(name: str) -> ToolSpec:
    return ToolSpec(name=name, description=FINISH_DESCRIPTION,
                    parameters={"type": "object", "properties": {"answer": {"type": "string"}}})


class CaseSession:
    """The case being served: its environment records every call; ``outcome`` resolves when
    the case ends (the final answer), or fails with the reason it ended early."""

    def __init__(self, case: Case, env: Environment, steps_per_tool_call: bool = True, last: bool = False):
        self.case = case
        self.last = last  # no case begins after this one: its finish says all are done
        self.env = env
        self.finish_name = finish_tool_name(env.tools)
        # without the proxy the tool calls are the only iterations planprobe sees; with it, model calls
        self.steps_per_tool_call = steps_per_tool_call
        self.outcome: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

    @property
    def over(self) -> bool:
        return self.outcome.done()

    def tools(self) -> list[ToolSpec]:
        return [*self.env.tools, finish_spec(self.finish_name)]

    def task(self) -> str:
        """The task exactly as the built-in agents get it (the system prompt, if the case has
        one, is a separate resource), so an MCP client can show its model the same text."""
        return self.case.task

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[str, bool]:
        """Run one tool call on the environment: (text for the agent, whether it is an error)."""
        if self.over:
            return f"Error: case {self.case.id} is over; no more calls are taken for it.", True
        if name == self.finish_name:
            answer = (arguments or {}).get("answer")
            self.end(answer if isinstance(answer, str) else None)
            then = DONE if self.last else f"The next case is served here: read {TASK_URI} again."
            return f"Case {self.case.id} is finished. {then}", False
        try:
            if self.steps_per_tool_call:
                self.env.step()
        except IterationLimitExceeded as exc:
            self.fail(exc)
            return f"Error: case {self.case.id}{OVER}{exc}.", True
        text = self.env.call(name, arguments)
        return text, self.env.trace.tool_calls[-1].error is not None

    def end(self, answer: str | None) -> None:
        if not self.over:
            if answer is not None:
                self.env.finish(answer)
            self.outcome.set_result(answer)

    def fail(self, exc: BaseException) -> None:
        """End the case now with ``exc`` (recorded by the run engine: limits, infrastructure)."""
        if not self.over:
            self.reason = str(exc)
            self.outcome.set_exception(exc)

    reason = ""  # why the case ended without the client's finish ("" when it finished)
    acknowledged = False  # the client called finish (or read the task) after it ended so

    def disconnected(self, how: str) -> None:
        self.fail(InfrastructureError(f"the agent disconnected before finishing the case ({how})"))
        self.acknowledged = True  # nobody is left to tell


class Slot:
    """One endpoint: serves one case at a time, in the order the run engine hands them out."""

    def __init__(self, index: int, announce: Callable[[str], None] = lambda _line: None):
        self.index = index
        self.endpoint = ""  # set by the transport once it listens
        self.announce = announce
        self.session: CaseSession | None = None
        self.closed = False
        # a case that ended without the client's finish (a limit, the time): its calls are refused
        # until the client calls finish or reads the task, so none lands on the next case
        self.unacknowledged: CaseSession | None = None
        self._changed = asyncio.Event()

    def begin(self, session: CaseSession) -> None:
        self.session = session
        self._changed.set()
        self.announce(f"serving case {session.case.id} on {self.endpoint}")

    def release(self, session: CaseSession) -> None:
        if self.session is session:
            self.session = None
        if session.outcome.cancelled():
            session.reason = "the case's time limit ran out"
        if session.reason and not session.acknowledged:
            self.unacknowledged = session

    def refusal(self, name: str | None) -> tuple[str, bool] | None:
        """The answer to a call (``name``; None for a task read) while a case that ended
        without the client's finish is not yet acknowledged: finish (or a task read)
        acknowledges it; anything else is refused, so no call lands on the next case."""
        ended = next((s for s in (self.session, self.unacknowledged)
                      if s is not None and s.over and s.reason and not s.acknowledged), None)
        if ended is None:
            return None
        if name is None or name == ended.finish_name:
            ended.acknowledged = True
            self.unacknowledged = None
            then = DONE if ended.last else f"The next case is served here: read {TASK_URI} again."
            return None if name is None else (f"Case {ended.case.id} was already over: {ended.reason}. {then}", False)
        return f"Error: case {ended.case.id}{OVER}{ended.reason}. Call {ended.finish_name} to go on.", True


    def close(self) -> None:
        """No more cases: waiters learn that all are done."""
        self.closed = True
        self._changed.set()

    async def current(self) -> CaseSession | None:
        """The case being served, waiting for the next one between cases; None when all are done."""
        while True:
            session = self.session
            if session is not None and not session.over:
                return session
            if self.closed:
                return None
            self._changed.clear()
            await self._changed.wait()


class ServeAgent:
    """The run engine's agent for ``planprobe serve``: each case waits on a free slot until
    the external agent finishes it there."""

    def __init__(self, slots: list[Slot], name: str = "mcp", steps_per_tool_call: bool = True):
        self.name = name
        self.slots = slots
        self._free: asyncio.Queue[Slot] | None = None
        self.steps_per_tool_call = steps_per_tool_call
        self.total = 0  # cases the run will serve (set before it starts)
        self.begun = 0
        self.stopping = False  # the transport is gone: no case begins any more

    def stop(self) -> None:
        """The client went away for good (stdio): end the case in flight, begin no other."""
        self.stopping = True
        for slot in self.slots:
            if slot.session is not None:
                slot.session.disconnected("its stdin closed")

    async def __call__(self, case: Case, env: Environment) -> str | None:
        if self._free is None:
            self._free = asyncio.Queue()
            for slot in self.slots:
                self._free.put_nowait(slot)
        slot = await self._free.get()
        if self.stopping:
            await asyncio.Event().wait()  # never begins: the run is being cancelled
        self.begun += 1
        session = CaseSession(case, env, self.steps_per_tool_call, last=self.begun >= self.total)
        try:
            slot.begin(session)
            return await session.outcome
        finally:
            session.end(None)  # a time limit cancelled the wait: later calls are refused
            slot.release(session)
            self._free.put_nowait(slot)
