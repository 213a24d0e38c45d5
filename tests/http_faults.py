"""A real, scriptable, misbehaving OpenAI-compatible server on loopback.

Each POST is answered by ``script(index, body, headers)`` (header names in lower
case), which returns one of:
``Reply`` (any status, body and headers), ``Drip`` (a body sent one byte per
``interval`` seconds, forever if long enough), ``Hang`` (headers never come; the
connection is held until the server stops) or ``Drop`` (the connection is closed
without a reply). Nothing here depends on how fast the machine is: a hang or a
drip outlasts any deadline a test sets, and a reply is sent at once.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import Self


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | dict | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Drip:
    body: bytes
    interval: float = 1.0


class Hang:
    pass


class Drop:
    pass


Action = Reply | Drip | Hang | Drop


def chat_reply(content: str = "done", usage: Any = None, **message: Any) -> Reply:
    """A well-formed chat completion whose message is ``content`` (and ``message`` fields)."""
    return Reply(200, {"id": "x", "object": "chat.completion", "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content, **message}}],
                       "usage": usage if usage is not None else {"prompt_tokens": 10, "completion_tokens": 2}})


class ScriptedServer:
    def __init__(self, script: Callable[[int, dict, dict], Action]):
        self.script = script
        self.requests: list[dict] = []  # every POST body, in order
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.connections: list = []  # closed on stop: a stopped server keeps no keep-alive connection open
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                with server.lock:
                    server.connections.append(self.connection)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server.lock:
                    index = len(server.requests)
                    server.requests.append(body)
                    server.headers.append(headers)
                action = server.script(index, body, headers)
                try:
                    self._act(action)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up first

            def _act(self, action: Action) -> None:
                if isinstance(action, Hang):
                    server.stopping.wait()
                    self.close_connection = True
                elif isinstance(action, Drop):
                    self.close_connection = True
                    self.connection.close()
                elif isinstance(action, Drip):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(action.body)))
                    self.end_headers()
                    for i in range(len(action.body)):
                        if server.stopping.wait(action.interval):
                            break
                        self.wfile.write(action.body[i:i + 1])
                        self.wfile.flush()
                    self.close_connection = True
                else:
                    data = action.body
                    if isinstance(data, dict) or data is None:
                        data = json.dumps(data if data is not None else {})
                    if isinstance(data, str):
                        data = data.encode()
                    self.send_response(action.status)
                    self.send_header("Content-Type", "application/json")
                    for k, v in action.headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        with self.lock:
            for conn in self.connections:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def always(action_factory: Callable[[], Action]) -> Callable[[int, dict, dict], Action]:
    return lambda i, body, headers: action_factory()


def mentions(body: dict, text: str) -> bool:
    """Whether any message of a chat request contains ``text``."""
    return any(text in (m.get("content") or "") for m in body.get("messages", []))
