"""Inspect AI's chat messages in planprobe's (OpenAI's) shape, for judging and storing
(the ``inspect`` extra). A tool call Inspect could not parse keeps its raw text, so the
environment records it as malformed, as it would for any agent."""

from __future__ import annotations

import json
from typing import Any

from ..models.base import tool_call
from ..schema import Message, Usage


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        text = getattr(part, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return "".join(parts)


def from_inspect(messages: list[Any]) -> list[Message]:
    out = []
    for m in messages:
        role = getattr(m, "role", "user")
        if role == "assistant":
            calls = []
            for i, tc in enumerate(getattr(m, "tool_calls", None) or []):
                raw = (f"<unparsed: {tc.parse_error}>" if tc.parse_error
                       else json.dumps(tc.arguments, sort_keys=True))
                calls.append(tool_call(tc.id or f"call_{i}", tc.function, raw))
            out.append(Message(role="assistant", content=_text(m.content) or None, tool_calls=calls or None))
        elif role == "tool":
            out.append(Message(role="tool", tool_call_id=getattr(m, "tool_call_id", None),
                               name=getattr(m, "function", None), content=_text(m.content)))
        else:
            out.append(Message(role="system" if role == "system" else "user", content=_text(m.content)))
    return out


def usage_of(sample: Any) -> Usage:
    """A sample's token use over every model it called (Inspect counts it per model)."""
    usage = Usage()
    for u in (getattr(sample, "model_usage", None) or {}).values():
        usage.add(Usage(prompt_tokens=int(u.input_tokens or 0), completion_tokens=int(u.output_tokens or 0),
                        cost_usd=getattr(u, "total_cost", None)))
    usage.model_calls = sum(1 for m in sample.messages if getattr(m, "role", "") == "assistant")
    return usage
