"""Any OpenAI-compatible chat endpoint.

Requests go through planprobe's own small HTTP/1.1 client (``http.py``: the SDK's import and
per-call cost were most of the harness's, issue #30), or through the official async ``openai``
client where that client is needed (a proxy, credentials in the URL). One backend for OpenAI, vLLM, Ollama, llama.cpp's server, LiteLLM proxies and
others. The API key is read from an environment variable at call time and
never written anywhere (not to traces, caches or run metadata); a server that
echoes it back is redacted (``redact.py``). The client's own retries are off:
planprobe's ``with_retries`` handles them with a bounded budget and keeps
service failures apart from planning failures.

How a failed call ends (docs/models.md, "Failures"):

* ``ServiceUnusableError`` — the run stops at once: HTTP 401/403/404/405, or
  nothing listening at the base URL (no host, connection refused) before the
  endpoint has given one valid reply — later, a refused connection is an outage,
  retried like any other.
* ``ContextLimitError`` — the server says the conversation exceeds its context
  window (the episode ends as ``context_limit``, as with the embedded model).
* ``InfrastructureError`` — any other failure, after retries: the case is
  recorded as ``infra`` and re-run on resume.

Each request has a deadline for the whole reply (``request_timeout``), not only
between reads, so a server that drips a byte a second is cut off and retried.
Replies are checked field by field (``reply.py``); a malformed one is retried
like a dropped connection.

Two server quirks can be switched on: ``tool_result_role="user"`` sends tool
results as user messages, for servers whose chat format drops ``role: tool``
content (llama.cpp's ``chatml-function-calling``); assistant messages with
tool calls always carry ``content: ""`` (some servers reject null).
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
from typing import Any
from urllib.parse import urlsplit

from ..environment import INFRA_PENDING, current_trace, within
from ..errors import (
    ContextLimitError,
    InfrastructureError,
    PlanprobeError,
    ServiceUnusableError,
)
from ..schema import Message, ToolSpec, TraceError
from . import ratelimit
from .base import ChatParams, ChatResult, Prices
from .http import (
    DEFAULT_BASE_URL,
    Pool,
    StatusError,
    TransportError,
    TransportTimeout,
    needs_sdk,
)
from .redact import public_url, redact, register_secret
from .reply import parse_chat_reply
from .retry import Retryable, RetryPolicy, parse_retry_after, with_retries

RETRYABLE_STATUS = {408, 409, 425, 429}
FATAL_STATUS = {401: "check the API key", 403: "check the API key and its permissions",
                404: "check --base-url and the model name", 405: "check --base-url"}
CONTEXT_OVERFLOW = re.compile(r"context[_ ]length|context window|maximum context|context size|exceed_context|"
                              r"too many tokens|prompt is too long", re.IGNORECASE)
_RELEASED: Any = object()  # OpenAIModel._loop after release(): no loop owns its connections (they are closed)


def check_base_url(base_url: str | None) -> str | None:
    """An http(s) URL with a host and a valid port, or a one-line error naming it."""
    if base_url is None:
        return None
    try:
        parts = urlsplit(base_url)
        port = parts.port
    except ValueError as exc:
        raise PlanprobeError(f"--base-url {public_url(base_url)!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PlanprobeError(f"--base-url {public_url(base_url)!r} is not an http(s) URL with a host, "
                             "e.g. http://127.0.0.1:8000/v1")
    del port
    return base_url


def add_optional_fields(request: dict[str, Any], tools: list[ToolSpec] | None, params: ChatParams) -> None:
    """The chat-completions fields sent only when set (seed, stop, response format, tools): shared by
    every backend that speaks this request format, so they cannot drift apart."""
    if params.seed is not None:
        request["seed"] = params.seed
    if params.stop:
        request["stop"] = list(params.stop)
    if params.response_format:
        request["response_format"] = {"type": params.response_format}
    if tools:
        request["tools"] = [t.to_openai() for t in tools]
        request["tool_choice"] = params.tool_choice


class OpenAIModel:
    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        request_timeout: float = 60.0,
        retry: RetryPolicy = RetryPolicy(),
        prices: Prices | None = None,
        tool_result_role: str = "tool",
    ):
        self.name = f"openai:{model}"
        self.model = model
        self.base_url = check_base_url(base_url)
        key = os.environ.get(api_key_env)
        if not key and base_url is None:
            raise PlanprobeError(
                f"no API key: set the environment variable {api_key_env} (or pass --base-url for a local server)"
            )
        register_secret(key)
        self.api_key_env = api_key_env
        self.request_timeout = request_timeout
        self._key = key or "not-needed"  # kept to remake the transport on another event loop (never written)
        # as the SDK does: OPENAI_BASE_URL when no --base-url is given
        self._target = (self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self._use_sdk = needs_sdk(self._target)
        self.transport = self._make_transport()
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the transport's connections belong to
        self.url = public_url(self._target).rstrip("/")  # as shown: no credentials, no query
        self.endpoint = self.url + "/chat/completions"
        self._answered = False  # a valid reply came back: from now on, failures are per case
        self.retry = retry
        self.prices = prices
        self.tool_result_role = tool_result_role

    def identity(self) -> dict[str, str]:
        """What decides the answers besides the request: part of the cache key."""
        return {"backend": "openai", "endpoint": self.url, "model": self.model,
                "tool_result_role": self.tool_result_role}

    def _make_transport(self) -> Any:
        if self._use_sdk:
            return _SdkTransport(self._target, self._key, self.request_timeout)
        url = urlsplit(self._target)
        return Pool(url._replace(path=url.path.rstrip("/") + "/chat/completions").geturl(), self._key,
                    connect_timeout=self.request_timeout)

    def _bind_loop(self) -> None:
        """Connections belong to the event loop they were opened on. A command that runs several
        event loops one after another with one model (a sweep's points, dissect's cases) gets a
        fresh transport on each new loop; that of a finished loop is dropped, not reused."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None:
                self.transport = self._make_transport()
            self._loop = loop

    async def release(self) -> None:
        """Close the connections opened in the running event loop, keeping the model: its next call
        (in a later loop) opens fresh ones. For code that runs one model over many loops one after
        another (a study's runs, detectors and re-rollouts): connections left open are closed by the
        garbage collector from a later loop, where closing them fails ("Event loop is closed")."""
        if self._loop is None or self._loop is not asyncio.get_running_loop():
            return  # nothing opened in this loop
        await self.transport.close()
        self._loop = _RELEASED  # not a loop: the next call makes a new transport

    async def aclose(self) -> None:
        if self._loop is _RELEASED:
            return  # closed by release()
        if self._loop is not None and self._loop is not asyncio.get_running_loop() and self._loop.is_closed():
            return  # its connections went with their loop; they cannot be closed from this one
        await self.transport.close()

    def request_messages(self, messages: list[Message]) -> list[dict[str, Any]]:
        out = []
        names = {}
        for m in messages:
            d = m.wire()
            if m.role == "assistant" and m.tool_calls:
                d["content"] = m.content or ""
                for tc in m.tool_calls:
                    names[tc.get("id")] = tc.get("function", {}).get("name", "")
            if m.role == "tool" and self.tool_result_role == "user":
                d = {"role": "user", "content": f"Result of {names.get(m.tool_call_id, m.name or 'the tool')}: {m.content}"}
            if "parts" in d:
                d["content"] = [{"type": "text", "text": m.content or ""}, *d.pop("parts")]
            out.append(d)
        return out

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": self.request_messages(messages),
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
        }
        add_optional_fields(request, tools, params)
        result = await with_retries(lambda: self._once(request), self.retry, on_retry=_log_retry)
        _clear_pending()  # only on success: a time limit hit mid-retry must still see the trouble
        return result

    async def _once(self, request: dict[str, Any]) -> ChatResult:
        self._bind_loop()
        limiter = ratelimit.current()  # requests/tokens per minute shared by every worker of the run
        if limiter is not None:
            await limiter.acquire(self.url)
        try:
            text = await within(self.transport.post_json(request), self.request_timeout)  # the whole reply
        except (asyncio.TimeoutError, TransportTimeout):
            raise Retryable(f"no complete reply from {self.endpoint} within {self.request_timeout:g} s "
                            "(--request-timeout)") from None
        except StatusError as exc:
            raise self._status_error(exc) from None
        except TransportError as exc:
            if exc.connecting and not self._answered:
                raise ServiceUnusableError(f"cannot reach the model service at {self.url}: {redact(exc.reason)}; "
                                           "is the server running, and is --base-url right?") from None
            raise Retryable(f"{redact(exc.reason)} ({self.url})") from None
        message, usage, finish = parse_chat_reply(text, self.endpoint)
        if limiter is not None:
            limiter.record(self.url, usage.prompt_tokens + usage.completion_tokens)
        self._answered = True
        if self.prices is not None:
            usage.cost_usd = self.prices.cost(usage)
        return ChatResult(message=message, usage=usage, finish_reason=finish)

    def _status_error(self, exc: StatusError) -> Exception:
        status = exc.status
        body = redact(" ".join(exc.text.split())[:300])
        cause = f"HTTP {status} from {self.endpoint}" + (f": {body}" if body else "")
        if status in FATAL_STATUS:
            hint = FATAL_STATUS[status] + (f" in ${self.api_key_env}" if status in (401, 403) else "")
            return ServiceUnusableError(f"{cause} — {hint}")
        if status in (400, 413, 422) and CONTEXT_OVERFLOW.search(body):
            return ContextLimitError(f"the conversation exceeds the model's context window ({cause})")
        if status in RETRYABLE_STATUS or status >= 500:
            wait = parse_retry_after(exc.headers.get("retry-after"))
            limiter = ratelimit.current()
            if wait is not None and limiter is not None:  # every worker of the run holds off, not only this one
                limiter.pause(self.url, wait)
            return Retryable(cause, wait)
        return InfrastructureError(cause)


