"""The function-calling agent (OpenAI tools protocol; PDoctor's "OT").

Each iteration sends the conversation and the tool schemas to the model; every
tool call in the reply is executed and its result returned as a ``tool``
message; a reply without tool calls is the final answer.
"""

from __future__ import annotations

from ..environment import Environment
from ..models.base import ChatParams, Model
from ..schema import Case, Message
from .prefix import Prefix

SYSTEM = "You are a helpful assistant that completes tasks by calling the provided tools."


class ToolsAgent:
    def __init__(self, model: Model, params: ChatParams = ChatParams(), system: str | None = SYSTEM):
        self.model = model
        self.params = params
        self.system = system
        self.name = "tools"

    async def __call__(self, case: Case, env: Environment) -> str | None:
        messages: list[Message] = []
        system = case.system or self.system
        if system:
            messages.append(Message(role="system", content=system))
        messages.append(env.user_message())
        for m in messages:
            env.log(m)
        return await self._loop(messages, env)

    async def resume(self, case: Case, env: Environment, prefix: Prefix) -> str | None:
        """Continue a re-rollout: the conversation is the prefix's, guidance included."""
        return await self._loop(prefix.context(env.role), env)

    async def _loop(self, messages: list[Message], env: Environment) -> str | None:
        params = env.chat_params(_for_trial(self.params, env))
        while True:
            env.step()
            result = await self.model.chat(messages, env.tools, params)
            env.add_usage(result.usage)
            reply = result.message
            messages.append(reply)
            env.log(reply)
            if not reply.tool_calls:
                env.finish(reply.content)
                return reply.content
            for tc in reply.tool_calls:
                fn = tc.get("function", {})
                output = env.call(fn.get("name", ""), fn.get("arguments", ""), call_id=tc.get("id"))
                msg = Message(role="tool", tool_call_id=tc.get("id"), name=fn.get("name"), content=output)
                messages.append(msg)
                env.log(msg)


def _for_trial(params: ChatParams, env: Environment) -> ChatParams:
    """Repeated trials are independent samples: the trial number joins the cache key
    and shifts the seed."""
    from dataclasses import replace

    trial = env.trace.trial
    seed = None if params.seed is None else params.seed + trial
    return replace(params, sample=trial, seed=seed)
