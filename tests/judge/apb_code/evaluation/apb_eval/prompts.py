"""A test-only stand-in for APB's evaluation/apb_eval/prompts.py.

planprobe does not ship APB's prompt texts (APB's code states no licence); it
reads them from the user's checkout. This file has the same variable names and
the same answer skeletons as APB's, in wording written for planprobe's tests,
so the end-to-end tests run without APB's code. It is parsed as data by
planprobe and never imported: the statements other than the plain string
assignments below are here to show that they are ignored.
"""

from __future__ import annotations

import json

PREDICT_SYSTEM = """[stand-in] You are being tested as a planning agent.

Answer with one JSON object and nothing else. Plan with the tools listed in
the request only; nothing you name will be run.
"""

_PLAN_SHAPE = """Answer shape:
{
  "plan": "short plan",
  "tool_chain": [
    {"name": "tool_name", "parameter_description": {...}, "reason": "..."}
  ]
}
"""

_STEP_SHAPE = """Answer shape:
{
  "predicted_steps": [
    {"thought": "...", "action": "...", "tool": "tool name if any", "arguments": {}}
  ]
}
"""

HOLISTIC_INSTRUCTION = f"""[stand-in] Write the whole plan and the ordered tools that carry it out.

{_PLAN_SHAPE}"""

HOLISTIC_TOOL_EXTRANEOUS_INSTRUCTION = f"""[stand-in] Write the whole plan and the ordered tools that carry it out.
A few of the listed tools are decoys; leave out any tool the task does not need.

{_PLAN_SHAPE}"""

UNSOLVABLE_INSTRUCTION = """[stand-in] The task might not be doable with what you are given.
If it is not, decline it and say what is missing or contradictory.

Declining looks like:
{"status": "REJECT", "reason": "what makes the task impossible"}

and only a task you can really do gets:
{"plan": "...", "tool_chain": [...]}
"""

STEP_WISE_INSTRUCTION = "[stand-in] Say which step(s) should follow the trajectory so far.\n\n" + _STEP_SHAPE

STEP_WISE_TOOL_EXTRANEOUS_INSTRUCTION = f"""[stand-in] Say which step should follow the trajectory so far.
Decoy tools are listed too; do not pick one unless the task needs it.

{_STEP_SHAPE}"""

STEP_WISE_TOOL_BROKEN_INSTRUCTION = f"""[stand-in] Say which step should follow the trajectory so far.
One tool in it has stopped working; route around it with another tool if needed.

{_STEP_SHAPE}"""

_VERDICT_SHAPE = """Reply with JSON only:
{
  "is_correct": boolean,
  "grade": one of [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
  "error_list": six integers [E1,E2,E3,E4,E5,E6],
  "reasoning": "a sentence or two"
}
"""

HOLISTIC_JUDGE_PROMPT = f"""[stand-in] You grade plans written by AI agents.

Decide whether the answer would get the task done with the listed tools and
within its constraints; the reference is a guide, not a string to match.

{_VERDICT_SHAPE}"""

TOOL_EXTRANEOUS_JUDGE_PROMPT = f"""[stand-in] You grade plans written by AI agents.

Some listed tools are decoys. Call the answer right only if it solves the task
without leaning on a decoy; using one needlessly is a tool-use error (E5).

{_VERDICT_SHAPE}"""

UNSOLVABLE_JUDGE_PROMPT = f"""[stand-in] You grade plans written by AI agents.

The task cannot be done. The answer is right only if it declines or names what
is missing; a confident plan, made-up facts or absent tools make it wrong.

{_VERDICT_SHAPE}"""

STEP_WISE_JUDGE_PROMPT = f"""[stand-in] You grade next-step predictions of AI agents.

Compare the predicted step(s) with the reference step(s) for the same task,
trajectory and tools; other wording is fine when the action and tool match.

{_VERDICT_SHAPE}"""

TOOL_BROKEN_JUDGE_PROMPT = f"""[stand-in] You grade next-step predictions of AI agents.

A tool has broken mid-trajectory. The prediction should notice and move to the
replacement or an equivalent tool; compare it with the reference step(s).

{_VERDICT_SHAPE}"""


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