class _SdkTransport:
    """The official ``openai`` client as the transport (proxies, URL credentials): its failures
    turned into ``http.py``'s, so the backend maps one set of errors."""

    def __init__(self, base_url: str, key: str, timeout: float):
        import openai  # only here: its import alone costs ~0.6 s

        self._openai = openai
        self.client = openai.AsyncOpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)

    async def post_json(self, body: dict[str, Any]) -> str:
        oa = self._openai
        try:
            # client.post sends the body as is: create() would first walk every message and
            # tool schema to "transform" it, which costs more than the rest of the call
            return str(await self.client.post("/chat/completions", body=body, cast_to=str))
        except oa.APIStatusError as exc:
            raise StatusError(exc.status_code, _body(exc), {k.lower(): v for k, v in exc.response.headers.items()}) \
                from None
        except oa.APITimeoutError:
            raise TransportTimeout() from None
        except oa.APIConnectionError as exc:
            raise TransportError(*_connection_failure(exc)) from None

    async def close(self) -> None:
        await self.client.close()


def _body(exc) -> str:
    """The error's text as the server sent it."""
    try:
        return str(exc.response.text)
    except Exception:  # noqa: BLE001  (a body that cannot be read is no reason to fail differently)
        return str(exc)


def _connection_failure(exc: BaseException) -> tuple[str, bool]:
    """(a short reason, whether no connection was made at all) for a transport error."""
    seen, chain = set(), []
    node: BaseException | None = exc
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        chain.append(node)
        node = node.__cause__ or node.__context__
    names = {type(e).__name__ for e in chain}
    for e in chain:
        if isinstance(e, ConnectionRefusedError):
            return "connection refused", True
        if isinstance(e, socket.gaierror):
            return f"host name not found ({e.strerror or e})", True
    if "ConnectTimeout" in names:
        return "connection timed out", True
    if "ConnectError" in names:
        detail = next((str(e) for e in reversed(chain) if str(e)), "")
        return f"cannot connect ({redact(detail)[:200]})", True
    detail = next((str(e) for e in reversed(chain) if str(e) and str(e) != "Connection error."), "")
    return f"connection dropped ({redact(detail)[:200] or type(chain[-1]).__name__})", False


def _log_retry(attempt: int, exc: Retryable, delay: float) -> None:
    """Note each retry in the running episode's trace, so timeouts during service trouble
    can be told apart from an agent that was simply too slow."""
    trace = current_trace.get()
    if trace is not None:
        trace.errors.append(TraceError(kind="infra_retry", message=f"attempt {attempt}: {exc}; retrying in {delay:.2f} s"))
        trace.meta[INFRA_PENDING] = trace.meta.get(INFRA_PENDING, 0) + 1


def _clear_pending() -> None:
    trace = current_trace.get()
    if trace is not None:
        trace.meta.pop(INFRA_PENDING, None)

