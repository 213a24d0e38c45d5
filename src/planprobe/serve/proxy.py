"""A recording OpenAI-compatible proxy on 127.0.0.1.

It forwards ``/v1/chat/completions`` (streaming or not) and ``/v1/models`` to the upstream
as they are, and hands each completed model call to a ``Recorder``: under ``planprobe serve``
the case being served on that slot (its messages, usage and reasoning join the case's trace),
standalone a JSONL file. Which recorder a request belongs to comes from its path:
``/v1/…`` is the default (slot 1), ``/slot/N/v1/…`` (serve) or ``/case/ID/v1/…`` (standalone)
name one. The Authorization header is passed on and never written anywhere.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from ..lenient_json import loads

FORWARDED_HEADERS = ("authorization", "content-type", "accept", "openai-organization", "openai-project")


class Recorder(Protocol):
    def before_call(self) -> str | None:
        """Called before forwarding; a returned text refuses the call with it (e.g. a limit)."""

    def record(self, request: dict[str, Any], reply: dict[str, Any]) -> None:
        """One completed call: the request body and the (assembled) chat completion."""

    def failed(self, cause: str) -> None:
        """The upstream could not be reached."""


Route = Callable[[str], "Recorder | None"]


def assemble_stream(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The chat completion that a list of streamed chunks adds up to (content, reasoning,
    tool calls merged by index, finish reason, usage)."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    usage = None
    model = None
    for chunk in chunks:
        model = chunk.get("model", model)
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if delta.get("content"):
                content.append(delta["content"])
            for key in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(key), str):
                    reasoning.append(delta[key])
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(int(tc.get("index", 0)), {"id": None, "type": "function",
                                                                  "function": {"name": "", "arguments": ""}})
                if tc.get("id"):
                    slot["id"] = tc["id"]
                fn = tc.get("function") or {}
                slot["function"]["name"] += fn.get("name") or ""
                slot["function"]["arguments"] += fn.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) if content else None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    return {"model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}


class Proxy:
    """The proxy's ASGI app (Starlette) for one upstream base URL (…/v1)."""

    def __init__(self, upstream: str, route: Route, timeout_s: float = 600.0):
        self.upstream = upstream.rstrip("/")
        self.route = route
        self.timeout_s = timeout_s
        self._client: Any = None

    def app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.routing import Route as R

        paths = ["/v1", "/{scope}/{key}/v1"]
        routes = [R(p + "/chat/completions", self._chat, methods=["POST"]) for p in paths]
        routes += [R(p + "/models", self._models, methods=["GET"]) for p in paths]
        return Starlette(routes=routes)

    def _http(self) -> Any:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout_s, connect=10.0))
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    @staticmethod
    def _headers(request: Any) -> dict[str, str]:
        return {k: v for k, v in request.headers.items() if k.lower() in FORWARDED_HEADERS}

    async def _models(self, request: Any) -> Any:
        from starlette.responses import Response

        try:
            up = await self._http().get(self.upstream + "/models", headers=self._headers(request))
        except Exception as exc:  # noqa: BLE001 -- any failure to reach the upstream becomes a 502
            return _error(502, f"upstream {self.upstream} unreachable: {type(exc).__name__}")
        return Response(up.content, status_code=up.status_code, media_type=up.headers.get("content-type"))

    async def _chat(self, request: Any) -> Any:
        from starlette.responses import Response

        key = request.path_params.get("key", "")
        recorder = self.route(key)
        raw = await request.body()
        try:
            body = loads(raw.decode("utf-8"))  # not UTF-8: a ValueError, answered below
            if not isinstance(body, dict):
                raise ValueError("not an object")  # noqa: TRY004 -- caught just below, with the JSON errors
        except ValueError as exc:
            return _error(400, f"the request body is not a JSON object ({exc})")
        if recorder is None:
            return _error(404, f"no case is being served for {request.url.path}")
        refused = recorder.before_call()
        if refused is not None:
            return _error(400, refused)
        if body.get("stream"):
            return await self._stream(request, body, recorder)
        try:
            up = await self._http().post(self.upstream + "/chat/completions", content=raw,
                                         headers=self._headers(request))
        except Exception as exc:  # noqa: BLE001 -- any failure to reach the upstream becomes a 502
            cause = f"upstream {self.upstream} unreachable: {type(exc).__name__}"
            recorder.failed(cause)
            return _error(502, cause)
        if up.status_code == 200:
            try:
                recorder.record(body, up.json())
            except ValueError:
                pass  # not JSON: handed on as it came, nothing to record
        return Response(up.content, status_code=up.status_code, media_type=up.headers.get("content-type"))

    async def _stream(self, request: Any, body: dict[str, Any], recorder: Recorder) -> Any:
        from starlette.responses import StreamingResponse

        asked_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        sent = dict(body, stream_options={**(body.get("stream_options") or {}), "include_usage": True})
        client = self._http()
        try:
            up_request = client.build_request("POST", self.upstream + "/chat/completions", json=sent,
                                              headers=self._headers(request))
            up = await client.send(up_request, stream=True)
        except Exception as exc:  # noqa: BLE001 -- any failure to reach the upstream becomes a 502
            cause = f"upstream {self.upstream} unreachable: {type(exc).__name__}"
            recorder.failed(cause)
            return _error(502, cause)
        if up.status_code != 200:
            content = await up.aread()
            await up.aclose()
            from starlette.responses import Response

            return Response(content, status_code=up.status_code, media_type=up.headers.get("content-type"))

        async def relay() -> AsyncIterator[bytes]:
            chunks: list[dict[str, Any]] = []
            skip_blank = False
            try:
                async for line in up.aiter_lines():
                    if skip_blank and line == "":
                        skip_blank = False
                        continue
                    if line.startswith("data:") and line[5:].strip() != "[DONE]":
                        try:
                            chunk = loads(line[5:])
                        except ValueError:
                            chunk = None
                        if isinstance(chunk, dict):
                            chunks.append(chunk)
                            if not asked_usage and chunk.get("usage") and not chunk.get("choices"):
                                skip_blank = True  # the usage chunk the proxy asked for: not the client's
                                continue
                    yield (line + "\n").encode()
            finally:
                await up.aclose()
            recorder.record(body, assemble_stream(chunks))

        return StreamingResponse(relay(), status_code=200, media_type=up.headers.get("content-type"))


