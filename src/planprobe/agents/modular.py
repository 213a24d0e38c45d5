"""The modular agent (``--agent modular``): memory, reflection, plan and action every step.

It follows AgentDebug's rollout (seed 003, Figs. 17–19): each step the model gets
one prompt rendered afresh — the task, how many steps it has taken, its recent
history (action and observation of each step), the current observation and the
tools — and answers with ``<memory>``, ``<reflection>``, ``<plan>`` and one
``<action>`` (the first step, with no history, asks only for a plan and an
action), or ``<answer>`` when it is done. The prompt and the reply of every step
are logged as one user and one assistant message, so a trace is AgentDebug's
trajectory format as it stands (one assistant message per step).

One deviation (issue #27): the prompt also shows the ``<memory>`` the model wrote at its
previous step, and asks it to keep there what it will still need. AgentDebug's templates
(Figs. 17–19) show only the last steps and never the model's memory back, so a task needing
facts from more than ``HISTORY_LENGTH`` steps ago could not be done from the prompt by any
model; with its memory shown, the memory module can carry them (docs/debugging.md).

It runs on every family: with tools it acts through them; a case without tools
(a text task such as PlanBench's) is answered with ``<answer>``. A reply with
neither a usable action nor an answer is recorded as a call the environment
rejects (a format error) and the next prompt says what was wrong, like the ReAct
agent. The prompt wording is planprobe's; the sections and action syntax are the
paper's.
"""

from __future__ import annotations

import json
from dataclasses import replace

from ..environment import Environment
from ..models.base import ChatParams, Model
from ..schema import Case, Message, ToolSpec
from .modular_format import parse_modular
from .prefix import Prefix
from .react import UNPARSED

HISTORY_LENGTH = 20

FIRST = """You are an expert agent that completes tasks step by step{with_tools}.
Your task is: {task}
{tools_block}Current observation: nothing has been done yet.

Start by thinking about the situation and planning your approach:
<plan>
Plan the next step:
- What should I do first, and why?
- What do I expect this step to achieve?
</plan>
{act_block}"""

LATER = """You are an expert agent that completes tasks step by step{with_tools}.
Your task is: {task}
You have already taken {step_count} step(s).
{memory_block}The most recent {history_length} step(s), each with the action you took and what you observed:
{history}
You are now at step {current_step}. Current observation: {observation}
{tools_block}
First recall what matters from your memory and the history and write it inside <memory> </memory>.
Only this memory and the most recent {window} steps will be shown to you at the next step: keep in it everything you will still need.
<memory>
- The most relevant earlier steps for this step (with step numbers), and what they showed.
</memory>

Then reflect on the last action and its outcome inside <reflection> </reflection>:
<reflection>
- Is the task complete?
- Did the last action succeed, or did it run into a problem?
- Am I making progress? If not, what should change?
</reflection>

Then plan the next step from the memory and the reflection inside <plan> </plan>:
<plan>
- What should I do next, and why?
- What do I expect this step to achieve?
</plan>
{act_block}"""

# inserted into FIRST/LATER as a value, so never formatted itself: braces are written once
ACT_TOOLS = """Finally, either take ONE action, written exactly as
<action>tool: [tool_name] parameters: {"param1": "value1"}</action>
or, when the task is complete, give your final answer inside <answer> </answer>."""
ACT_TEXT = """Finally, give your answer inside <answer> </answer>."""
MEMORY = """Your memory so far (what you last wrote inside <memory> </memory>):
{memory}
"""
GUIDANCE = """
Feedback on your earlier steps (take it into account from now on): {guidance}
"""


def _tools_block(tools: list[ToolSpec]) -> str:
    if not tools:
        return ""
    lines = []
    for t in tools:
        props = t.parameters.get("properties") or {}
        args = json.dumps({k: v.get("type", "value") if isinstance(v, dict) else "value" for k, v in props.items()})
        lines.append(f"- {t.name}: {t.description} Parameters: {args}")
    return "Available tools:\n" + "\n".join(lines) + "\n"


