"""LangChain's side of an episode: the case's tools as LangChain tools, planprobe's model as a
LangChain chat model, and the conversion of messages both ways (the ``langgraph`` extra).

Tool calls are executed in planprobe's environment in the order the model asked for them, at
the moment its reply arrives (``EpisodeBridge.on_reply``), exactly as the ``tools`` agent
does; the LangChain tool the graph then runs hands back the result already recorded. So the
trace does not depend on how a graph schedules its tool calls (LangGraph's ``ToolNode`` runs
them concurrently) and every call the model made is judged, even one the graph drops.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ..environment import Environment
from ..errors import PlanprobeError
from ..lenient_json import loads
from ..models.base import ChatParams, Model, tool_call
from ..schema import Message, ToolSpec, Usage

MISSING = "--agent langgraph: needs the langgraph extra: pip install 'planprobe[langgraph]'"

try:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from langchain_core.outputs import ChatGeneration, ChatResult, LLMResult
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError:  # pragma: no cover - checked by the agent's factory with a one-line message
    raise PlanprobeError(MISSING) from None


def _text(content: Any) -> str:
    """LangChain content (a string or a list of blocks) as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content if isinstance(b, (str, dict)))
    return "" if content is None else str(content)


def raw_tool_calls(ai: AIMessage) -> list[dict[str, Any]]:
    """The model's tool calls in OpenAI's shape, in its order, arguments as the raw text when
    the reply kept it (planprobe's model and ChatOpenAI both do), else re-serialised."""
    raw = ai.additional_kwargs.get("tool_calls")
    if isinstance(raw, list) and raw and all(isinstance(tc, dict) and isinstance(tc.get("function"), dict)
                                             for tc in raw):
        return [tool_call(str(tc.get("id") or f"call_{i}"), str(tc["function"].get("name") or ""),
                          tc["function"].get("arguments") if isinstance(tc["function"].get("arguments"), str)
                          else json.dumps(tc["function"].get("arguments") or {}))
                for i, tc in enumerate(raw)]
    calls = [tool_call(str(tc.get("id") or f"call_{i}"), tc["name"], json.dumps(tc.get("args") or {}, sort_keys=True))
             for i, tc in enumerate(ai.tool_calls)]
    calls += [tool_call(str(tc.get("id") or f"bad_{i}"), str(tc.get("name") or ""), str(tc.get("args") or ""))
              for i, tc in enumerate(ai.invalid_tool_calls)]
    return calls


def to_planprobe(message: BaseMessage) -> Message:
    """One LangChain message as planprobe's (OpenAI's) shape."""
    if isinstance(message, SystemMessage):
        return Message(role="system", content=_text(message.content))
    if isinstance(message, HumanMessage):
        return Message(role="user", content=_text(message.content))
    if isinstance(message, AIMessage):
        return Message(role="assistant", content=_text(message.content) or None,
                       tool_calls=raw_tool_calls(message) or None)
    if isinstance(message, ToolMessage):
        return Message(role="tool", tool_call_id=message.tool_call_id, name=message.name,
                       content=_text(message.content))
    return Message(role="user", content=_text(message.content))


def to_langchain(message: Message) -> BaseMessage:
    if message.role == "system":
        return SystemMessage(content=message.content or "")
    if message.role == "user":
        return HumanMessage(content=message.content or "")
    return AIMessage(content=message.content or "")


def ai_message(reply: Message, usage: Usage) -> AIMessage:
    """planprobe's reply as LangChain's AIMessage: well-formed calls in ``tool_calls``, the rest
    in ``invalid_tool_calls``, the raw calls and planprobe's usage kept alongside."""
    calls, invalid = [], []
    for tc in reply.tool_calls or []:
        fn = tc.get("function", {})
        try:
            args = loads(fn.get("arguments") or "{}")
        except ValueError:
            args = None
        if isinstance(args, dict):
            calls.append({"name": fn.get("name", ""), "args": args, "id": tc.get("id"), "type": "tool_call"})
        else:
            invalid.append({"name": fn.get("name", ""), "args": fn.get("arguments"), "id": tc.get("id"),
                            "error": "the arguments are not a JSON object", "type": "invalid_tool_call"})
    return AIMessage(content=reply.content or "", tool_calls=calls, invalid_tool_calls=invalid,
                     additional_kwargs={"tool_calls": reply.tool_calls} if reply.tool_calls else {},
                     response_metadata={"planprobe_usage": usage.model_dump()},
                     usage_metadata={"input_tokens": usage.prompt_tokens, "output_tokens": usage.completion_tokens,
                                     "total_tokens": usage.prompt_tokens + usage.completion_tokens})


def usage_of(ai: AIMessage) -> Usage:
    """The usage of one model reply: planprobe's own when the chat model is planprobe's, else
    LangChain's ``usage_metadata`` (ChatOpenAI and most chat models fill it)."""
    mine = ai.response_metadata.get("planprobe_usage")
    if isinstance(mine, dict):
        return Usage.model_validate(mine)
    meta: dict[str, Any] = dict(ai.usage_metadata or {})
    return Usage(model_calls=1, prompt_tokens=int(meta.get("input_tokens") or 0),
                 completion_tokens=int(meta.get("output_tokens") or 0))


