"""Reading an OpenAI-shaped chat reply, field by field.

A reply is the service's output, not the agent's: anything that does not fit the
chat-completion shape — cut-short JSON, ``message: null``, content that is not
text, a tool call without a function name, token counts that are not whole
numbers, an ``{"error": ...}`` body with status 200 — raises ``MalformedReply``,
which is retried and, when retries run out, recorded as ``infra``. It never
reaches the agent, so it can never be counted as an ``agent_crash``.
"""

from __future__ import annotations

import json
from typing import Any

from ..lenient_json import loads
from ..schema import Message, Usage
from .base import tool_call
from .redact import redact
from .retry import Retryable


class MalformedReply(Retryable):
    """The reply does not have the chat-completion shape."""


def _fail(source: str, what: str) -> MalformedReply:
    return MalformedReply(f"malformed reply from {source}: {what}")


def _shown(value: Any) -> str:
    return redact(json.dumps(value)[:60])


def _text(value: Any, source: str, field: str) -> str | None:
    """Message content: a string, null, or a list of text parts (joined)."""
    if value is None or isinstance(value, str):
        return None if value is None else redact(value)
    if isinstance(value, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in value):
        return redact("".join(p["text"] for p in value))
    raise _fail(source, f"{field} is {_shown(value)}, not text")


def _count(usage: dict, field: str, source: str) -> int:
    value = usage.get(field)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
        raise _fail(source, f"usage.{field} is {_shown(value)}, not a token count")
    return int(value)


def _tool_calls(value: Any, source: str) -> list[dict[str, Any]] | None:
    if value is None or value == []:
        return None
    if not isinstance(value, list):
        raise _fail(source, f"tool_calls is {_shown(value)}, not a list")
    calls = []
    for i, tc in enumerate(value):
        fn = tc.get("function") if isinstance(tc, dict) else None
        name = fn.get("name") if isinstance(fn, dict) else None
        if not isinstance(fn, dict) or not isinstance(name, str) or not name:
            raise _fail(source, f"tool_calls[{i}] has no function name")
        args = fn.get("arguments")
        if isinstance(args, (dict, list)):
            args = json.dumps(args)  # some servers send the object itself
        elif args is None:
            args = ""
        elif not isinstance(args, str):
            raise _fail(source, f"tool_calls[{i}].function.arguments is {_shown(args)}, not text")
        call_id = tc.get("id")
        calls.append(tool_call(call_id if isinstance(call_id, str) and call_id else f"call_{i}", redact(name),
                               redact(args)))
    return calls


def parse_chat_reply(text: str, source: str) -> tuple[Message, Usage, str | None]:
    """(assistant message, usage, finish reason) from a chat-completion body."""
    try:
        data = loads(text)
    except ValueError:
        raise _fail(source, f"not JSON (cut short? {len(text)} bytes)") from None
    if not isinstance(data, dict):
        raise _fail(source, f"the body is {_shown(data)}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        if data.get("error") is not None:
            raise _fail(source, f"an error in place of a reply: {_shown(data['error'])}")
        raise _fail(source, "no choices")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _fail(source, f"choices[0] is {_shown(choice)}")
    msg = choice.get("message")
    if not isinstance(msg, dict):
        raise _fail(source, f"message is {_shown(msg)}")
    content = _text(msg.get("content"), source, "content")
    calls = _tool_calls(msg.get("tool_calls"), source)
    usage_data = data.get("usage")
    if usage_data is not None and not isinstance(usage_data, dict):
        raise _fail(source, f"usage is {_shown(usage_data)}")
    usage_data = usage_data or {}
    usage = Usage(model_calls=1, prompt_tokens=_count(usage_data, "prompt_tokens", source),
                  completion_tokens=_count(usage_data, "completion_tokens", source))
    finish = choice.get("finish_reason")
    return Message(role="assistant", content=content, tool_calls=calls), usage, \
        finish if isinstance(finish, str) else None
