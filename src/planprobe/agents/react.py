"""The ReAct text agent (Thought / Action / Action Input / Observation).

The model sees the tools only as text and answers in the ReAct format; the
agent parses each reply leniently (case, spacing, code fences, quotes, a JSON
or a bare argument string). A reply it cannot parse is recorded as a call the
environment rejects — an Act Error in the verdict — and the model is told the
format it broke, as LangChain's ``handle_parsing_errors`` does. It never crashes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from ..environment import Environment
from ..models.base import ChatParams, Model
from ..schema import Case, Message, ToolSpec
from .prefix import Prefix

UNPARSED = "(unparsed reply)"

PROMPT = """Answer the following request as best you can. You have access to the following tools:

{tools}

Use the following format:

Thought: think about what to do next
Action: the tool to call, exactly one of [{names}]
Action Input: the tool's arguments as a JSON object, e.g. {{}} or {{"start_time": 9}}
Observation: the result of the tool
... (Thought/Action/Action Input/Observation repeats for each tool call)
Thought: I have completed every task
Final Answer: a short summary

Request:
{task}"""

_FINAL = re.compile(r"final\s*answer\s*[:：]\s*(.*)", re.IGNORECASE | re.DOTALL)
_ACTION = re.compile(r"^[ \t*]*action(?![ \t]*input)[ \t]*[:：][ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)
_INPUT = re.compile(r"action\s*input\s*[:：]\s*(.*)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ReactStep:
    final: str | None = None
    action: str | None = None
    action_input: str | None = None
    problem: str | None = None  # why the reply could not be used


def _clean_name(text: str) -> str:
    name = text.strip().splitlines()[0].strip()
    name = name.strip("`'\" *[]")
    name = re.sub(r"\(.*\)$", "", name).strip()  # "tool()" -> "tool"
    return name


def _clean_input(text: str) -> str:
    text = re.split(r"\n\s*(observation|thought)\s*[:：]", text, flags=re.IGNORECASE)[0].strip()
    fence = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.DOTALL)
    if fence:
        text = fence.group(1).strip()
    if text.lower() in ("", "none", "{}", "n/a", "null"):
        return "{}"
    start, end = text.find("{"), text.rfind("}")
    if start >= 0 and end > start:
        return text[start:end + 1]
    return text


def parse_react(reply: str) -> ReactStep:
    """Read one ReAct reply. An action takes precedence over a final answer given in
    the same reply, since the action is what the agent actually did first."""
    text = (reply or "").strip()
    action = _ACTION.search(text)
    if action:
        name = _clean_name(action.group(1)) if action.group(1).strip() else ""
        found = _INPUT.search(text)
        args = _clean_input(found.group(1)) if found else "{}"
        if not name:
            return ReactStep(problem="an Action line without a tool name")
        return ReactStep(action=name, action_input=args)
    final = _FINAL.search(text)
    if final:
        return ReactStep(final=final.group(1).strip())
    return ReactStep(problem="no 'Action:' line and no 'Final Answer:' line")


def _tool_text(tool: ToolSpec) -> str:
    props = tool.parameters.get("properties", {})
    args = json.dumps({k: v.get("type", "value") for k, v in props.items()}) if props else "{}"
    return f"{tool.name}: {tool.description} Arguments: {args}"


class ReactAgent:
    def __init__(self, model: Model, params: ChatParams = ChatParams()):
        self.model = model
        self.params = replace(params, stop=tuple(params.stop) + ("\nObservation:", "Observation:"))
        self.name = "react"

    async def __call__(self, case: Case, env: Environment) -> str | None:
        prompt = PROMPT.format(tools="\n".join(_tool_text(t) for t in env.tools),
                               names=", ".join(t.name for t in env.tools), task=case.task)
        messages = []
        if case.system:
            messages.append(Message(role="system", content=case.system))
        messages.append(Message(role="user", content=prompt))
        for m in messages:
            env.log(m)
        return await self._loop(messages, env)

    async def resume(self, case: Case, env: Environment, prefix: Prefix) -> str | None:
        """Continue a re-rollout from the prefix's conversation (its replies as the model's
        context holds them: trailing space stripped), guidance included."""
        messages = [m.model_copy(update={"content": (m.content or "").rstrip()}) if m.role == "assistant" else m
                    for m in prefix.context(env.role)]
        return await self._loop(messages, env)

    async def _loop(self, messages: list[Message], env: Environment) -> str | None:
        trial = env.trace.trial
        params = replace(self.params, sample=trial,
                         seed=None if self.params.seed is None else self.params.seed + trial)
        while True:
            env.step()
            result = await self.model.chat(messages, None, params)
            env.add_usage(result.usage)
            reply = result.message.content or ""
            env.log(Message(role="assistant", content=reply))
            step = parse_react(reply)
            if step.final is not None:
                env.finish(step.final)
                return step.final
            if step.problem or step.action is None:  # parse_react gives an action, a final answer or a problem
                observation = env.call(UNPARSED, json.dumps({"reply": reply[:500]}))
                observation += (f" Your reply could not be used ({step.problem}). Reply with two lines, "
                                "'Action: <tool>' and 'Action Input: <JSON object>', or with 'Final Answer: <text>'.")
            else:
                observation = env.call(step.action, step.action_input)
            messages.append(Message(role="assistant", content=reply.rstrip()))
            messages.append(Message(role="user", content=f"Observation: {observation}"))
            env.log(Message(role="user", content=f"Observation: {observation}"))
