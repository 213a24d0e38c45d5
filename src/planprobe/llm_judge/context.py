"""What the judge is shown about one episode: the task, the tools, the reference
and the trace, rendered as bounded text.

Judged cases carry their setting and reference in the spec. Any other case
(a formal one, judged for calibration) is judged as plain planning, with its
family's reference plan as the guidance APB's judge gets from its reference
tool chain. Everything is truncated to fixed budgets so one long trace cannot
push the rubric out of a small model's context.
"""

from __future__ import annotations

import json
from typing import Any

from ..schema import Case, ToolSpec, Trace, TraceStatus
from ..suites.judged.render import RESULT_CHARS, clip, render_steps
from ..suites.judged.spec import FAMILY as JUDGED_FAMILY
from ..suites.judged.spec import parse_spec
from ..suites.registry import restart_tool_of
from .rubric import JudgeContext

DESCRIPTION_CHARS = 200
SHORT_DESCRIPTION_CHARS = 60  # when the full tool list would pass TOOLS_CHARS
TOOLS_CHARS = 2500
REFERENCE_CHARS = 3000


def render_tools(tools: list[ToolSpec]) -> str:
    """Every tool with its parameters, always: a long list shortens descriptions (each
    cut says by how much), it never drops a tool."""
    text = _tool_lines(tools, DESCRIPTION_CHARS)
    return text if len(text) <= TOOLS_CHARS else _tool_lines(tools, SHORT_DESCRIPTION_CHARS)


def _tool_lines(tools: list[ToolSpec], description_chars: int) -> str:
    lines = []
    for t in tools:
        props = t.parameters.get("properties", {}) if isinstance(t.parameters, dict) else {}
        required = set(t.parameters.get("required", ())) if isinstance(t.parameters, dict) else set()
        args = ", ".join(f"{name}{'' if name in required else '?'}: {_type(spec)}" for name, spec in props.items())
        lines.append(f"- {t.name}({args}): {clip(t.description, description_chars)}")
    return "\n".join(lines)


def _type(spec: Any) -> str:
    if isinstance(spec, dict):
        if "enum" in spec:
            return "|".join(json.dumps(v) for v in spec["enum"][:8])
        return str(spec.get("type", "any"))
    return "any"


def render_trace(trace: Trace, max_chars: int = 4000, restart_tool: ToolSpec | None = None) -> str:
    """The agent's calls (last attempt), their results, its final answer and how it ended.
    Attempts are counted from the raw calls of ``restart_tool`` (the case's), never from annotations."""
    attempts = trace.attempts(restart_tool)
    calls = attempts[-1]
    lines: list[str] = []
    if len(attempts) > 1:
        lines.append(f"(The agent restarted {len(attempts) - 1} time(s); only its last attempt is shown.)")
    if not calls:
        lines.append("The agent called no tools.")
    used = sum(len(x) for x in lines)
    for k, c in enumerate(calls):
        failed = f" [{c.error}]" if c.error else ""
        line = f"{k + 1}. {c.name}({clip(c.arguments, 300)}){failed}\n   -> {clip(c.result, RESULT_CHARS)}"
        if used + len(line) > max_chars:
            lines.append(f"… ({len(calls) - k} more calls not shown)")
            break
        lines.append(line)
        used += len(line)
    answer = trace.final_answer
    lines.append("Final answer: " + (clip(answer, 600) if answer and answer.strip() else "(none)"))
    if trace.status != TraceStatus.COMPLETED:
        reason = trace.errors[-1].message if trace.errors else trace.status.value
        lines.append(f"The episode did not finish normally: {trace.status.value} ({clip(reason, 200)}).")
    return "\n".join(lines)


def build_context(case: Case, trace: Trace, reference: bool = True, max_trace_chars: int = 4000) -> JudgeContext:
    tools = render_tools(case.tools)
    trajectory = render_trace(trace, max_trace_chars, restart_tool_of(case))
    if case.family == JUDGED_FAMILY:
        return _judged_context(case, tools, trajectory, reference)
    ref = _family_reference(case) if reference else None
    return JudgeContext(settings=("plan",), task=case.task, tools=tools, trajectory=trajectory, reference=ref)


def _judged_context(case: Case, tools: str, trajectory: str, reference: bool) -> JudgeContext:
    spec = parse_spec(case)
    notes: list[str] = []
    if "next_steps" in spec.settings and spec.horizon:
        notes.append(f"The agent had to take the next {spec.horizon} step(s): judge its first {spec.horizon} "
                     "action(s) and ignore any later ones.")
    if spec.distractors:
        notes.append("Distractor tools: " + ", ".join(spec.distractors))
    if spec.broken_tool:
        notes.append(f"Broken tool: {spec.broken_tool}; designated replacement: {spec.replacement_tool or '(none)'}")
    if spec.unsolvable_type:
        notes.append(f"Why the task is unsolvable: {spec.unsolvable_type}")
    ref: str | None = None
    if reference and spec.reference is not None:
        parts = []
        if spec.reference.plan:
            parts.append("Plan: " + clip(spec.reference.plan, 600))
        if spec.reference.steps:
            label = "Next step(s)" if "next_steps" in spec.settings else "Tool chain"
            parts.append(f"{label}:\n" + render_steps(spec.reference.steps))
        if spec.remaining:
            parts.append("Later steps (context only):\n" + render_steps(spec.remaining))
        ref = clip("\n".join(parts), REFERENCE_CHARS) if parts else None
    if reference and spec.protocol == "apb" and spec.apb is not None:  # APB's reference, as APB's judge gets it
        from ..suites.judged.apb_format import dumps, judge_payload

        ref = clip(dumps(judge_payload(spec.apb)["reference"]), REFERENCE_CHARS)
    return JudgeContext(settings=tuple(spec.settings), task=case.task, tools=tools, trajectory=trajectory, reference=ref,
                        notes=tuple(notes))


def _family_reference(case: Case) -> str | None:
    """The family's solver-computed plan, as one valid solution; None when it has none."""
    from ..suites.registry import get_family

    try:
        plan = get_family(case.family).reference_plan(case)
    except Exception:  # noqa: BLE001  a family without a reference (or a case it cannot solve): judge without one
        return None
    if not plan:
        return None
    lines = [f"{i}. {c.name}({clip(c.arguments, 200)})" for i, c in enumerate(plan, 1)]
    return clip("One valid sequence of calls:\n" + "\n".join(lines), REFERENCE_CHARS)
