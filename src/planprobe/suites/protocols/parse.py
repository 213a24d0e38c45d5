"""Reading a plan out of a model's answer, which is untrusted text.

Models wrap JSON in ```json fences, put prose around it, double-encode the
arguments or name the keys a little differently (APB itself says ``name`` and
``parameter_description`` where planprobe asks for ``tool`` and ``parameters``).
The reader accepts all of that, and nothing else: it only ever calls
``json.loads``/``raw_decode`` (never ``eval``), bounds the work on long answers,
and when it cannot find a plan it says why in words an evidence line can quote.

A step becomes a call exactly as it will be replayed: the tool name as given and
the arguments as JSON text. Steps that are wrong in themselves (no tool name,
arguments that are not an object) are kept, so the base family's oracle reports
them as the Act Errors they are, at the step where they occur.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...lenient_json import find_json, loads
from ..base import PlannedCall

QUOTE_CHARS = 200

TOOL_KEYS = ("tool", "name", "tool_name", "function", "action")
ARG_KEYS = ("parameters", "arguments", "args", "params", "parameter_description", "input")



@dataclass(frozen=True)
class ParsedPlan:
    calls: list[PlannedCall] | None  # None when no plan could be read
    problem: str | None = None  # why not, in words
    description: str | None = None  # the plan's own summary, if it gave one


def quote(text: str | None) -> str:
    """A short, single-line excerpt of untrusted text for an evidence line."""
    text = " ".join((text or "").split())
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + "…"


def _acceptable(value: Any, keys: Sequence[str]) -> bool:
    if isinstance(value, dict):
        return any(k in value for k in keys) or any(k in value for k in TOOL_KEYS)
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def extract_json(text: str, keys: Sequence[str]) -> tuple[Any, str | None]:
    """The JSON value in ``text`` that looks like the answer (an object with one of
    ``keys``, or a list of step objects), and None; or None and why not."""
    return find_json(text, lambda value: _acceptable(value, keys))


def _steps_of(value: Any, keys: Sequence[str]) -> tuple[list | None, str | None]:
    if isinstance(value, list):
        return value, None
    if not isinstance(value, dict):
        return None, "it is not a JSON object"
    for key in tuple(keys) + ("plan",):  # some models put the steps under "plan"
        steps = value.get(key)
        if isinstance(steps, list):
            return steps, None
        if isinstance(steps, dict) and key != "plan":
            return [steps], None  # one step given as an object rather than a list of one
    if any(k in value for k in TOOL_KEYS):
        return [value], None  # a single bare step
    if keys[0] in value:
        return None, f"'{keys[0]}' is not a list of steps"
    return None, f"it has no '{keys[0]}' list"


def _call(step: Any) -> PlannedCall:
    """One step as it will be replayed. Whatever is wrong with it is kept visible:
    a missing name becomes an empty tool name, non-object arguments stay non-object."""
    if not isinstance(step, dict):
        return PlannedCall("", json.dumps(step)[:500])
    name: Any = next((step[k] for k in TOOL_KEYS if k in step), "")
    if isinstance(name, dict):  # {"function": {"name": ..., "arguments": ...}} (OpenAI's shape)
        inner = name
        name = inner.get("name", "")
        step = {**step, **{k: inner[k] for k in ARG_KEYS if k in inner}}
    if not isinstance(name, str):
        name = json.dumps(name)
    args: Any = next((step[k] for k in ARG_KEYS if k in step), {})
    if isinstance(args, str):
        stripped = args.strip()
        try:
            decoded = loads(stripped) if stripped else {}
        except ValueError:
            return PlannedCall(name.strip(), args)  # sent as is: the oracle calls it malformed
        args = decoded
    if args is None:
        args = {}
    return PlannedCall(name.strip(), json.dumps(args, sort_keys=True))


def parse_plan(text: str | None, keys: Sequence[str]) -> ParsedPlan:
    """The calls of an answer whose steps sit under the first of ``keys`` found
    (e.g. ``("tool_chain", "steps")``)."""
    if text is None or not text.strip():
        return ParsedPlan(None, "the agent gave no answer")
    value, problem = extract_json(text, keys)
    if problem:
        return ParsedPlan(None, problem)
    steps, problem = _steps_of(value, keys)
    if problem or steps is None:
        return ParsedPlan(None, problem)
    description = value.get("plan") if isinstance(value, dict) and isinstance(value.get("plan"), str) else None
    return ParsedPlan([_call(s) for s in steps], None, description)
