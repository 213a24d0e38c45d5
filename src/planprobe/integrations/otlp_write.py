"""What ``planprobe serve`` and ``proxy`` record, written as OTLP/JSON spans following the GenAI
semantic conventions, so the runs load into a tracing tool (and back into ``check``).

One ``ExportTraceServiceRequest`` JSON object a line, as an OTLP file exporter writes them:
ids in hex, int64 values as strings. ``serve`` writes each stored result as one trace: an
``invoke_agent`` span (``planprobe.case_id``, ``planprobe.trial``, the final answer as
``gen_ai.output.messages``), a ``chat`` span per model call when the proxy recorded them
(``gen_ai.input.messages`` / ``gen_ai.output.messages``, token usage) and an
``execute_tool`` span per tool call. The standalone ``proxy`` writes a ``chat`` span per call
as it completes; calls whose messages continue the previous call's conversation on the same
path share its trace. Pure JSON: no OpenTelemetry package is needed to write.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from ..schema import Trace, TraceStatus
from ..version import __version__
from .otel_messages import Msg, message_key

CASE_ATTRIBUTE = "planprobe.case_id"
KIND_INTERNAL, KIND_CLIENT = 1, 3


def any_value(value: Any) -> dict[str, Any]:
    """A Python value as an OTLP AnyValue (int64 as a string, as protobuf's JSON mapping writes it)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": value if isinstance(value, str) else json.dumps(value, sort_keys=True)}


def new_id(size: int) -> str:
    return os.urandom(size).hex()


def span(trace_id: str, name: str, start: int, end: int, attributes: dict[str, Any], *, parent: str = "",
         kind: int = KIND_INTERNAL, span_id: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": trace_id, "spanId": span_id or new_id(8), "name": name, "kind": kind,
                           "startTimeUnixNano": str(start), "endTimeUnixNano": str(max(start, end)),
                           "attributes": [{"key": k, "value": any_value(v)} for k, v in attributes.items()
                                          if v is not None]}
    if parent:
        out["parentSpanId"] = parent
    return out


def export_request(spans: list[dict[str, Any]], service: str) -> dict[str, Any]:
    return {"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
        "scopeSpans": [{"scope": {"name": "planprobe", "version": __version__}, "spans": spans}]}]}


def _arguments(raw: Any) -> Any:
    """Tool-call arguments as the conventions show them: the object when the text is one, else the text."""
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
        return parsed if isinstance(parsed, dict) else raw
    return raw


def parts(messages: list[Msg]) -> str:
    """OpenAI chat messages in the GenAI conventions' form (``role`` + typed ``parts``), as JSON."""
    out = []
    for m in messages:
        role = m.get("role") or "user"
        if role == "tool":
            out.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": m.get("tool_call_id"),
                                                   "response": m.get("content")}]})
            continue
        items: list[dict[str, Any]] = []
        if m.get("content"):
            items.append({"type": "text", "content": m["content"]})
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            items.append({"type": "tool_call", "id": c.get("id"), "name": fn.get("name"),
                          "arguments": _arguments(fn.get("arguments"))})
        out.append({"role": "system" if role == "developer" else role, "parts": items})
    return json.dumps(out, ensure_ascii=False)


