"""Serving the view: loopback only, a free port the kernel picks (or the one asked for), and a
fresh random token in the printed URL."""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable
from pathlib import Path

from ..errors import PlanprobeError

HOST = "127.0.0.1"
INSTALL = "planprobe view needs starlette and uvicorn: pip install 'planprobe[view]'"


def require_server_packages() -> None:
    """One line naming what to install when the ``view`` extra is missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise PlanprobeError(INSTALL) from None


def bind(port: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise PlanprobeError(f"cannot listen on {HOST}:{port} ({exc.strerror or exc})") from None
    sock.listen(64)
    return sock


def _load_families() -> None:
    from ..suites.registry import families

    try:
        families()
    except PlanprobeError:
        pass  # a broken plug-in is named when a page needs it, not here


def serve(root: Path, port: int = 0, on_ready: Callable[[str], None] | None = None) -> None:
    """Serve ``root`` until interrupted; ``on_ready(url)`` gets the URL with the token."""
    require_server_packages()
    import uvicorn

    from .app import build_app
    from .catalog import discover

    discover(root)  # a missing or unreadable directory fails here, in one line
    token = secrets.token_urlsafe(24)
    sock = bind(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/?token={token}"
    config = uvicorn.Config(build_app(root, token), log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    _load_families()  # a case page's first highlight would load them: now, before the URL is out
    if on_ready is not None:
        on_ready(url)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
