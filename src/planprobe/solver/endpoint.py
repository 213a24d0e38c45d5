"""The solver as an OpenAI-compatible chat endpoint on loopback (``planprobe serve-model solver``).

So agents in any framework or language, and ``planprobe serve``'s MCP clients, can be tested with a
perfect model: ``POST /v1/chat/completions`` (OpenAI's request and reply shapes, tool calls included;
``stream: true`` gets the reply as one server-sent chunk) and ``GET /v1/models``. Each request is
answered from its messages and tools alone, like ``--model solver``. The standard library's threaded
HTTP server: no dependency, bound to 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..schema import Message, ToolSpec
from .backend import NAME, answer, word_count

_MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
_ROLES = {"developer": "system", "function": "tool"}


def _text(content: Any) -> str | None:
    """A message's content as text (content parts: their text parts joined)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return str(content)


def read_request(body: dict[str, Any]) -> tuple[list[Message], list[ToolSpec] | None]:
    """The request's messages and tools in planprobe's shapes (unknown fields left out)."""
    messages = []
    for raw in body.get("messages") or []:
        m = {k: raw[k] for k in _MESSAGE_KEYS if raw.get(k) is not None}
        m["role"] = _ROLES.get(str(m.get("role")), m.get("role"))
        m["content"] = _text(raw.get("content"))
        messages.append(Message.model_validate(m))
    tools = []
    for raw in body.get("tools") or []:
        fn = raw.get("function", raw) if isinstance(raw, dict) else {}
        tools.append(ToolSpec(name=fn["name"], description=fn.get("description") or "",
                              parameters=fn.get("parameters") or {"type": "object", "properties": {}}))
    return messages, tools or None


def completion(body: dict[str, Any], serial: int) -> dict[str, Any]:
    """The chat completion for one request body."""
    messages, tools = read_request(body)
    reply = answer(messages, tools)
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    prompt, completion_words = word_count(messages), word_count([reply])
    return {"id": f"chatcmpl-solver-{serial}", "object": "chat.completion", "created": 0,
            "model": body.get("model") or NAME,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion_words,
                      "total_tokens": prompt + completion_words}}


def _chunks(done: dict[str, Any]) -> list[dict[str, Any]]:
    """A completion as streaming chunks: the whole message in one delta, then the finish."""
    choice = done["choices"][0]
    delta = dict(choice["message"])
    if "tool_calls" in delta:
        delta["tool_calls"] = [{"index": i, **tc} for i, tc in enumerate(delta["tool_calls"])]
    base = {"id": done["id"], "object": "chat.completion.chunk", "created": 0, "model": done["model"]}
    return [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
             "usage": done["usage"]}]


class _Handler(BaseHTTPRequestHandler):
    server: SolverServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: a test or a benchmark sends thousands of requests

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": NAME, "object": "model", "owned_by": "planprobe"}]})
        else:
            self._send(404, {"error": {"message": f"no such path: {self.path}", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no such path: {self.path}", "type": "invalid_request_error"}})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            done = completion(body, self.server.next_serial())
        except (ValueError, KeyError, TypeError) as exc:
            self._send(400, {"error": {"message": f"not a chat request: {type(exc).__name__}: {exc}"[:500],
                                       "type": "invalid_request_error"}})
            return
        if not body.get("stream"):
            self._send(200, done)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in _chunks(done):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.close_connection = True


class SolverServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        super().__init__((host, port), _Handler)
        self._serial = 0
        self._lock = threading.Lock()

    def next_serial(self) -> int:
        with self._lock:
            self._serial += 1
            return self._serial

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/v1" if isinstance(host, str) else f"http://{host.decode()}:{port}/v1"
