"""Traces with one mistake at a known step, executed through the family's real environment."""

from __future__ import annotations

import json
import random

from planprobe.environment import IterationLimitExceeded, Limits
from planprobe.schema import Case, Trace, TraceStatus
from planprobe.suites.base import PlannedCall
from planprobe.suites.registry import get_family


def execute(case: Case, calls: list[PlannedCall], limits: Limits = Limits(), agent: str = "scripted") -> Trace:
    env = get_family(case.family).environment(case, limits, 0, agent)
    try:
        for c in calls:
            env.step()
            env.call(c.name, c.arguments)
        env.finish("All tasks are done.")
    except IterationLimitExceeded:
        env.trace.status = TraceStatus.ITERATION_LIMIT
    return env.trace


def ghost(case: Case, name: str) -> str:
    names = {t.name for t in case.tools}
    while name in names:
        name += "_v2"
    return name


def invalid_args(case: Case, call: PlannedCall) -> str | None:
    """Arguments outside the tool's schema (a parameter it does not take, or an out-of-range value)."""
    tool = next(t for t in case.tools if t.name == call.name)
    props = tool.parameters.get("properties") or {}
    if tool.parameters.get("additionalProperties") is False:
        return json.dumps({**json.loads(call.arguments or "{}"), "no_such_parameter": 1})
    if props:
        key = next(iter(props))
        return json.dumps({**json.loads(call.arguments), key: "no-such-object"})
    return None


def rng_for(case: Case, what: str) -> random.Random:
    return random.Random(f"labels-test/{what}/{case.id}")
