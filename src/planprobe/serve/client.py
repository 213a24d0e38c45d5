"""planprobe's own agents as MCP clients: connect to a served endpoint, and for each case
read the task, list the tools, run the agent with every tool call going over MCP, then call
the finish tool with the agent's answer. This is how the tests drive ``planprobe serve``
with a real client, and how the overhead benchmark measures the MCP path.

The agent runs on its own event loop in a worker thread (its tool calls are synchronous);
the MCP client stays on the caller's loop and serves those calls.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..agents.base import Agent
from ..environment import Environment, Limits
from ..schema import Case, ToolCall, ToolCallError, ToolSpec, Trace, TraceError
from ..tool_args import parse_arguments
from .mcp_server import require_mcp
from .session import DONE, FINISH_DESCRIPTION, OVER, TASK_URI

T = TypeVar("T")
Forward = Callable[[str, dict[str, Any]], tuple[str, bool]]


class CaseOver(Exception):
    """The server ended the case (a limit, the time): the agent stops and the client finishes."""


class ClientEnvironment(Environment):
    """What the agent sees on the client side: the served tools; each call is sent to the
    server (whose environment is the ground truth) and only noted here."""

    def __init__(self, case: Case, limits: Limits, forward: Forward, agent: str = ""):
        super().__init__(case, limits, 0, agent)
        self._forward = forward

    def _call(self, name: str, arguments: str | dict[str, Any] | None, call_id: str | None, role: str,
              episode: str | None) -> str:
        t_start = self.elapsed()
        args = parse_arguments(arguments)
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, sort_keys=True)
        error: str | None
        if args is None:  # MCP carries an object: malformed arguments never leave the client
            result = f"Error: the arguments of '{name}' are not a JSON object."
            error = ToolCallError.MALFORMED_ARGUMENTS.value
        else:
            result, failed = self._forward(name, args)
            error = "server_error" if failed else None
            if failed and result.startswith("Error: case ") and OVER in result:
                raise CaseOver(result)
        self.trace.tool_calls.append(ToolCall(index=len(self.trace.tool_calls), name=name, arguments=raw, args=args,
                                              result=result, error=error, call_id=call_id, t_start=t_start,
                                              t_end=self.elapsed(), agent=role, step=self.trace.iterations,
                                              episode=episode))
        return result


class _AgentLoop:
    """A private event loop in a thread, for the agent and its model."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="planprobe-mcp-agent", daemon=True)
        self._thread.start()

    async def run(self, coro: Awaitable[T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(_as_coro(coro), self.loop))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


async def _as_coro(aw: Awaitable[T]) -> T:
    return await aw


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def run_mcp_client(server: Any, agent: Agent, limits: Limits = Limits(), max_cases: int | None = None,
                         on_case: Callable[[Trace], None] | None = None,
                         close_model: Callable[[], Awaitable[None]] | None = None) -> list[Trace]:
    """Drive every case served at ``server`` (a URL or ``mcp.client.stdio.StdioServerParameters``)
    with ``agent``; returns the client-side traces (what the agent saw). ``close_model`` is run
    on the agent's loop at the end (a model client bound to that loop)."""
    require_mcp()
    from mcp.client import Client

    loop = asyncio.get_running_loop()
    agent_loop = _AgentLoop()
    traces: list[Trace] = []
    try:
        async with Client(server) as client:
            while max_cases is None or len(traces) < max_cases:
                task = _text_of_resource(await client.read_resource(TASK_URI))
                if task == DONE:
                    break
                listed = (await client.list_tools()).tools
                finish = next(t.name for t in listed if t.description == FINISH_DESCRIPTION)
                tools = [ToolSpec(name=t.name, description=t.description or "", parameters=dict(t.input_schema))
                         for t in listed if t.name != finish]
                case = Case(id=f"served-{len(traces) + 1}", family="mcp-client", task=task, tools=tools)

                def forward(name: str, args: dict[str, Any]) -> tuple[str, bool]:
                    future = asyncio.run_coroutine_threadsafe(client.call_tool(name, args), loop)
                    result = future.result()
                    return _text(result), bool(result.is_error)

                env = ClientEnvironment(case, limits, forward, getattr(agent, "name", ""))
                try:
                    answer = await agent_loop.run(agent(case, env))
                except Exception as exc:  # noqa: BLE001 -- a client-side limit or the agent's own failure: finish anyway
                    env.trace.errors.append(TraceError(kind="agent_error", message=str(exc)[:500]))
                    answer = None
                finished = await client.call_tool(finish, {"answer": answer} if answer is not None else {})
                traces.append(env.trace)
                if on_case is not None:
                    on_case(env.trace)
                if _text(finished).endswith(DONE):
                    break
    finally:
        if close_model is not None:
            await agent_loop.run(close_model())
        agent_loop.close()
    return traces


def _text_of_resource(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.contents)
