"""LangGraph agents as a user would write them, loaded by ``--agent langgraph:lg_agents:<name>``."""

from __future__ import annotations

import os
import warnings


def react(tools, model):
    """LangGraph's prebuilt ReAct agent over the chat model planprobe gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in favour of langchain.agents.create_agent (not installed)
        from langgraph.prebuilt import create_react_agent

    return create_react_agent(model, tools)


def react_chat_openai(tools, model, params):
    """The same agent on the user's own ChatOpenAI (the server is named by the environment):
    planprobe's chat model is ignored, the trace still gets every call through callbacks."""
    from langchain_openai import ChatOpenAI

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    chat = ChatOpenAI(model=os.environ["LG_TEST_MODEL"], base_url=os.environ["LG_TEST_BASE_URL"], api_key="none",
                      temperature=params.temperature, max_tokens=params.max_tokens, seed=params.seed,
                      max_retries=0, timeout=100000)
    return create_react_agent(chat, tools)


NOT_CALLABLE = 42


class _Answers:
    """A runnable that makes no model call and answers at once (a graph with its own logic)."""

    def __init__(self, text):
        self.text = text

    async def ainvoke(self, state, config=None):
        from langchain_core.messages import AIMessage

        return {"messages": [*state["messages"], AIMessage(content=self.text)]}


def without_model(tools, model):
    """A factory that needs no planprobe model: run without --model, it gets None."""
    return _Answers(f"model is {model!r}; {len(tools)} tools")