class ModularAgent:
    def __init__(self, model: Model, params: ChatParams = ChatParams(max_tokens=768),
                 history_length: int = HISTORY_LENGTH):
        self.model = model
        self.params = params
        self.history_length = history_length
        self.name = "modular"

    def render(self, case: Case, tools: list[ToolSpec], history: list[tuple[str, str]],
               guidance: str | None = None, memory: str | None = None) -> str:
        """The prompt for the next step; ``history`` holds (action, observation) per step;
        ``guidance`` (a re-rollout's feedback) is shown in every later prompt; ``memory`` is
        what the model wrote inside ``<memory>`` at its previous step (shown when it wrote some)."""
        fields = dict(task=case.task, tools_block=_tools_block(tools),
                      with_tools=" with the tools you are given" if tools else "",
                      act_block=ACT_TOOLS if tools else ACT_TEXT)
        if guidance:
            fields["tools_block"] += GUIDANCE.format(guidance=guidance)
        if not history:
            return FIRST.format(**fields)
        recent = history[-self.history_length:]
        first = len(history) - len(recent) + 1
        lines = [f"Step {first + i}: action: {a}\nObservation: {o}" for i, (a, o) in enumerate(recent)]
        memory_block = MEMORY.format(memory=memory.strip()) if memory and memory.strip() else ""
        return LATER.format(**fields, step_count=len(history), history_length=len(recent), window=self.history_length,
                            memory_block=memory_block,
                            history="\n".join(lines), current_step=len(history) + 1, observation=history[-1][1])

    async def __call__(self, case: Case, env: Environment) -> str | None:
        return await self._loop(case, env, [], None)

    async def resume(self, case: Case, env: Environment, prefix: Prefix) -> str | None:
        """Continue a re-rollout: the history is rebuilt from the replayed calls (each step made
        one), and the guidance, if any, joins every prompt from here on."""
        history = [("(unreadable reply)" if c.name == UNPARSED else f"tool: {c.name} parameters: {c.arguments}",
                    c.result) for c in prefix.tool_calls]
        replies = [m.content or "" for m in prefix.context() if m.role == "assistant"]
        memory = parse_modular(replies[-1]).sections.get("memory") if replies else None
        return await self._loop(case, env, history, prefix.guidance, logged_system=True, memory=memory)

    async def _loop(self, case: Case, env: Environment, history: list[tuple[str, str]], guidance: str | None,
                    logged_system: bool = False, memory: str | None = None) -> str | None:
        trial = env.trace.trial
        params = replace(self.params, sample=trial, seed=None if self.params.seed is None else self.params.seed + trial)
        while True:
            env.step()
            prompt = self.render(case, env.tools, history, guidance, memory)
            messages = ([Message(role="system", content=case.system)] if case.system else []) + \
                [Message(role="user", content=prompt)]
            if case.system and not logged_system:
                logged_system = True
                env.log(messages[0])
            env.log(messages[-1])
            result = await self.model.chat(messages, None, params)
            env.add_usage(result.usage)
            reply = result.message.content or ""
            env.log(Message(role="assistant", content=reply))
            step = parse_modular(reply)
            memory = step.sections.get("memory") or memory  # a reply without one keeps the last
            if step.tool is not None and env.tools:
                observation = env.call(step.tool, step.arguments)
                history.append((f"tool: {step.tool} parameters: {step.arguments}", observation))
                continue
            if step.answer is not None or (step.tool is not None and not env.tools):
                answer = step.answer if step.answer is not None else reply
                env.finish(answer)
                return answer
            observation = env.call(UNPARSED, json.dumps({"reply": reply[:500]}))
            observation += (f" Your reply could not be used ({step.problem}). Take one action as "
                            "<action>tool: [tool_name] parameters: {...}</action> or answer inside <answer></answer>.")
            history.append(("(unreadable reply)", observation))
