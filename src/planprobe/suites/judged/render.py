"""Steps as text, bounded: shared by the task text of step-wise cases (what the
agent is told was done) and the judge's prompt (the reference)."""

from __future__ import annotations

import json
from typing import Any

from .spec import Step

RESULT_CHARS = 200


def clip(text: str, limit: int) -> str:
    """At most about ``limit`` characters; a cut says how much it left out."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit} more characters not shown]"


def render_arguments(arguments: Any) -> str:
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return clip(arguments, 300)
    return clip(json.dumps(arguments, sort_keys=True, ensure_ascii=False), 300)


def render_steps(steps: list[Step], result_chars: int = RESULT_CHARS) -> str:
    lines = []
    for i, s in enumerate(steps, 1):
        if s.tool:
            line = f"{i}. {s.tool}({render_arguments(s.arguments)})"
            if s.thought:
                line += f"  # {clip(s.thought, 150)}"
            if s.output:
                line += f"\n   -> {clip(s.output, result_chars)}"
        elif s.action:
            line = f"{i}. action: {clip(s.action, 400)}"
            if s.thought:
                line += f"  # {clip(s.thought, 150)}"
            if s.output:
                line += f"\n   -> {clip(s.output, result_chars)}"
        else:
            line = f"{i}. {clip(s.text or s.thought or '', 300)}"
        lines.append(line)
    return "\n".join(lines)
