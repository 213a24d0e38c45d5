"""A scripted OpenAI-compatible model for the integration tests: it answers each case with a
known plan, one tool call per reply, then a final answer, so every integration's verdicts
are exact. The case is recognised by its task (the first user message)."""

from __future__ import annotations

import json
import random
import threading

from http_faults import chat_reply
from planprobe.suites.registry import get_family


class PlanScript:
    """``mode``: "reference" (the family's reference plan: passes) or "reversed" (the same calls
    in reverse order: fails on any case whose order matters)."""

    def __init__(self, cases, mode: str = "reference"):
        self.plans = {}
        for case in cases:
            plan = list(get_family(case.family).reference_plan(case))
            if mode == "reversed":
                plan.reverse()
            elif mode == "shuffled":
                random.Random(case.id).shuffle(plan)
            self.plans[case.task] = plan
        self.lock = threading.Lock()
        self.tools_seen: list[list[str]] = []

    def __call__(self, index, body, headers):
        messages = body.get("messages", [])
        task = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        if isinstance(task, list):  # content parts
            task = "".join(p.get("text", "") for p in task if isinstance(p, dict))
        plan = self.plans.get(task)
        with self.lock:
            self.tools_seen.append(sorted(t.get("function", t).get("name", "") for t in body.get("tools", [])))
        if plan is None:
            return chat_reply("I do not know this task")
        done = sum(1 for m in messages if m.get("role") == "tool")
        if done < len(plan):
            call = plan[done]
            return chat_reply(None, tool_calls=[{"id": f"call_{done}", "type": "function",
                                                 "function": {"name": call.name, "arguments": call.arguments}}],
                              usage={"prompt_tokens": 100 + done, "completion_tokens": 7, "total_tokens": 107 + done})
        return chat_reply("All done.", usage={"prompt_tokens": 200, "completion_tokens": 3, "total_tokens": 203})


def dump_args(arguments: str) -> dict:
    return json.loads(arguments) if arguments else {}
