"""APB's trajectories (step-wise prefixes, ground-truth and remaining steps, holistic
tool chains) as judged-family ``Step``s.

Steps come as tool-call objects under several key names, as OpenAI chat messages
(assistant tool calls followed by tool outputs), or as text with ``<action>``/
``action:`` markers (FrameThinker rows); every form gives the same steps, tool names
rewritten as ``apb_tools.ToolNames`` rewrites them. The outputs recorded after a
call are what the mock tools replay (``recorded_outputs``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..suites.judged.spec import Step
from .apb_records import ApbRowError, row_json
from .apb_tools import ToolNames

__all__ = ["future_steps", "read_steps", "recorded_outputs"]

_TOOL_KEYS = ("tool", "tool_name", "name", "action", "function")
_NAME_LIKE = re.compile(r"^[A-Za-z_][\w.:-]{0,63}$")  # a tool name, not a sentence
_ARG_KEYS = ("arguments", "args", "parameters", "parameter_description", "action_input", "tool_input", "input")
_THOUGHT_KEYS = ("thought", "reason", "reasoning", "rationale")
_OUTPUT_KEYS = ("output", "observation", "result", "response", "tool_output")


def future_steps(row: dict[str, Any], names: ToolNames, frames: bool) -> tuple[list[Step], list[Step]]:
    """(ground-truth steps, later steps), read as one trajectory so that an output recorded
    at the start of the later steps is attached to the last ground-truth call."""
    truth_raw = row_json(row, "ground_truth_steps_json", [])
    later_raw = row_json(row, "reference_remaining_steps_json", [])
    truth = read_steps(truth_raw, "ground_truth_steps_json", names, frames)
    later = read_steps(later_raw, "reference_remaining_steps_json", names, frames)
    if isinstance(truth_raw, list) and isinstance(later_raw, list) and truth and later:
        joined = read_steps(truth_raw + later_raw, "ground_truth_steps_json", names, frames)
        if len(joined) == len(truth) + len(later) - 1:  # the first later item was the last call's output
            return joined[: len(truth)], joined[len(truth):]
    return truth, later


_ACTION_TAG = re.compile(r"<action>(.*?)</action>", re.DOTALL)
_THINK_TAG = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_ACTION_LINE = re.compile(r"(?:^|\n)\s*action:\s*(.+)", re.DOTALL | re.IGNORECASE)
_THINK_LINE = re.compile(r"^\s*think:\s*(.*?)(?:\n\s*action:|$)", re.DOTALL | re.IGNORECASE)


def _text_action(content: str) -> Step | None:
    """A FrameThinker-style turn (``<think>…</think><action>…</action>`` or ``think: … action: …``)
    as an action step; None when the text holds no action."""
    m = _ACTION_TAG.search(content) or _ACTION_LINE.search(content)
    if not m or not m.group(1).strip():
        return None
    t = _THINK_TAG.search(content) or _THINK_LINE.search(content)
    return Step(action=m.group(1).strip(), thought=t.group(1).strip() if t and t.group(1).strip() else None)


def read_steps(raw: Any, field: str, names: ToolNames, frames: bool = False) -> list[Step]:
    """Normalize a trajectory (OpenAI-style messages, thought/action records, tool-chain
    entries, or plain text) into steps; a tool message's content becomes the output
    of the tool step before it. With ``frames`` (FrameThinker), a user message after
    the first is a tool's output, as APB's loader reads it."""
    if raw is None or raw == "":
        return []
    if isinstance(raw, dict):
        raw = raw.get("steps") if isinstance(raw.get("steps"), list) else [raw]
    if isinstance(raw, str):
        return [Step(text=raw)]
    if not isinstance(raw, list):
        raise ApbRowError(field, f"expected a list of steps, got {type(raw).__name__}")
    steps: list[Step] = []
    seen_user = False
    for i, item in enumerate(raw):
        where = f"{field}[{i}]"
        if isinstance(item, str):
            steps.append(Step(text=item))
            continue
        if not isinstance(item, dict):
            steps.append(Step(text=json.dumps(item, ensure_ascii=False)))
            continue
        role = item.get("role")
        content = _content(item.get("content"))
        if role == "user" and frames:
            role = "tool" if seen_user else role
            seen_user = True
        if role in ("tool", "function", "observation", "ipython"):
            _attach_output(steps, content, item.get("name"), names)
            continue
        calls = item.get("tool_calls")
        if isinstance(calls, list) and calls:
            for one in calls:
                fn = one.get("function", one) if isinstance(one, dict) else {}
                tool = fn.get("name") if isinstance(fn, dict) else None
                if not isinstance(tool, str):
                    raise ApbRowError(where, "a tool call without a function name")
                steps.append(Step(tool=_known(names, tool), arguments=_arguments(fn.get("arguments")),
                                  thought=content or None))
            continue
        call: dict[str, Any] = item["tool_call"] if isinstance(item.get("tool_call"), dict) else item
        tool = next((call[k] for k in _TOOL_KEYS if isinstance(call.get(k), str) and call[k].strip()), None)
        if tool is not None and names.lookup(tool) is None and not _NAME_LIKE.match(tool.strip()):
            # an action written as text (OpenCUA: "Click on the 'Personal info' link …"): kept as it is
            output = next((item[k] for k in _OUTPUT_KEYS if k in item), None)
            steps.append(Step(action=tool.strip(), thought=content or None,
                              output=_content(output) if output is not None else None))
            continue
        if tool is None and role == "assistant" and content and (found := _text_action(content)) is not None:
            steps.append(found)
            continue
        if tool is not None and role not in ("user", "system"):
            args = next((call[k] for k in _ARG_KEYS if k in call), None)
            thought = next((item[k] for k in _THOUGHT_KEYS if isinstance(item.get(k), str)), None) or content or None
            output = next((item[k] for k in _OUTPUT_KEYS if k in item), None)
            steps.append(Step(tool=_known(names, tool), arguments=_arguments(args), thought=thought,
                              output=_content(output) if output is not None else None))
        elif content or any(isinstance(item.get(k), str) for k in _THOUGHT_KEYS):
            prefix = f"{role}: " if isinstance(role, str) else ""
            text = content or next(item[k] for k in _THOUGHT_KEYS if isinstance(item.get(k), str))
            steps.append(Step(text=prefix + text))
    return steps


def _known(names: ToolNames, tool: str) -> str:
    """A step's tool as planprobe names it; a name that is not a tool stays as written
    (cleaned), so the judge can see the reference called something unavailable."""
    return names.lookup(tool) or ToolNames.clean(tool) or "unknown_tool"


def _attach_output(steps: list[Step], content: str, name: Any, names: ToolNames) -> None:
    for k in range(len(steps) - 1, -1, -1):
        s = steps[k]
        if s.action and s.output is None and not isinstance(name, str):
            steps[k] = s.model_copy(update={"output": content})
            return
        if s.tool and s.output is None and (not isinstance(name, str) or _known(names, name) == s.tool):
            steps[k] = s.model_copy(update={"output": content})
            return
    steps.append(Step(text=f"tool: {content}"))


def _content(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # multimodal parts
        parts = []
        for p in value:
            if isinstance(p, dict) and isinstance(p.get("text"), str):
                parts.append(p["text"])
            elif isinstance(p, dict):
                parts.append(f"[{p.get('type', 'part')}]")
            elif isinstance(p, str):
                parts.append(p)
        return " ".join(parts)
    return json.dumps(value, ensure_ascii=False)


def _arguments(value: Any) -> dict[str, Any] | str | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return json.dumps(value, ensure_ascii=False)


def recorded_outputs(future: list[Step], prefix: list[Step], broken: str | None) -> dict[str, list[str]]:
    """Per tool, the outputs the mock replays: those recorded after the prefix first
    (the agent continues from there), then the prefix's own."""
    out: dict[str, list[str]] = {}
    for s in future + prefix:
        if s.tool and s.output and s.tool != broken:
            out.setdefault(s.tool, []).append(s.output)
    return out
