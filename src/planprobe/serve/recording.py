"""What the proxy writes into the trace of the case being served: each model call counts
as one iteration (as for the built-in agents), its new messages and reply join the trace's
conversation, its token usage the trace's usage, and its reasoning (if the model gave any)
``trace.meta["proxy_calls"]``. An unreachable upstream ends the case as infrastructure."""

from __future__ import annotations

from typing import Any, Literal

from ..environment import IterationLimitExceeded
from ..errors import InfrastructureError
from ..schema import Message, Usage
from .session import CaseSession


def as_message(raw: Any) -> Message:
    """A chat message as the wire gives it; list contents keep their text (and the parts)."""
    if not isinstance(raw, dict):
        return Message(role="user", content=str(raw))
    roles: dict[Any, Literal["system", "user", "assistant", "tool"]] = {
        "system": "system", "developer": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
    role = roles.get(raw.get("role"), "user")
    content = raw.get("content")
    parts = None
    if isinstance(content, list):
        parts = [p for p in content if isinstance(p, dict)]
        content = "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
    elif content is not None and not isinstance(content, str):
        content = str(content)
    tool_calls = raw.get("tool_calls") if isinstance(raw.get("tool_calls"), list) else None
    return Message(role=role, content=content, tool_calls=tool_calls or None,
                   tool_call_id=raw.get("tool_call_id"), name=raw.get("name"), parts=parts)


def _key(m: Message) -> tuple[Any, ...]:
    """What makes two wire messages the same one (clients re-serialize replies: content None
    or "", extra fields in tool calls)."""
    calls = tuple((c.get("id"), (c.get("function") or {}).get("name"), (c.get("function") or {}).get("arguments"))
                  for c in m.tool_calls or [] if isinstance(c, dict))
    return m.role, m.content or "", calls, m.tool_call_id


def _same(a: Message, b: Message) -> bool:
    return _key(a) == _key(b)


class SessionRecorder:
    def __init__(self, session: CaseSession):
        self.session = session

    def before_call(self) -> str | None:
        if self.session.over:
            return f"case {self.session.case.id} is over"
        try:
            self.session.env.step()
        except IterationLimitExceeded as exc:
            self.session.fail(exc)
            return f"{exc}; case {self.session.case.id} is over"
        return None

    def record(self, request: dict[str, Any], reply: dict[str, Any]) -> None:
        env = self.session.env
        sent = [as_message(m) for m in request.get("messages") or []]
        logged = env.trace.messages
        k = 0
        while k < min(len(sent), len(logged)) and _same(sent[k], logged[k]):
            k += 1
        for new in sent[k if k == len(logged) else 0:]:  # a new conversation is logged whole
            env.log(new)
        choice = (reply.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        env.log(as_message({**message, "role": "assistant"}))
        usage = reply.get("usage") or {}
        env.add_usage(Usage(model_calls=1, prompt_tokens=int(usage.get("prompt_tokens") or 0),
                            completion_tokens=int(usage.get("completion_tokens") or 0)))
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        env.trace.meta.setdefault("proxy_calls", []).append({
            "step": env.trace.iterations, "model": reply.get("model") or request.get("model"),
            "stream": bool(request.get("stream")), "finish_reason": choice.get("finish_reason"),
            "usage": {"prompt_tokens": int(usage.get("prompt_tokens") or 0),
                      "completion_tokens": int(usage.get("completion_tokens") or 0)},
            **({"reasoning": reasoning} if isinstance(reasoning, str) else {}),
        })

    def failed(self, cause: str) -> None:
        self.session.fail(InfrastructureError(cause))