def _spec(tool: dict[str, Any]) -> ToolSpec:
    fn = tool.get("function", tool)
    return ToolSpec(name=fn["name"], description=fn.get("description") or "",
                    parameters=fn.get("parameters") or {"type": "object", "properties": {}})


class PlanprobeChatModel(BaseChatModel):
    """planprobe's model (``--model``: any backend, with its cache, retries and failure classes)
    as a LangChain chat model; ``bind_tools`` works as with ChatOpenAI."""

    backend: Any
    params: Any = ChatParams()

    @property
    def _llm_type(self) -> str:
        return "planprobe"

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        if tool_choice in ("auto", "required", "none"):
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        from dataclasses import replace

        params: ChatParams = self.params
        if kwargs.get("tool_choice") in ("auto", "required", "none"):
            params = replace(params, tool_choice=kwargs["tool_choice"])
        if stop:
            params = replace(params, stop=tuple(stop))
        tools = [_spec(t) for t in kwargs.get("tools") or []] or None
        backend: Model = self.backend
        result = await backend.chat([to_planprobe(m) for m in messages], tools, params)
        return ChatResult(generations=[ChatGeneration(message=ai_message(result.message, result.usage))])

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return asyncio.run(self._agenerate(messages, stop, None, **kwargs))


class EpisodeBridge:
    """One episode's link between the graph and planprobe's environment."""

    def __init__(self, env: Environment):
        self.env = env
        self.results: dict[str, str] = {}  # tool_call_id -> the result already recorded
        self.by_call: dict[tuple[str, str], list[str]] = {}  # (name, canonical args) -> ids waiting, in order
        self.run_ids: dict[Any, str] = {}  # LangChain tool run id -> tool_call_id

    def on_reply(self, ai: AIMessage) -> None:
        """A model reply: logged, its usage counted, its tool calls executed in order."""
        env = self.env
        env.add_usage(usage_of(ai))
        reply = to_planprobe(ai)
        env.log(reply)
        for tc in reply.tool_calls or []:
            fn = tc.get("function", {})
            name, arguments = fn.get("name", ""), fn.get("arguments", "")
            call_id = str(tc.get("id") or f"call_{len(self.results)}")
            output = env.call(name, arguments, call_id=call_id)
            env.log(Message(role="tool", tool_call_id=call_id, name=name, content=output))
            self.results[call_id] = output
            self.by_call.setdefault((name, _canonical(arguments)), []).append(call_id)

    def result_for(self, run_id: Any, name: str, args: dict[str, Any]) -> str:
        """What a LangChain tool returns: the result of the model's call it serves (by the call's
        id, else by name and arguments); a call no model reply made is executed now."""
        call_id = self.run_ids.pop(run_id, None)
        if call_id is None or call_id not in self.results:
            waiting = self.by_call.get((name, _canonical(args)))
            call_id = waiting[0] if waiting else None
        if call_id is not None and call_id in self.results:
            for ids in self.by_call.values():
                if call_id in ids:
                    ids.remove(call_id)
            return self.results.pop(call_id)
        output = self.env.call(name, args)
        self.env.log(Message(role="tool", name=name, content=output))
        return output


def _canonical(arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = loads(arguments)
        except ValueError:
            return arguments
    return json.dumps(arguments, sort_keys=True)


class CaseTool(BaseTool):
    """One of the case's tools, as LangChain sees it (the case's JSON schema as is)."""

    bridge: Any = None

    def _run(self, run_manager: Any = None, **kwargs: Any) -> str:
        return self.bridge.result_for(getattr(run_manager, "run_id", None), self.name, kwargs)

    async def _arun(self, run_manager: Any = None, **kwargs: Any) -> str:
        return self._run(run_manager=run_manager, **kwargs)


def case_tools(env: Environment, bridge: EpisodeBridge) -> list[BaseTool]:
    return [CaseTool(name=t.name, description=t.description, args_schema=t.parameters, bridge=bridge)
            for t in env.tools]


class TraceHandler(BaseCallbackHandler):
    """Callbacks that put the graph's model calls into the trace: one iteration per call (so
    ``--max-iterations`` holds), then the reply, its usage and its tool calls."""

    raise_error = True  # the iteration limit must end the episode, not be logged and ignored
    run_inline = True  # in the event loop's thread, in order: the environment is not thread-safe

    def __init__(self, bridge: EpisodeBridge):
        self.bridge = bridge

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.bridge.env.step()

    def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
        self.bridge.env.step()

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations[:1]:
            for gen in generations[:1]:
                message = getattr(gen, "message", None)
                if isinstance(message, AIMessage):
                    self.bridge.on_reply(message)
                else:
                    self.bridge.env.log(Message(role="assistant", content=gen.text))

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: Any = None, **kwargs: Any) -> None:
        call_id = kwargs.get("tool_call_id")
        if call_id is not None:
            self.bridge.run_ids[run_id] = call_id
