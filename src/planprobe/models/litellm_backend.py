"""``--model litellm:<provider/model>``: any of LiteLLM's providers behind planprobe's model
interface (the ``litellm`` extra).

LiteLLM answers in OpenAI's chat shape, so its reply is read by the same field-by-field
reader as the OpenAI backend (``reply.py``) and failures are sorted the same way:
connection trouble, timeouts, 429 and 5xx are retried by planprobe's bounded
``with_retries`` (LiteLLM's own retries are off) and end as ``InfrastructureError`` for
the case; an unknown model or a refused key stops the run (``ServiceUnusableError``); a
conversation over the context window ends the episode as ``context_limit``. The API key
is read from ``--api-key-env`` when that variable is set (otherwise LiteLLM reads the
provider's usual variable) and is never written anywhere. ``--base-url`` is LiteLLM's
``api_base``. Cost: ``--price`` when given, else LiteLLM's own price table when it knows
the model.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from ..errors import (
    ContextLimitError,
    InfrastructureError,
    PlanprobeError,
    ServiceUnusableError,
)
from ..schema import Message, ToolSpec
from .base import ChatParams, ChatResult, Prices
from .openai_backend import (
    _clear_pending,
    _log_retry,
    add_optional_fields,
    check_base_url,
)
from .redact import public_url, redact, register_secret
from .reply import parse_chat_reply
from .retry import Retryable, RetryPolicy, with_retries

MISSING = "--model litellm: needs the litellm extra: pip install 'planprobe[litellm]'"


def _import_litellm() -> Any:
    # LiteLLM fetches its price table from the network on import unless told to use its own copy
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise PlanprobeError(MISSING) from None
    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMModel:
    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 request_timeout: float = 60.0, retry: RetryPolicy | None = None, prices: Prices | None = None,
                 tool_result_role: str = "tool"):
        if not model or "/" not in model:
            raise PlanprobeError(f"--model litellm:{model}: expected litellm:<provider>/<model>, "
                                 "e.g. litellm:openai/gpt-4o-mini or litellm:anthropic/claude-3-5-haiku-latest")
        self._litellm = _import_litellm()
        self.name = f"litellm:{model}"
        self.model = model
        self.base_url = check_base_url(base_url)
        self.api_key_env = api_key_env
        register_secret(os.environ.get(api_key_env))
        self.request_timeout = request_timeout
        self.retry = retry or RetryPolicy()
        self.prices = prices
        self.tool_result_role = tool_result_role
        self.source = f"litellm {model}" + (f" at {public_url(base_url)}" if base_url else "")

    def identity(self) -> dict[str, str]:
        """What decides the answers besides the request: part of the cache key."""
        return {"backend": "litellm", "model": self.model, "api_base": public_url(self.base_url or ""),
                "tool_result_role": self.tool_result_role}

    async def aclose(self) -> None:
        return None

    def _request(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> dict[str, Any]:
        from .openai_backend import OpenAIModel

        request: dict[str, Any] = {
            "model": self.model,
            # the same message shaping as the OpenAI backend (content "" with tool calls, tool results as user)
            "messages": OpenAIModel.request_messages(self, messages),  # type: ignore[arg-type]
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "timeout": self.request_timeout,
            "num_retries": 0,
        }
        add_optional_fields(request, tools, params)
        if self.base_url:
            request["api_base"] = self.base_url
        key = os.environ.get(self.api_key_env)
        if key:
            request["api_key"] = key
        elif self.base_url:
            request["api_key"] = "not-needed"  # a local server needs none, LiteLLM's client wants one
        return request

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        request = self._request(messages, tools, params)
        result = await with_retries(lambda: self._once(request), self.retry, on_retry=_log_retry)
        _clear_pending()
        return result

    async def _once(self, request: dict[str, Any]) -> ChatResult:
        ll = self._litellm
        try:
            response = await asyncio.wait_for(ll.acompletion(**request), self.request_timeout)
        except asyncio.TimeoutError:
            raise Retryable(f"no complete reply from {self.source} within {self.request_timeout:g} s "
                            "(--request-timeout)") from None
        except Exception as exc:  # noqa: BLE001  (sorted by LiteLLM's exception classes below)
            raise self._sorted(exc) from None
        message, usage, finish = parse_chat_reply(response.model_dump_json(), self.source)
        if self.prices is not None:
            usage.cost_usd = self.prices.cost(usage)
        else:
            cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
            if isinstance(cost, float) and cost > 0:
                usage.cost_usd = cost
        return ChatResult(message=message, usage=usage, finish_reason=finish)

    def _sorted(self, exc: Exception) -> Exception:
        ll = self._litellm
        text = " ".join(redact(str(exc)).split())[:300]
        cause = f"{type(exc).__name__} from {self.source}: {text}"
        if isinstance(exc, ll.ContextWindowExceededError):
            return ContextLimitError(f"the conversation exceeds the model's context window ({cause})")
        if isinstance(exc, (ll.AuthenticationError, ll.PermissionDeniedError)):
            return ServiceUnusableError(f"{cause} — check the API key in ${self.api_key_env} or the provider's "
                                        "usual variable")
        if isinstance(exc, ll.NotFoundError):
            return ServiceUnusableError(f"{cause} — check the model name and --base-url")
        if isinstance(exc, (ll.APIConnectionError, ll.Timeout, ll.RateLimitError, ll.InternalServerError,
                            ll.ServiceUnavailableError, ll.BadGatewayError)):
            return Retryable(cause)
        return InfrastructureError(cause)
