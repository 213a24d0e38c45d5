"""OpenTelemetry traces as agent runs for ``planprobe check --format otel``.

An agent run is one trace (all spans sharing a trace id). Its conversation is rebuilt from
its model-call spans in start order: each span carries the whole history it sent, so only
what is new since the previous call is appended (then the call's reply); calls asked for in
the run's last reply, which no tool result answers, count only where a tool span shows them
run. When no model call
captured content, the tool spans give the calls instead. The run's case is named by the
``planprobe.case_id`` attribute on any of its spans (or its resource, or in OpenInference's
``metadata``), or else found by its first user message, which must be one case's task.
The calls are then replayed like any other recorded trace (``serve/replay.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..schema import Case, TraceError, TraceStatus, Usage
from ..serve.replay import OTEL, Recorded, token_count
from .otel_messages import (
    Msg,
    from_parts,
    is_llm_span,
    is_tool_span,
    llm_messages,
    message_key,
    tool_execution,
    usage_of,
)
from .otlp_json import Event, Span, read_otlp

CASE_ATTRIBUTE = "planprobe.case_id"
CAPTURE_HINT = ("record with message content captured (e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; "
                "OpenInference captures it by default)")


def extend(conversation: list[Msg], sent: list[Msg], last_reply: Msg | None) -> None:
    """Append what ``sent`` (a model call's whole input) adds to ``conversation``."""
    k = 0
    while k < min(len(sent), len(conversation)) and message_key(sent[k]) == message_key(conversation[k]):
        k += 1
    if k == len(conversation) or k == len(sent):
        conversation += sent[k:]
        return
    if last_reply is not None:  # the history was cut or rewritten: go on after the last reply it still holds
        for i in range(len(sent) - 1, -1, -1):
            if message_key(sent[i]) == message_key(last_reply):
                conversation += sent[i + 1:]
                return
    conversation += sent  # another conversation (e.g. a sub-agent's): whole


def _inside_llm(span: Span, by_id: dict[str, Span]) -> bool:
    """Whether a model-call span sits inside another (two instrumentations of one call)."""
    seen = set()
    parent = by_id.get(span.parent_id)
    while parent is not None and parent.span_id not in seen:
        if is_llm_span(parent):
            return True
        seen.add(parent.span_id)
        parent = by_id.get(parent.parent_id)
    return False


def _where(path: Path, span: Span) -> str:
    return f"{path}:{span.line}: span {span.name!r}"


def rebuild(spans: list[Span], logs: dict[tuple[str, str], list[Event]], path: Path) -> tuple[list[Msg], Usage] | None:
    """The run's conversation and usage; None when the trace holds no model call and no tool call."""
    by_id = {s.span_id: s for s in spans}
    calls = [s for s in spans if is_llm_span(s) and not _inside_llm(s, by_id)]
    conversation: list[Msg] = []
    last_reply: Msg | None = None
    captured = False
    for span in calls:
        got = llm_messages(span, logs.get((span.trace_id, span.span_id), []), _where(path, span))
        if got is None:
            continue
        captured = True
        sent, replies = got
        extend(conversation, sent, last_reply)
        for reply in replies:
            last_reply = {**reply, "role": "assistant"}
            conversation.append(last_reply)
    if conversation and conversation[-1].get("role") == "assistant" and conversation[-1].get("tool_calls"):
        _drop_unrun_calls(conversation, spans, calls, path)
    if not captured:
        tools = [t for s in spans if is_tool_span(s) and (t := tool_execution(s, _where(path, s))) is not None]
        if not tools and not calls:
            return None
        if not tools:
            raise PlanprobeError(f"{_where(path, calls[0])}: trace {calls[0].trace_id}: its model calls carry no "
                                 f"messages and it has no tool spans: {CAPTURE_HINT}")
        for i, tool in enumerate(tools):
            call = {"id": f"otel{i}", **tool["call"]}
            conversation += [{"role": "assistant", "content": None, "tool_calls": [call]},
                             {"role": "tool", "tool_call_id": call["id"], "content": tool["result"]}]
        conversation += _final_answer(spans, path)
    return conversation, _usage(calls, path)


def _drop_unrun_calls(conversation: list[Msg], spans: list[Span], calls: list[Span], path: Path) -> None:
    """The run ended on a reply asking for calls that no tool result answers: only those a tool
    span shows running after the last model call were run; the others are left out."""
    last = max(calls, key=lambda s: s.start)
    ran = [t["call"]["function"]["name"] for s in spans if is_tool_span(s) and s.start >= last.start
           and (t := tool_execution(s, _where(path, s))) is not None]
    kept = []
    for call in conversation[-1]["tool_calls"]:
        name = (call.get("function") or {}).get("name")
        if name in ran:
            ran.remove(name)
            kept.append(call)
    reply = {k: v for k, v in conversation[-1].items() if k != "tool_calls"}
    conversation[-1] = {**reply, "tool_calls": kept} if kept else reply


def _final_answer(spans: list[Span], path: Path) -> list[Msg]:
    """The run's answer from its agent span's ``gen_ai.output.messages``, when it has one."""
    for span in spans:
        if not span.parent_id and "gen_ai.output.messages" in span.attributes:
            out = from_parts(span.attributes["gen_ai.output.messages"], f"{_where(path, span)} gen_ai.output.messages")
            return [m for m in out if m["role"] == "assistant"][-1:]
    return []


def _usage(calls: list[Span], path: Path) -> Usage:
    usage = Usage(model_calls=len(calls))
    for span in calls:
        counts = usage_of(span)
        for kind, (key, raw) in counts.items():
            n = token_count(raw, f"{_where(path, span)} {key}")
            if kind == "prompt":
                usage.prompt_tokens += n
            else:
                usage.completion_tokens += n
    return usage


def _named_case(spans: list[Span], path: Path) -> str | None:
    named: dict[str, Span] = {}
    for span in spans:
        for source in (span.attributes, span.resource, _metadata(span)):
            value = source.get(CASE_ATTRIBUTE)
            if value is None:
                continue
            if not isinstance(value, str) or not value:
                raise PlanprobeError(f"{_where(path, span)}: {CASE_ATTRIBUTE}: expected a case id (a string)")
            named.setdefault(value, span)
    if len(named) > 1:
        (a, sa), (b, sb) = list(named.items())[:2]
        raise PlanprobeError(f"{_where(path, sb)}: {CASE_ATTRIBUTE}: {b!r} in a trace whose span on line {sa.line} "
                             f"names {a!r}; one trace is one agent run on one case")
    return next(iter(named), None)


def _status(spans: list[Span], path: Path) -> tuple[TraceStatus, list[TraceError]]:
    """How a run planprobe recorded (``serve --otel-out``) ended: ``planprobe.status`` and
    ``planprobe.errors``; a run from elsewhere has neither and counts as completed."""
    for span in spans:
        raw = span.attributes.get("planprobe.status")
        if raw is None:
            continue
        where = _where(path, span)
        try:
            status = TraceStatus(raw)
        except ValueError:
            known = ", ".join(s.value for s in TraceStatus)
            raise PlanprobeError(f"{where}: planprobe.status: expected one of {known}, got {raw!r}") from None
        errors = span.attributes.get("planprobe.errors")
        try:
            listed = json.loads(errors) if isinstance(errors, str) else []
            found = [TraceError(kind=str(e["kind"]), message=str(e["message"])) for e in listed]
        except (ValueError, TypeError, KeyError, RecursionError):
            raise PlanprobeError(f"{where}: planprobe.errors: expected a JSON list of {{kind, message}}") from None
        if status == TraceStatus.INFRA_ERROR:
            raise PlanprobeError(f"{where}: planprobe.status: infra_error: an infrastructure failure is not the "
                                 "agent's; record the case again")
        return status, found
    return TraceStatus.COMPLETED, []


def _metadata(span: Span) -> dict[str, Any]:
    """OpenInference's ``metadata`` attribute (JSON), where ``using_metadata`` puts the user's keys."""
    raw = span.attributes.get("metadata")
    if not isinstance(raw, str) or CASE_ATTRIBUTE not in raw:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _case_by_task(conversation: list[Msg], tasks: dict[str, list[str]], where: str) -> str:
    first = next((m for m in conversation if m.get("role") == "user"), None)
    if first is None or not isinstance(first.get("content"), str):
        raise PlanprobeError(f"{where}: no {CASE_ATTRIBUTE} attribute and no user message to find the case by: set "
                             f"{CASE_ATTRIBUTE} on a span of the run")
    found = tasks.get(first["content"].strip(), [])
    if not found:
        raise PlanprobeError(f"{where}: no {CASE_ATTRIBUTE} attribute, and its first user message is no case's task "
                             f"({first['content'][:60]!r}…): set {CASE_ATTRIBUTE} on a span of the run")
    if len(found) > 1:
        raise PlanprobeError(f"{where}: its first user message is the task of {len(found)} cases ({found[0]!r}, "
                             f"{found[1]!r}, …): set {CASE_ATTRIBUTE} on a span of the run")
    return found[0]


def read_otel_traces(path: Path, cases: dict[str, Case]) -> list[Recorded]:
    """Every agent run (trace) of an OTLP/JSON file, mapped to its case, in the order the runs began."""
    data = read_otlp(path)
    traces: dict[str, list[Span]] = {}
    for span in data.spans:
        traces.setdefault(span.trace_id, []).append(span)
    tasks: dict[str, list[str]] = {}
    for case in cases.values():
        tasks.setdefault(case.task.strip(), []).append(case.id)
    runs: list[tuple[int, int, Recorded]] = []
    for trace_id, spans in traces.items():
        spans.sort(key=lambda s: (s.start, s.line))
        first = min(spans, key=lambda s: (s.line, s.start))
        built = rebuild(spans, data.logs, path)
        if built is None:
            continue  # no model call, no tool call: not an agent run (other spans of the service)
        conversation, usage = built
        where = f"{path}:{first.line}: trace {trace_id}"
        status, errors = _status(spans, path)
        case_id = _named_case(spans, path) or _case_by_task(conversation, tasks, where)
        if case_id not in cases:
            raise PlanprobeError(f"{where}: {CASE_ATTRIBUTE}: no case {case_id!r} in the suite")
        rec = Recorded(case_id, OTEL, first.line, messages=conversation, usage=usage,
                       meta={"otel_trace_id": trace_id}, status=status, errors=errors)
        runs.append((spans[0].start, first.line, rec))
    if not runs:
        raise PlanprobeError(f"{path}: no agent runs in the file: no trace has a model-call or tool span")
    return [rec for _start, _line, rec in sorted(runs, key=lambda r: (r[0], r[1]))]
