"""Which iteration (``env.step()``) each message and tool call of a trace belongs to.

Traces of version 2 say so themselves (``step`` on every message and call). For
version 1 traces the steps are inferred the way the built-in agents wrote them:
every assistant message begins a step (the system and task messages are step 0,
tool results and observations belong to the reply before them); a call belongs to
the assistant message that asked for it (by ``call_id``, else the n-th call to the
n-th reply, as ReAct makes one call per reply); without any assistant message (a
scripted agent) each call is a step of its own. A python: agent that made several
calls per step in a version 1 trace is read as one call per step.
"""

from __future__ import annotations

from ..schema import DEFAULT_ROLE, Message, ToolCall, Trace


def annotated(trace: Trace) -> bool:
    """Whether the trace records its steps itself (written by trace version 2 or later)."""
    items: list[Message | ToolCall] = [*trace.messages, *trace.tool_calls]
    return bool(items) and all(i.step is not None for i in items) or (not items and trace.schema_version >= 2)


def with_steps(trace: Trace) -> Trace:
    """The trace with ``step`` and ``agent`` on every top-level message and call: a copy
    with the inferred values for a version 1 trace, the trace itself otherwise."""
    if annotated(trace):
        return trace
    steps: list[int] = []
    step = 0
    reply_steps: list[int] = []
    by_call_id: dict[str, int] = {}
    for m in trace.messages:
        if m.role == "assistant":
            step += 1
            reply_steps.append(step)
            for tc in m.tool_calls or []:
                if isinstance(tc, dict) and tc.get("id"):
                    by_call_id[str(tc["id"])] = step
        steps.append(step)
    messages = [m.model_copy(update={"step": s, "agent": m.agent or DEFAULT_ROLE})
                for m, s in zip(trace.messages, steps)]
    calls = []
    for i, c in enumerate(trace.tool_calls):
        if not reply_steps:
            s = i + 1
        elif c.call_id is not None and c.call_id in by_call_id:
            s = by_call_id[c.call_id]
        else:
            s = reply_steps[min(i, len(reply_steps) - 1)]
        calls.append(c.model_copy(update={"step": s, "agent": c.agent or DEFAULT_ROLE}))
    return trace.model_copy(update={"messages": messages, "tool_calls": calls})


def step_count(trace: Trace) -> int:
    """How many steps the trace shows (its last step with a message or call; at least its
    recorded iterations when those are fewer, e.g. a step that neither logged nor called)."""
    trace = with_steps(trace)
    items: list[Message | ToolCall] = [*trace.messages, *trace.tool_calls]
    seen = [i.step or 0 for i in items]
    seen += [m.step or 0 for e in trace.episodes for m in e.messages]
    return max([trace.iterations, *seen])
