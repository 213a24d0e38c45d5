"""OTLP/JSON files as an OTLP file exporter or a collector writes them: one
``ExportTraceServiceRequest`` (``resourceSpans``) or ``ExportLogsServiceRequest``
(``resourceLogs``) JSON object a line, or one such object as the whole file.

Only the parts a trace needs are kept: spans (ids, parent, name, times, attributes, events)
and log records tied to a span (the GenAI conventions' older event form). Attribute values
are OTLP ``AnyValue`` objects and are decoded to Python values. Ids may be hex (the OTLP/JSON
spec) or base64 (protobuf's own JSON mapping); both become lowercase hex. The file is
untrusted: anything that does not fit is one ``FILE:LINE: field`` error, never a crash.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..suites.io import numbered_lines, parse_json_line

MAX_DEPTH = 32  # nesting of AnyValue arrays/kvlists read before giving up


@dataclass
class Event:
    """A span event or a log record: its name, time and attributes (a log record's body too)."""

    name: str
    time: int
    attributes: dict[str, Any]
    body: Any = None


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    line: int  # the file line it was read from
    events: list[Event] = field(default_factory=list)


@dataclass
class OtlpData:
    spans: list[Span] = field(default_factory=list)
    logs: dict[tuple[str, str], list[Event]] = field(default_factory=dict)  # (trace, span) -> log records


def any_value(value: Any, where: str, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` as a Python value (ints may come as strings, as protobuf's JSON writes int64)."""
    if depth > MAX_DEPTH:
        raise PlanprobeError(f"{where}: attribute value nested too deeply")
    if not isinstance(value, dict):
        raise PlanprobeError(f"{where}: expected an AnyValue object such as {{\"stringValue\": …}}")
    if not value:
        return None
    if "stringValue" in value:
        return _typed(value["stringValue"], str, where)
    if "boolValue" in value:
        return _typed(value["boolValue"], bool, where)
    if "intValue" in value:
        raw = value["intValue"]
        if isinstance(raw, bool) or not isinstance(raw, (int, str)):
            raise PlanprobeError(f"{where}.intValue: expected an integer")
        try:
            return int(raw)
        except ValueError:
            raise PlanprobeError(f"{where}.intValue: expected an integer, got {raw!r}") from None
    if "doubleValue" in value:
        raw = value["doubleValue"]
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            raise PlanprobeError(f"{where}.doubleValue: expected a number")
        try:
            return float(raw)
        except ValueError:
            raise PlanprobeError(f"{where}.doubleValue: expected a number, got {raw!r}") from None
    if "arrayValue" in value:
        values = (value["arrayValue"] or {}).get("values", []) if isinstance(value["arrayValue"], dict) else None
        if not isinstance(values, list):
            raise PlanprobeError(f"{where}.arrayValue.values: expected a list")
        return [any_value(v, f"{where}.arrayValue.values[{i}]", depth + 1) for i, v in enumerate(values)]
    if "kvlistValue" in value:
        kv = value["kvlistValue"]
        values = (kv or {}).get("values", []) if isinstance(kv, dict) else None
        if not isinstance(values, list):
            raise PlanprobeError(f"{where}.kvlistValue.values: expected a list")
        return key_values(values, f"{where}.kvlistValue.values", depth + 1)
    if "bytesValue" in value:
        return _typed(value["bytesValue"], str, where)
    raise PlanprobeError(f"{where}: unknown AnyValue kind {min(value)!r}")


def _typed(value: Any, kind: type, where: str) -> Any:
    if not isinstance(value, kind):
        raise PlanprobeError(f"{where}: expected a {kind.__name__}, got {type(value).__name__}")
    return value


def key_values(items: Any, where: str, depth: int = 0) -> dict[str, Any]:
    """A list of ``{key, value}`` (attributes, kvlists) as a dict."""
    if items is None:
        return {}
    if not isinstance(items, list):
        raise PlanprobeError(f"{where}: expected a list of {{key, value}}")
    out: dict[str, Any] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise PlanprobeError(f"{where}[{i}].key: expected a string")
        out[item["key"]] = any_value(item.get("value", {}), f"{where}[{i}].value ({item['key']})", depth)
    return out


def span_id_hex(raw: Any, size: int, where: str, required: bool = True) -> str:
    """An id as lowercase hex: ``size`` bytes written as hex, or as base64 (protobuf's JSON)."""
    if raw in (None, "") and not required:
        return ""
    if not isinstance(raw, str) or not raw:
        raise PlanprobeError(f"{where}: expected a {size}-byte id (hex)")
    if len(raw) == 2 * size:
        try:
            bytes.fromhex(raw)
            return raw.lower()
        except ValueError:
            pass
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        data = b""
    if len(data) != size:
        raise PlanprobeError(f"{where}: expected a {size}-byte id as {2 * size} hex digits, got {raw[:60]!r}")
    return data.hex()


def _nanos(raw: Any, where: str) -> int:
    if raw is None:
        return 0
    if isinstance(raw, bool) or not isinstance(raw, (int, str)):
        raise PlanprobeError(f"{where}: expected nanoseconds since the epoch")
    try:
        value = int(raw)
    except ValueError:
        raise PlanprobeError(f"{where}: expected nanoseconds since the epoch, got {raw!r}") from None
    if value < 0:
        raise PlanprobeError(f"{where}: expected nanoseconds since the epoch, got {raw!r}")
    return value


def _list(data: dict[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise PlanprobeError(f"{where}.{key}: expected a list")
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PlanprobeError(f"{where}: expected an object")
    return value


def _read_request(data: dict[str, Any], where: str, line: int, out: OtlpData) -> None:
    for key in ("resourceSpans", "resourceLogs"):
        if data.get(key) is not None and not isinstance(data[key], list):
            raise PlanprobeError(f"{where}: {key}: expected a list")
    for r, rs in enumerate(_list(data, "resourceSpans", where)):
        at = f"{where}: resourceSpans[{r}]"
        rs = _object(rs, at)
        resource = key_values(_object(rs.get("resource") or {}, f"{at}.resource").get("attributes"),
                              f"{at}.resource.attributes")
        for s, ss in enumerate(_list(rs, "scopeSpans", at)):
            sat = f"{at}.scopeSpans[{s}]"
            for k, sp in enumerate(_list(_object(ss, sat), "spans", sat)):
                out.spans.append(_span(_object(sp, f"{sat}.spans[{k}]"), f"{sat}.spans[{k}]", resource, line))
    for r, rl in enumerate(_list(data, "resourceLogs", where)):
        at = f"{where}: resourceLogs[{r}]"
        for s, sl in enumerate(_list(_object(rl, at), "scopeLogs", at)):
            sat = f"{at}.scopeLogs[{s}]"
            for k, rec in enumerate(_list(_object(sl, sat), "logRecords", sat)):
                rat = f"{sat}.logRecords[{k}]"
                rec = _object(rec, rat)
                trace_id = span_id_hex(rec.get("traceId"), 16, f"{rat}.traceId", required=False)
                span_id = span_id_hex(rec.get("spanId"), 8, f"{rat}.spanId", required=False)
                if not trace_id or not span_id:
                    continue  # a log record of no span: nothing to attach it to
                attributes = key_values(rec.get("attributes"), f"{rat}.attributes")
                name = rec.get("eventName") or attributes.get("event.name") or ""
                body = any_value(rec["body"], f"{rat}.body") if rec.get("body") is not None else None
                event = Event(str(name), _nanos(rec.get("timeUnixNano") or rec.get("observedTimeUnixNano"),
                                                 f"{rat}.timeUnixNano"), attributes, body)
                out.logs.setdefault((trace_id, span_id), []).append(event)


def _span(sp: dict[str, Any], where: str, resource: dict[str, Any], line: int) -> Span:
    name = sp.get("name", "")
    if not isinstance(name, str):
        raise PlanprobeError(f"{where}.name: expected a string")
    events = []
    for e, ev in enumerate(_list(sp, "events", where)):
        eat = f"{where}.events[{e}]"
        ev = _object(ev, eat)
        events.append(Event(str(ev.get("name") or ""), _nanos(ev.get("timeUnixNano"), f"{eat}.timeUnixNano"),
                            key_values(ev.get("attributes"), f"{eat}.attributes")))
    return Span(trace_id=span_id_hex(sp.get("traceId"), 16, f"{where}.traceId"),
                span_id=span_id_hex(sp.get("spanId"), 8, f"{where}.spanId"),
                parent_id=span_id_hex(sp.get("parentSpanId"), 8, f"{where}.parentSpanId", required=False),
                name=name, start=_nanos(sp.get("startTimeUnixNano"), f"{where}.startTimeUnixNano"),
                end=_nanos(sp.get("endTimeUnixNano"), f"{where}.endTimeUnixNano"),
                attributes=key_values(sp.get("attributes"), f"{where}.attributes"), resource=resource,
                line=line, events=events)


def _is_request(data: Any) -> bool:
    return isinstance(data, dict) and ("resourceSpans" in data or "resourceLogs" in data)


def looks_like_otlp(path: Path) -> bool:
    """Whether the file's first JSON object is an OTLP export request (for ``--format auto``)."""
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    text = head.decode("utf-8", errors="replace").lstrip()
    first = text.split("\n", 1)[0]
    if '"resourceSpans"' in first[:200] or '"resourceLogs"' in first[:200]:
        return True
    if first.strip() in ("{", "{\r"):  # a pretty-printed document: its first key is on a later line
        return '"resourceSpans"' in text[:400] or '"resourceLogs"' in text[:400]
    return False


def _parse_document(text: str, path: Path) -> Any:
    """A whole-file JSON document; a syntax error names the line it is on."""
    try:
        return json.loads(text, parse_constant=_refuse)
    except json.JSONDecodeError as exc:
        raise PlanprobeError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except (ValueError, RecursionError):
        return parse_json_line(text, f"{path}:1")  # raises, with the message every reader gives


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_otlp(path: Path) -> OtlpData:
    """Every span and span-bound log record of the file; the first problem raised as FILE:LINE: field."""
    out = OtlpData()
    with open(path, "rb") as f:
        lines = list(numbered_lines(f, str(path)))
    body = [(n, line) for n, line in lines if line.strip()]
    if not body:
        raise PlanprobeError(f"{path}: no spans in the file")
    if body[0][1].strip() == "{":  # one JSON document over several lines
        first = body[0][0]
        data = _parse_document("\n".join(line for _n, line in lines), path)
        if not _is_request(data):
            raise PlanprobeError(f"{path}:{first}: expected an OTLP export request (resourceSpans or resourceLogs)")
        _read_request(data, f"{path}:{first}", first, out)
    else:
        for n, line in body:
            where = f"{path}:{n}"
            data = parse_json_line(line, where)
            if not _is_request(data):
                raise PlanprobeError(f"{where}: expected an OTLP export request (an object with resourceSpans or "
                                     "resourceLogs)")
            _read_request(data, where, n, out)
    if not out.spans:
        raise PlanprobeError(f"{path}: no spans in the file")
    return out
