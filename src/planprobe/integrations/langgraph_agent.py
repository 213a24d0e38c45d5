"""``--agent langgraph:<module or file.py>:<factory>``: your LangGraph (or any LangChain
runnable) agent, unmodified, on planprobe's cases (the ``langgraph`` extra).

For every episode planprobe calls ``factory(tools, model)`` and runs what it returns with
``ainvoke({"messages": [system, user]})``:

* ``tools``: the case's tools as LangChain ``BaseTool`` objects (their JSON schemas as is);
* ``model``: a LangChain chat model bound to ``--model`` (``PlanprobeChatModel``: any backend,
  with planprobe's cache, retries and failure classes; ``bind_tools`` works as usual), or None
  when no ``--model`` is given (a graph that builds its own chat model needs none).

Optional keyword parameters, passed only when the factory declares them by name: ``case``
(the ``Case``), ``system`` (the system prompt planprobe's ``tools`` agent uses) and ``params``
(``ChatParams``). The answer is the content of the last AI message of the returned state.
Model calls, replies, usage and tool calls reach the trace through LangChain callbacks, so a
graph that builds its own chat model (e.g. ``ChatOpenAI``) is traced too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..agents.python_adapter import load_attribute
from ..agents.tools_agent import SYSTEM, _for_trial
from ..environment import Environment, IterationLimitExceeded
from ..errors import InfrastructureError, PlanprobeError
from ..models.base import ChatParams, Model
from ..schema import Case, Message

OPTIONAL_KEYWORDS = ("case", "system", "params")


def load_factory(spec: str) -> Callable[..., Any]:
    """The user's factory for ``--agent langgraph:<spec>``; one line naming the spec when it
    cannot be loaded or is not callable (before any case runs)."""
    try:
        import langchain_core  # noqa: F401
        import langgraph  # noqa: F401
    except ImportError:
        from .langchain_bridge import MISSING

        raise PlanprobeError(MISSING) from None
    factory = load_attribute(spec, "langgraph", "<module or file.py>:<factory>")
    if not callable(factory):
        raise PlanprobeError(f"--agent langgraph:{spec}: {spec.rpartition(':')[2]!r} is a "
                             f"{type(factory).__name__}, not a callable factory(tools, model)")
    return factory


class LangGraphAgent:
    def __init__(self, spec: str, factory: Callable[..., Any], model: Model | None, params: ChatParams):
        self.name = f"langgraph:{spec}"
        self.spec = spec
        self.factory = factory
        self.model = model
        self.params = params
        try:
            names = inspect.signature(factory).parameters
        except (TypeError, ValueError):
            names = {}  # type: ignore[assignment]
        self.declared = [k for k in OPTIONAL_KEYWORDS if k in names]

    async def __call__(self, case: Case, env: Environment) -> str | None:
        from langchain_core.messages import AIMessage
        from langgraph.errors import GraphRecursionError

        from .langchain_bridge import (
            EpisodeBridge,
            PlanprobeChatModel,
            TraceHandler,
            case_tools,
            to_langchain,
        )

        params = env.chat_params(_for_trial(self.params, env))
        bridge = EpisodeBridge(env)
        chat = PlanprobeChatModel(backend=self.model, params=params) if self.model is not None else None
        system = case.system or SYSTEM
        values = {"case": case, "system": system, "params": params}
        graph = self.factory(case_tools(env, bridge), chat, **{k: values[k] for k in self.declared})
        if inspect.isawaitable(graph):
            graph = await graph
        if not callable(getattr(graph, "ainvoke", None)):
            raise TypeError(f"--agent langgraph:{self.spec}: the factory returned {type(graph).__name__}, which "
                            "has no ainvoke (return a compiled graph or a LangChain runnable)")
        first = [Message(role="system", content=system), env.user_message()]
        for m in first:
            env.log(m)
        config = {"callbacks": [TraceHandler(bridge)],
                  # planprobe's --max-iterations ends the episode; the graph's own limit must not come first
                  "recursion_limit": 4 * env.limits.max_iterations + 20}
        try:
            state = await graph.ainvoke({"messages": [to_langchain(m) for m in first]}, config=config)
        except GraphRecursionError as exc:
            raise IterationLimitExceeded(f"the graph's recursion limit: {exc}") from None
        except Exception as exc:  # noqa: BLE001  (re-raised: a service failure as infrastructure, the rest as is)
            raise _service_failure(exc) or exc
        messages = state.get("messages", []) if isinstance(state, dict) else []
        last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        from .langchain_bridge import _text

        answer = _text(last.content) if last is not None else None
        env.finish(answer)
        return answer


def _service_failure(exc: Exception) -> Exception | None:
    """A model service failure raised by a chat model the graph built itself (ChatOpenAI's
    client errors): infrastructure for the case, not a crash of the agent."""
    try:
        import openai
    except ImportError:
        return None
    if isinstance(exc, (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError,
                        openai.InternalServerError)):
        return InfrastructureError(f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    return None


def make_langgraph_agent(spec: str, model: Model | None, params: ChatParams | None) -> LangGraphAgent:
    return LangGraphAgent(spec, load_factory(spec), model, params or ChatParams())


__all__ = ["LangGraphAgent", "load_factory", "make_langgraph_agent", "replace"]
