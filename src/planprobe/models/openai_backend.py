"""Any OpenAI-compatible chat endpoint, through the official async ``openai`` client.

One backend for OpenAI, vLLM, Ollama, llama.cpp's server, LiteLLM proxies and
others. The API key is read from an environment variable at call time and
never written anywhere (not to traces, caches or run metadata). The client's
own retries are off: planprobe's ``with_retries`` handles them with a bounded
budget and keeps service failures apart from planning failures.

Two server quirks can be switched on: ``tool_result_role="user"`` sends tool
results as user messages, for servers whose chat format drops ``role: tool``
content (llama.cpp's ``chatml-function-calling``); assistant messages with
tool calls always carry ``content: ""`` (some servers reject null).
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional

from ..environment import INFRA_PENDING, current_trace
from ..errors import InfrastructureError, PlanprobeError
from ..schema import Message, ToolSpec, TraceError, Usage
from .base import ChatParams, ChatResult, Prices, tool_call
from .retry import RetryPolicy, Retryable, parse_retry_after, with_retries

RETRYABLE_STATUS = {408, 409, 425, 429}
CLIENT_POOLS = 8


class OpenAIModel:
    def __init__(
        self,
        model: str,
        base_url: Optional[str] = None,
        api_key_env: str = "OPENAI_API_KEY",
        request_timeout: float = 60.0,
        retry: RetryPolicy = RetryPolicy(),
        prices: Optional[Prices] = None,
        tool_result_role: str = "tool",
    ):
        import openai  # imported here so the rest of planprobe loads without it

        self._openai = openai
        self.name = f"openai:{model}"
        self.model = model
        self.base_url = base_url
        key = os.environ.get(api_key_env)
        if not key and base_url is None:
            raise PlanprobeError(
                f"no API key: set the environment variable {api_key_env} (or pass --base-url for a local server)"
            )
        # several clients, used in turn: httpcore's pool scans all of its connections on every
        # request, so one pool serving 64 concurrent calls costs more than 8 pools serving 8
        self.clients = [
            openai.AsyncOpenAI(api_key=key or "not-needed", base_url=base_url, timeout=request_timeout, max_retries=0)
            for _ in range(CLIENT_POOLS)
        ]
        self._next = 0
        self.retry = retry
        self.prices = prices
        self.tool_result_role = tool_result_role

    async def aclose(self) -> None:
        for client in self.clients:
            await client.close()

    def request_messages(self, messages: list[Message]) -> list[dict[str, Any]]:
        out = []
        names = {}
        for m in messages:
            d = m.model_dump(exclude_none=True)
            if m.role == "assistant" and m.tool_calls:
                d["content"] = m.content or ""
                for tc in m.tool_calls:
                    names[tc.get("id")] = tc.get("function", {}).get("name", "")
            if m.role == "tool" and self.tool_result_role == "user":
                d = {"role": "user", "content": f"Result of {names.get(m.tool_call_id, m.name or 'the tool')}: {m.content}"}
            out.append(d)
        return out

    async def chat(self, messages: list[Message], tools: Optional[list[ToolSpec]], params: ChatParams) -> ChatResult:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": self.request_messages(messages),
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
        }
        if params.seed is not None:
            request["seed"] = params.seed
        if params.stop:
            request["stop"] = list(params.stop)
        if tools:
            request["tools"] = [t.to_openai() for t in tools]
            request["tool_choice"] = params.tool_choice
        result = await with_retries(lambda: self._once(request), self.retry, on_retry=_log_retry)
        _clear_pending()
        return result

    async def _once(self, request: dict[str, Any]) -> ChatResult:
        oa = self._openai
        try:
            # client.post sends the body as is: create() would first walk every message and
            # tool schema to "transform" it, which costs more than the rest of the call
            self._next = (self._next + 1) % len(self.clients)
            text = await self.clients[self._next].post("/chat/completions", body=request, cast_to=str)
        except oa.APIStatusError as exc:
            status = exc.status_code
            if status in RETRYABLE_STATUS or status >= 500:
                raise Retryable(f"HTTP {status}", parse_retry_after(exc.response.headers.get("retry-after"))) from None
            raise InfrastructureError(f"HTTP {status} from the model service: {_short(exc)}") from None
        except (oa.APITimeoutError, oa.APIConnectionError) as exc:
            raise Retryable(type(exc).__name__) from None
        try:
            data = json.loads(text)
            choice = data["choices"][0]
            msg = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise Retryable(f"unreadable response ({type(exc).__name__})") from None
        calls = None
        if msg.get("tool_calls"):
            calls = [tool_call(tc.get("id") or f"call_{i}", tc["function"]["name"], tc["function"].get("arguments") or "")
                     for i, tc in enumerate(msg["tool_calls"])]
        usage = Usage(model_calls=1)
        u = data.get("usage") or {}
        usage.prompt_tokens = u.get("prompt_tokens") or 0
        usage.completion_tokens = u.get("completion_tokens") or 0
        if self.prices is not None:
            usage.cost_usd = self.prices.cost(usage)
        return ChatResult(
            message=Message(role="assistant", content=msg.get("content"), tool_calls=calls),
            usage=usage, finish_reason=choice.get("finish_reason"),
        )


def _short(exc: Exception) -> str:
    return str(exc).replace("\n", " ")[:300]


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
