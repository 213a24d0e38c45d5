"""Stopping ``serve`` and ``proxy`` on SIGTERM (a service manager's, a container's, ``kill``'s).

Left to Python, SIGTERM ends the process at once (exit 143, nothing said), and uvicorn's own
handler would stop only the one HTTP server that caught it, then raise the signal again. So
uvicorn handles no signals here (``mcp_server.listen``), and ``until_terminated`` turns SIGTERM
into a cancellation of the command's coroutine: every ``finally`` runs (the endpoints and the
proxy shut down, the case in flight is left unstored, to be served again), and ``Terminated``
tells the command to say what was stored and exit with its documented code.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Terminated(Exception):
    """The command's coroutine was stopped by SIGTERM."""


async def until_terminated(work: Awaitable[T]) -> T:
    """Await ``work`` in the current task; SIGTERM cancels it and raises ``Terminated``."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    received: list[bool] = []

    def on_sigterm() -> None:
        if not received and task is not None:
            received.append(True)
            task.cancel()

    loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    try:
        return await work
    except asyncio.CancelledError:
        if not received:
            raise
        uncancel = getattr(task, "uncancel", None)  # Python 3.11+: the task is no longer being cancelled
        if uncancel is not None:
            uncancel()
        raise Terminated from None
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