def chat_attributes(model: str | None, sent: list[Msg], reply: Msg, usage: dict[str, Any] | None,
                    case_id: str | None) -> dict[str, Any]:
    usage = usage or {}
    return {"gen_ai.operation.name": "chat", "gen_ai.request.model": model, CASE_ATTRIBUTE: case_id,
            "gen_ai.input.messages": parts(sent), "gen_ai.output.messages": parts([reply]),
            "gen_ai.usage.input_tokens": _count(usage.get("prompt_tokens")),
            "gen_ai.usage.output_tokens": _count(usage.get("completion_tokens"))}


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def trace_spans(trace: Trace, ended_ns: int) -> list[dict[str, Any]]:
    """One stored result (``serve``) as the spans of one trace."""
    trace_id, root_id = new_id(16), new_id(8)
    start = ended_ns - int(trace.wall_time_s * 1e9)

    def at(seconds: float) -> int:
        return start + int(seconds * 1e9)

    answer = [{"role": "assistant", "content": trace.final_answer}] if trace.final_answer is not None else []
    spans = [span(trace_id, f"invoke_agent {trace.agent}", start, ended_ns, {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": trace.agent, CASE_ATTRIBUTE: trace.case_id,
        "planprobe.trial": trace.trial, "planprobe.status": trace.status.value,
        "planprobe.errors": json.dumps([{"kind": e.kind, "message": e.message} for e in trace.errors])
        if trace.errors else None,
        "error.type": trace.status.value if trace.status != TraceStatus.COMPLETED else None,
        "gen_ai.output.messages": parts(answer) if answer else None}, span_id=root_id)]
    messages = [m.wire() for m in trace.messages]
    calls = trace.tool_calls
    usages = [c.get("usage") for c in trace.meta.get("proxy_calls") or [] if isinstance(c, dict)]
    done = 0  # tool calls asked for by the replies so far
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        begin = at(calls[done - 1].t_end) if 0 < done <= len(calls) else start
        finish = at(calls[done].t_start) if done < len(calls) else ended_ns
        usage = usages.pop(0) if usages else None
        spans.append(span(trace_id, f"chat {trace.model or ''}".strip(), begin, finish,
                          chat_attributes(trace.model, messages[:i], m, usage, None), parent=root_id, kind=KIND_CLIENT))
        done += len(m.get("tool_calls") or [])
    for c in calls:
        spans.append(span(trace_id, f"execute_tool {c.name}", at(c.t_start), at(c.t_end), {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": c.name, "gen_ai.tool.call.id": c.call_id,
            "gen_ai.tool.call.arguments": c.arguments, "gen_ai.tool.call.result": c.result,
            "error.type": c.error}, parent=root_id))
    return spans


class OtlpFile:
    """Appends export requests to a file, one a line; safe across threads."""

    def __init__(self, path: str, service: str):
        self.path = path
        self.service = service
        self._lock = threading.Lock()

    def write(self, spans: list[dict[str, Any]]) -> None:
        line = json.dumps(export_request(spans, self.service), ensure_ascii=False) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line)

    def write_trace(self, trace: Trace) -> None:
        self.write(trace_spans(trace, time.time_ns()))


class ProxyCalls:
    """The standalone proxy's model calls as chat spans: a call whose messages continue the
    previous call's conversation on the same path (case) joins its trace; another begins one."""

    def __init__(self, out: OtlpFile):
        self.out = out
        self._runs: dict[str, tuple[str, list[tuple[Any, ...]]]] = {}

    def record(self, key: str, request: dict[str, Any], reply: dict[str, Any], started_ns: int) -> None:
        sent = [m for m in request.get("messages") or [] if isinstance(m, dict)]
        choice = (reply.get("choices") or [{}])[0]
        message = {**(choice.get("message") or {}), "role": "assistant"}
        keys = [message_key(m) for m in sent]
        trace_id, history = self._runs.get(key, ("", []))
        if not trace_id or keys[:len(history)] != history:
            trace_id = new_id(16)
        self._runs[key] = (trace_id, [*keys, message_key(message)])
        model = reply.get("model") or request.get("model")
        attributes = chat_attributes(model, sent, message, reply.get("usage"), key or None)
        attributes["gen_ai.response.finish_reasons"] = [choice.get("finish_reason") or "error"]
        self.out.write([span(trace_id, f"chat {model or ''}".strip(), started_ns, time.time_ns(), attributes,
                             kind=KIND_CLIENT)])


class ProxyCallRecorder:
    """The proxy's ``Recorder`` for one request writing to ``ProxyCalls``."""

    def __init__(self, calls: ProxyCalls, key: str):
        self.calls = calls
        self.key = key
        self.started = time.time_ns()

    def before_call(self) -> str | None:
        self.started = time.time_ns()
        return None

    def record(self, request: dict[str, Any], reply: dict[str, Any]) -> None:
        self.calls.record(self.key, request, reply, self.started)

    def failed(self, cause: str) -> None:
        return None