def _error(status: int, message: str) -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": "planprobe_proxy_error"}}, status_code=status)


class TeeRecorder:
    """Several recorders for one request (the JSONL record and the OTLP/JSON spans)."""

    def __init__(self, recorders: list[Recorder]):
        self.recorders = recorders

    def before_call(self) -> str | None:
        return next((r for r in (rec.before_call() for rec in self.recorders) if r is not None), None)

    def record(self, request: dict[str, Any], reply: dict[str, Any]) -> None:
        for rec in self.recorders:
            rec.record(request, reply)

    def failed(self, cause: str) -> None:
        for rec in self.recorders:
            rec.failed(cause)


class JsonlRecorder:
    """Standalone ``planprobe proxy``: one JSON line per model call, tagged with the case id
    from the path (``/case/ID/v1``) — never a header, so no key is written."""

    def __init__(self, path: str, key: str, tally: dict[str, int] | None = None):
        self.path = path
        self.key = key
        self.tally = tally if tally is not None else {}  # "calls" and "failures" written, for the stop message

    def before_call(self) -> str | None:
        return None

    def record(self, request: dict[str, Any], reply: dict[str, Any]) -> None:
        choice = (reply.get("choices") or [{}])[0]
        line = {"case_id": self.key or None, "model": request.get("model"), "messages": request.get("messages"),
                "reply": choice.get("message"), "finish_reason": choice.get("finish_reason"),
                "usage": reply.get("usage")}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(line, sort_keys=True) + "\n")
        self.tally["calls"] = self.tally.get("calls", 0) + 1

    def failed(self, cause: str) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"case_id": self.key or None, "error": cause}, sort_keys=True) + "\n")
        self.tally["failures"] = self.tally.get("failures", 0) + 1
