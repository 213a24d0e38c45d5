"""A conversation recorded elsewhere (an Inspect sample's messages, in OpenAI's shape) played
into a fresh environment of its case, so planprobe's oracle judges it like any episode.

Each assistant message counts as one iteration; its tool calls are executed in order (the
environment is deterministic for a case and trial, so the state the oracle judges is the
state the agent acted on); the messages are logged as recorded, the tool results the agent
saw included. The final answer is the content of the last assistant message without tool
calls.
"""

from __future__ import annotations

from ..environment import Environment
from ..schema import Message, Usage


def replay_into(env: Environment, messages: list[Message], usage: Usage | None = None) -> str | None:
    """Log ``messages`` into ``env``'s trace and execute their tool calls; returns the answer."""
    answer: str | None = None
    for message in messages:
        if message.role == "assistant":
            env.step()
        env.log(message)
        if message.role != "assistant":
            continue
        for tc in message.tool_calls or []:
            fn = tc.get("function", {})
            env.call(str(fn.get("name", "")), fn.get("arguments", ""), call_id=tc.get("id"))
        answer = None if message.tool_calls else message.content
    if usage is not None:
        env.add_usage(usage)
    env.finish(answer)
    return answer
