"""The model interface: ``chat(messages, tools, params) -> ChatResult``.

Every backend (OpenAI-compatible HTTP, the embedded local model, the
record/replay cache) speaks OpenAI's chat shape: messages with roles, tool
schemas in the function-calling form, and an assistant message back that has
either text or tool calls. Agents only ever see this interface.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from ..schema import Message, ToolSpec, Usage


@dataclass(frozen=True)
class ChatParams:
    temperature: float = 0.0
    seed: int | None = None
    max_tokens: int = 512
    tool_choice: str = "auto"  # "auto" | "required" | "none"
    stop: tuple[str, ...] = ()
    sample: int = 0  # which repeated trial this call serves; part of the cache key only
    response_format: str | None = None  # "json_object": ask for JSON mode (APB's setting)
    # which extra independent draw of that trial this call serves (Best-of-N restart k of
    # ``debug --detector none``; 0: the trial itself); part of the cache key only. Apart from
    # ``sample``, which every agent sets to the trial, so restart k of trial t never shares a
    # reply with trial t + k or with restart k of another trial.
    draw: int = 0

    def key(self) -> dict[str, Any]:
        key = asdict(self)
        for name, unset in (("response_format", None), ("draw", 0)):
            if key[name] == unset:  # keys recorded before the field existed stay valid
                del key[name]
        return key


@dataclass
class ChatResult:
    message: Message  # role "assistant": content and/or tool_calls (OpenAI shape)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    cached: bool = False


class Model(Protocol):
    @property
    def name(self) -> str: ...  # read-only: a plain attribute or a property both qualify

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult: ...

    async def aclose(self) -> None: ...


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """A tool call in OpenAI's message shape (arguments as the raw text)."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def message_json(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.wire() for m in messages]


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Prices:
    """USD per million tokens; cost is recorded only when prices are given."""

    prompt: float = 0.0
    completion: float = 0.0

    def cost(self, usage: Usage) -> float:
        return (usage.prompt_tokens * self.prompt + usage.completion_tokens * self.completion) / 1e6
