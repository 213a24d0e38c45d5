"""A slot's tools as an MCP server (the official ``mcp`` SDK's low-level ``Server``), over
stdio or streamable HTTP on 127.0.0.1.

The server is a thin shell: ``tools/list`` lists the current case's tools (their JSON
Schemas as the case declares them) plus the finish tool, ``tools/call`` runs the call on the
case's environment, which records and checks it exactly as for a built-in agent, and the
``planprobe://task`` resource gives the task (as the built-in agents get it). Calls, listings and reads
that arrive between two cases wait for the next one; after the last, they are told so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

from ..errors import PlanprobeError
from .session import DONE, TASK_URI, Slot

MISSING = "the MCP server needs the mcp extra: pip install 'planprobe[mcp]'"
HOST = "127.0.0.1"
PATH = "/mcp"


def require_mcp() -> None:
    """One clear line when the optional ``mcp`` SDK is not installed."""
    try:
        import mcp  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise PlanprobeError(MISSING) from None


def build_server(slot: Slot) -> Any:
    """The MCP server of one slot (``mcp.server.Server``)."""
    require_mcp()
    import mcp_types as types
    from mcp.server import Server

    async def list_tools(_ctx: Any, _params: Any) -> Any:
        session = await slot.current()
        tools = [] if session is None else session.tools()
        return types.ListToolsResult(tools=[
            types.Tool(name=t.name, description=t.description, input_schema=t.parameters) for t in tools])

    async def call_tool(_ctx: Any, params: Any) -> Any:
        refused = slot.refusal(params.name)
        session = None if refused is not None else await slot.current()
        if refused is not None:
            text, error = refused
        elif session is None:
            text, error = DONE, True
        else:
            text, error = session.call(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)

    async def list_resources(_ctx: Any, _params: Any) -> Any:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=TASK_URI, name="task", description="The task of the case being served", mime_type="text/plain")])

    async def read_resource(_ctx: Any, params: Any) -> Any:
        if str(params.uri) != TASK_URI:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=types.INVALID_PARAMS, message=f"no resource {params.uri}; the task is {TASK_URI}")
        slot.refusal(None)
        session = await slot.current()
        text = DONE if session is None else session.task()
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=TASK_URI, mime_type="text/plain",
                                                                              text=text)])

    server = Server("planprobe", instructions=f"Read the resource {TASK_URI} for the task of the case being served.",
                    on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                    on_read_resource=read_resource)
    server.middleware = []  # no tracing spans per message: nothing exports them here
    return server


async def serve_stdio(slot: Slot) -> None:
    """Serve the slot over this process's stdin/stdout until the client closes stdin."""
    from mcp.server.stdio import stdio_server

    server = build_server(slot)
    slot.endpoint = "stdio"
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class HttpEndpoint:
    """The slot's server over streamable HTTP on 127.0.0.1 (uvicorn, in this event loop)."""

    def __init__(self, slot: Slot, port: int = 0):
        self.slot = slot
        self.port = port
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> str:
        self._server, self._task, self.port = await listen(self._app(), self.port)
        self.slot.endpoint = f"http://{HOST}:{self.port}{PATH}"
        return self.slot.endpoint

    def _app(self) -> Any:
        server = build_server(self.slot)
        # plain JSON answers, not an SSE stream per request: nothing is pushed mid-call, and it is faster
        inner = server.streamable_http_app(streamable_http_path=PATH, host=HOST, json_response=True)
        slot = self.slot

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            await inner(scope, receive, send)
            if scope.get("type") == "http" and scope.get("method") == "DELETE" and scope.get("path") == PATH:
                session = slot.session
                if session is not None and not session.over:  # the client closed its session mid-case
                    session.disconnected("it closed its MCP session")

        return app

    async def stop(self) -> None:
        await shutdown(self._server, self._task)


async def listen(app: Any, port: int) -> tuple[Any, asyncio.Task[None], int]:
    """Serve an ASGI app on 127.0.0.1 in this event loop: (uvicorn server, its task, its port)."""
    import uvicorn

    class QuietServer(uvicorn.Server):
        """No signal handlers of its own: the command stops every server at once on SIGINT and
        SIGTERM (serve/stopping.py); uvicorn's would stop this one and re-raise the signal."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:  # uvicorn >= 0.29
            yield

        def install_signal_handlers(self) -> None:  # older uvicorn
            return None

    config = uvicorn.Config(app, host=HOST, port=port, log_level="critical", lifespan="on", access_log=False,
                            timeout_graceful_shutdown=5)
    server = QuietServer(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            with contextlib.suppress(BaseException):
                task.result()
            raise PlanprobeError(f"--port {port}: nothing can listen on {HOST}:{port} (in use?)")
        await asyncio.sleep(0.01)
    return server, task, server.servers[0].sockets[0].getsockname()[1]


async def shutdown(server: Any, task: asyncio.Task[None] | None) -> None:
    if server is not None and task is not None:
        server.should_exit = True
        with contextlib.suppress(BaseException):
            await task


@contextlib.asynccontextmanager
async def http_endpoints(slots: list[Slot], port: int = 0) -> AsyncIterator[list[HttpEndpoint]]:
    """One HTTP endpoint per slot: ports ``port``, ``port+1``, … (or free ones when 0)."""
    endpoints = [HttpEndpoint(slot, port + i if port else 0) for i, slot in enumerate(slots)]
    try:
        for endpoint in endpoints:
            await endpoint.start()
        yield endpoints
    finally:
        for endpoint in endpoints:
            await endpoint.stop()
