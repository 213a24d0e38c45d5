"""Mock tools for judged cases: they replay recorded outputs.

APB never executes tools: its trajectories carry the outputs the tools gave when
the task was authored. Here each tool returns its recorded outputs in order
(the last one again when they run out) or, when nothing was recorded, a neutral
acknowledgement — so an agent can act out its plan and the judge sees what it
did. The broken tool of a broken-tool case fails every time with a realistic
service error, recorded as a tool failure in the trace.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...environment import Environment, Limits
from ...schema import Case, Message, ToolCallError
from .spec import JudgedSpec, parse_spec


def broken_message(name: str) -> str:
    return f"Error: {name} failed: 503 Service Unavailable (the service is down; retrying will not help)."


_LIMITS = Limits()


class JudgedEnvironment(Environment):
    def __init__(self, case: Case, limits: Limits = _LIMITS, trial: int = 0, agent: str = ""):
        super().__init__(case, limits, trial, agent)
        self.spec = parse_spec(case)
        self._used: dict[str, int] = {}

    def user_message(self) -> Message:
        """APB protocol: the images APB attaches, as image content parts after the text.
        An image that is gone or changed since the import is named in the text instead."""
        if self.spec.protocol != "apb" or not self.spec.images:
            return super().user_message()
        parts, problems = image_parts(self.spec)
        self.trace.meta["images_attached"] = len(parts)
        text = self.case.task
        if problems:
            self.trace.meta["images_unavailable"] = problems
            text += "\n\n" + "\n".join(f"[Missing referenced file: {p}]" for p in problems)
        return Message(role="user", content=text, parts=parts or None)

    def chat_params(self, params: Any) -> Any:
        """APB asks the tested model for JSON mode (``response_format: json_object``) and
        sends no seed (its request has model, messages, temperature, max_tokens only)."""
        if self.spec.protocol == "apb" and hasattr(params, "response_format"):
            return replace(params, response_format="json_object", seed=None)
        return params

    def log(self, message: Message) -> None:
        """Traces keep which images were sent (path and hash), not their bytes."""
        if message.parts:
            refs = [{"type": "image_ref", "path": i.path, "sha256": i.sha256} for i in self.spec.images]
            message = message.model_copy(update={"parts": refs[: len(message.parts)]})
        super().log(message)

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        if name == self.spec.broken_tool:
            return broken_message(name), ToolCallError.TOOL_FAILURE.value
        outputs = self.spec.outputs.get(name) or []
        k = self._used.get(name, 0)
        self._used[name] = k + 1
        if outputs:
            return outputs[min(k, len(outputs) - 1)], None
        return f"{name} completed.", None


def image_parts(spec: JudgedSpec) -> tuple[list[dict[str, Any]], list[str]]:
    """(image_url parts as APB sends them, paths that could not be attached)."""
    parts: list[dict[str, Any]] = []
    problems: list[str] = []
    root = Path(spec.data_dir).resolve() if spec.data_dir else None
    for image in spec.images:
        full = (root / image.path).resolve() if root is not None else None
        if full is None or (full != root and root not in full.parents) or not full.is_file():
            problems.append(image.path)
            continue
        data = full.read_bytes()
        if hashlib.sha256(data).hexdigest() != image.sha256:
            problems.append(image.path)
            continue
        url = f"data:{image.mime};base64,{base64.b64encode(data).decode('ascii')}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts, problems
