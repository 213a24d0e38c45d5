"""A scripted model for re-rollout tests (imported as ``rollout_fakes``): it follows one plan
until the guidance appears in its context, then another, and remembers every request."""

from __future__ import annotations

import random

from planprobe.models.base import ChatResult, tool_call
from planprobe.schema import Case, Message, Usage
from planprobe.suites.base import PlannedCall
from planprobe.suites.registry import get_family

GUIDANCE = "Feedback on your earlier attempt: the step you took here broke the task's rules; redo it correctly."

Plan = list[PlannedCall] | str  # tool calls, or a text answer


class GuidedModel:
    """Makes one call per reply: call i of ``bad`` (or ``good`` once GUIDANCE is in the
    conversation), i being the number of replies already in the conversation; then answers.
    A text plan is answered at once. ``react`` speaks the ReAct format."""

    name = "scripted:guided"

    def __init__(self, bad: Plan, good: Plan, react: bool = False):
        self.bad, self.good, self.react = bad, good, react
        self.requests: list[list[Message]] = []

    async def chat(self, messages, tools, params):
        self.requests.append(list(messages))
        guided = any(m.role == "user" and m.content == GUIDANCE for m in messages)
        plan = self.good if guided else self.bad
        done = sum(1 for m in messages if m.role == "assistant")
        if isinstance(plan, str) or done >= len(plan):
            answer = plan if isinstance(plan, str) else "All tasks are done."
            return self._reply(f"Thought: done\nFinal Answer: {answer}" if self.react else answer, None)
        call = plan[done]
        if self.react:
            return self._reply(f"Thought: next\nAction: {call.name}\nAction Input: {call.arguments}", None)
        return self._reply("", [tool_call(f"call_{done}", call.name, call.arguments)])

    @staticmethod
    def _reply(content: str, calls) -> ChatResult:
        return ChatResult(Message(role="assistant", content=content, tool_calls=calls),
                          Usage(model_calls=1, prompt_tokens=10, completion_tokens=2))

    async def aclose(self) -> None:
        pass


def plans(case: Case) -> tuple[Plan, Plan, str | None]:
    """(a bad plan, the reference plan, the fault used) for a case of any built-in family: the
    first fault that changes the plan (text families: the answer)."""
    family = get_family(case.family)
    rng = random.Random(f"rollout-test/{case.id}")
    good = family.reference_answer(case) if hasattr(family, "reference_answer") else None
    if good is not None:  # a text answer (the judged family answers in text only for APB-protocol cases)
        for fault in family.faults:
            if fault == "stall":
                continue
            bad = family.faulty_answer(case, fault, rng)
            if bad is not None and bad != good:
                return bad, good, fault
        raise AssertionError(f"{case.id}: no fault changes the answer")
    good_calls = family.reference_plan(case)
    for fault in family.faults:
        if fault == "stall":
            continue
        bad_calls = family.faulty_plan(case, fault, rng)
        if bad_calls is not None and bad_calls != good_calls:
            return bad_calls, good_calls, fault
    return family.random_plan(case, rng), good_calls, None  # a family without faults (judged)


def divergence(bad: list[PlannedCall], good: list[PlannedCall]) -> int:
    """How many calls the two plans share from the start."""
    n = 0
    while n < min(len(bad), len(good)) and bad[n] == good[n]:
        n += 1
    return n
