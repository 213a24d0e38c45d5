"""``planprobe serve``: the run engine with ``ServeAgent`` as the agent, the slots served
over stdio or HTTP, and the recording proxy beside them when asked for. Everything else —
limits, judging, the run store, resuming — is the ordinary run's."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from ..runner.engine import OnResult, RunConfig, pending_total, run_pending
from ..runner.store import RunStore
from .mcp_server import HOST, http_endpoints, listen, serve_stdio, shutdown
from .proxy import Proxy, Recorder
from .recording import SessionRecorder
from .session import ServeAgent, Slot

STDIO_GRACE_S = 5.0  # after the last case, how long a stdio client may stay before the server exits
LINGER_S = 30.0  # after the last case, how long HTTP endpoints wait for a client to acknowledge a case's end


async def linger(slots: list[Slot]) -> None:
    """Keep serving while a client has not yet learnt that its case ended without its finish
    (a limit, the time), so its acknowledging call is answered; at most LINGER_S."""
    deadline = asyncio.get_running_loop().time() + LINGER_S
    while any(slot.unacknowledged is not None for slot in slots) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)


@dataclass(frozen=True)
class ServeOptions:
    transport: str = "http"  # "http" or "stdio"
    parallel: int = 1
    port: int = 0
    proxy_upstream: str | None = None
    proxy_port: int = 0


def slot_route(slots: list[Slot]) -> Callable[[str], Recorder | None]:
    """The proxy's path key -> the recorder of the case on that slot ('' is slot 1)."""

    def route(key: str) -> Recorder | None:
        try:
            index = int(key or "1") - 1
        except ValueError:
            return None
        if not 0 <= index < len(slots):
            return None
        session = slots[index].session
        return SessionRecorder(session) if session is not None and not session.over else None

    return route


@contextlib.asynccontextmanager
async def proxy_for(slots: list[Slot], options: ServeOptions) -> AsyncIterator[str | None]:
    """The recording proxy for the slots, when ``proxy_upstream`` is set: yields its base URL."""
    if not options.proxy_upstream:
        yield None
        return
    proxy = Proxy(options.proxy_upstream, slot_route(slots))
    server, task, port = await listen(proxy.app(), options.proxy_port)
    try:
        yield f"http://{HOST}:{port}"
    finally:
        await shutdown(server, task)
        await proxy.aclose()


async def serve_pending(store: RunStore, config: RunConfig, options: ServeOptions, announce: Callable[[str], None],
                        on_result: OnResult | None = None) -> int:
    """Serve every pending case of the run; returns how many were stored."""
    slots = [Slot(i, announce) for i in range(options.parallel)]
    agent = ServeAgent(slots, name=config.agent, steps_per_tool_call=not options.proxy_upstream)
    agent.total = pending_total(store, config)
    stored = 0

    def counted(trace: Any, verdict: Any) -> None:
        nonlocal stored
        stored += 1
        if on_result is not None:
            on_result(trace, verdict)

    async with proxy_for(slots, options) as proxy_url:
        if options.transport == "stdio":
            if proxy_url:
                announce(f"model calls: {proxy_url}/v1 (recorded into the case being served)")
            run = asyncio.create_task(run_pending(store, agent, config, counted))
            link = asyncio.create_task(serve_stdio(slots[0]))
            await asyncio.wait({run, link}, return_when=asyncio.FIRST_COMPLETED)
            if run.done():
                slots[0].close()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(link), STDIO_GRACE_S)
                link.cancel()
                with contextlib.suppress(BaseException):
                    await link
                run.result()
            else:  # the client closed stdin: the case in flight is infra, the rest stay pending
                agent.stop()
                while stored < agent.begun and not run.done():
                    await asyncio.sleep(0.01)
                run.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await run
                announce("the MCP client closed the connection; re-run the same command to serve the other cases")
            return stored
        async with http_endpoints(slots, options.port) as endpoints:
            for i, endpoint in enumerate(endpoints):
                model = f"  model calls: {proxy_url}/slot/{i + 1}/v1" if proxy_url else ""
                announce(f"MCP endpoint {i + 1}: {endpoint.slot.endpoint}{model}")
            try:
                await run_pending(store, agent, config, counted)
            finally:
                for slot in slots:
                    slot.close()
            await linger(slots)
    return stored
