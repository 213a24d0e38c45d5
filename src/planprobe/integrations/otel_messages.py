"""One span's model call or tool execution, in OpenAI chat-message form, from whichever
convention its instrumentation wrote (see docs/otel.md for the versions):

- GenAI semantic conventions, current: ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  / ``gen_ai.system_instructions`` (JSON, messages of typed ``parts``), also inside a
  ``gen_ai.client.inference.operation.details`` event;
- GenAI, older: one event per message (``gen_ai.user.message`` …, ``gen_ai.choice``), as
  span events or as log records of the span; ``gen_ai.content.prompt`` /
  ``gen_ai.content.completion`` events; the indexed ``gen_ai.prompt.N.*`` /
  ``gen_ai.completion.N.*`` attributes;
- OpenInference: ``llm.input_messages.N.message.*`` / ``llm.output_messages.N.message.*``
  on spans whose ``openinference.span.kind`` is LLM, and TOOL spans.

Execute-tool spans (GenAI ``execute_tool``, OpenInference TOOL) give the calls when no model
call's content was captured. Values are untrusted: a malformed one is a PlanprobeError
naming ``where`` and the attribute.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import PlanprobeError
from .otlp_json import Event, Span

Msg = dict[str, Any]

LLM_OPERATIONS = {"chat", "text_completion", "generate_content"}
ROLES = {"system", "developer", "user", "assistant", "tool"}
MESSAGE_EVENTS = {f"gen_ai.{role}.message": role for role in ("system", "user", "assistant", "tool")}
DETAILS_EVENT = "gen_ai.client.inference.operation.details"


def is_llm_span(span: Span) -> bool:
    kind = span.attributes.get("openinference.span.kind")
    if isinstance(kind, str):
        return kind.upper() == "LLM"
    operation = span.attributes.get("gen_ai.operation.name")
    if operation is not None:  # e.g. invoke_agent, execute_tool: not a model call even with messages
        return operation in LLM_OPERATIONS
    # conventions before gen_ai.operation.name (v1.26): a span naming the model, or carrying messages
    return any(k.startswith(("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt.", "gen_ai.completion."))
               or k in ("gen_ai.system", "gen_ai.request.model") for k in span.attributes)


def is_tool_span(span: Span) -> bool:
    kind = span.attributes.get("openinference.span.kind")
    if isinstance(kind, str):
        return kind.upper() == "TOOL"
    return span.attributes.get("gen_ai.operation.name") == "execute_tool"


def tool_call(call_id: Any, name: Any, arguments: Any, where: str) -> Msg:
    """An OpenAI tool call; arguments kept as the text the model sent (an object is written as JSON;
    absent is ``{}``, as OpenInference leaves out empty arguments)."""
    if not isinstance(name, str) or not name:
        raise PlanprobeError(f"{where}: tool call name: expected a string")
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments, sort_keys=True)
    call: Msg = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = str(call_id)
    return call


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def _role(value: Any, where: str) -> str:
    if value not in ROLES:
        raise PlanprobeError(f"{where}: role: expected system, developer, user, assistant or tool, got {value!r}")
    return "system" if value == "developer" else str(value)


def _json_list(value: Any, where: str) -> list[Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise PlanprobeError(f"{where}: not valid JSON") from None
    if not isinstance(value, list):
        raise PlanprobeError(f"{where}: expected a JSON list of messages")
    return value


def from_parts(value: Any, where: str) -> list[Msg]:
    """The current GenAI form: ``[{"role", "parts": [{"type": "text"|"tool_call"|"tool_call_response", …}]}]``."""
    out: list[Msg] = []
    for i, raw in enumerate(_json_list(value, where)):
        at = f"{where}[{i}]"
        if not isinstance(raw, dict):
            raise PlanprobeError(f"{at}: expected an object")
        role = _role(raw.get("role"), at)
        parts = raw.get("parts")
        if not isinstance(parts, list):
            raise PlanprobeError(f"{at}.parts: expected a list")
        texts: list[str] = []
        calls: list[Msg] = []
        for j, part in enumerate(parts):
            pat = f"{at}.parts[{j}]"
            if not isinstance(part, dict):
                raise PlanprobeError(f"{pat}: expected an object")
            kind = part.get("type")
            if kind == "text":
                texts.append(_text(part.get("content")) or "")
            elif kind == "tool_call":
                calls.append(tool_call(part.get("id"), part.get("name"), part.get("arguments"), pat))
            elif kind == "tool_call_response":
                out.append({"role": "tool", "tool_call_id": part.get("id"), "content": _text(part.get("response"))})
        if role == "tool":
            continue  # its responses are the tool messages above
        message: Msg = {"role": role, "content": "".join(texts) if texts else None}
        if calls:
            message["tool_calls"] = calls
        if texts or calls:
            out.append(message)
    return out


def system_instructions(value: Any, where: str) -> list[Msg]:
    """``gen_ai.system_instructions``: a list of parts (text), or plain text."""
    if isinstance(value, str) and not value.lstrip().startswith("["):
        return [{"role": "system", "content": value}]
    texts = [_text(p.get("content")) or "" for p in _json_list(value, where) if isinstance(p, dict)
             and p.get("type", "text") == "text"]
    return [{"role": "system", "content": "".join(texts)}] if texts else []


def _indexed(attributes: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """``PREFIX.N.rest`` attributes grouped by N: {N: {rest: value}}."""
    pattern = re.compile(re.escape(prefix) + r"\.(\d+)\.(.+)")
    out: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        m = pattern.fullmatch(key)
        if m:
            out.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return out


def openinference(attributes: dict[str, Any], prefix: str, where: str) -> list[Msg]:
    """``llm.input_messages.N.message.role/content/tool_calls.M.tool_call.function.name/arguments``."""
    out = []
    for n, fields in sorted(_indexed(attributes, prefix).items()):
        at = f"{where} ({prefix}.{n})"
        msg: Msg = {"role": _role(fields.get("message.role"), at), "content": _text(fields.get("message.content"))}
        contents = _indexed(fields, "message.contents")
        if msg["content"] is None and contents:
            msg["content"] = "".join(str(c.get("message_content.text") or "") for _k, c in sorted(contents.items()))
        for key in ("tool_call_id", "name"):
            if fields.get(f"message.{key}") is not None:
                msg[key] = str(fields[f"message.{key}"])
        calls = [tool_call(c.get("tool_call.id"), c.get("tool_call.function.name"), c.get("tool_call.function.arguments"),
                           f"{at}.message.tool_calls.{m}") for m, c in sorted(_indexed(fields, "message.tool_calls").items())]
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    return out


def indexed_genai(attributes: dict[str, Any], prefix: str, where: str) -> list[Msg]:
    """The older indexed form: ``gen_ai.prompt.N.role/content/tool_calls.M.name/arguments/id``."""
    out = []
    for n, fields in sorted(_indexed(attributes, prefix).items()):
        at = f"{where} ({prefix}.{n})"
        role = fields.get("role", "assistant" if prefix == "gen_ai.completion" else None)
        msg: Msg = {"role": _role(role, at), "content": _text(fields.get("content"))}
        if fields.get("tool_call_id") is not None:
            msg["tool_call_id"] = str(fields["tool_call_id"])
        calls = [tool_call(c.get("id"), c.get("name"), c.get("arguments"), f"{at}.tool_calls.{m}")
                 for m, c in sorted(_indexed(fields, "tool_calls").items())]
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    return out


def _decoded(value: Any) -> Any:
    """A span event's attribute that holds JSON text (events carry only flat values)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def chat_message(raw: Any, where: str, role: str | None = None) -> Msg:
    """An OpenAI-shaped message (event bodies, ``gen_ai.prompt`` JSON)."""
    raw = _decoded(raw)
    if isinstance(raw, dict):
        raw = {k: _decoded(v) if k in ("tool_calls", "message") else v for k, v in raw.items()}
    if not isinstance(raw, dict):
        raise PlanprobeError(f"{where}: expected a message object")
    msg: Msg = {"role": _role(raw.get("role") or role, where), "content": _text(raw.get("content"))}
    calls = raw.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise PlanprobeError(f"{where}.tool_calls: expected a list")
        msg["tool_calls"] = []
        for j, c in enumerate(calls):
            fn = c.get("function") if isinstance(c, dict) else None
            if not isinstance(fn, dict):
                raise PlanprobeError(f"{where}.tool_calls[{j}].function: expected an object")
            msg["tool_calls"].append(tool_call(c.get("id"), fn.get("name"), fn.get("arguments"),
                                               f"{where}.tool_calls[{j}]"))
    call_id = raw.get("tool_call_id", raw.get("id") if msg["role"] == "tool" else None)
    if call_id is not None:
        msg["tool_call_id"] = str(call_id)
    return msg


def _from_events(events: list[Event], where: str) -> tuple[list[Msg], list[Msg]]:
    inputs: list[Msg] = []
    outputs: list[Msg] = []
    for e, event in enumerate(events):
        at = f"{where} (event {event.name or e})"
        payload = event.body if event.body is not None else event.attributes
        if event.name in MESSAGE_EVENTS:
            inputs.append(chat_message(payload if isinstance(payload, dict) else {}, at, MESSAGE_EVENTS[event.name]))
        elif event.name == "gen_ai.choice":
            if isinstance(payload, dict) and payload.get("index") in (0, None, "0"):
                outputs.append(chat_message(_decoded(payload.get("message")) or {}, at, "assistant"))
        elif event.name == "gen_ai.content.prompt" and "gen_ai.prompt" in event.attributes:
            inputs += [chat_message(m, f"{at}[{i}]") for i, m in
                       enumerate(_json_list(event.attributes["gen_ai.prompt"], at))]
        elif event.name == "gen_ai.content.completion" and "gen_ai.completion" in event.attributes:
            outputs += [chat_message(m, f"{at}[{i}]", "assistant") for i, m in
                        enumerate(_json_list(event.attributes["gen_ai.completion"], at))][:1]
        elif event.name == DETAILS_EVENT:
            if "gen_ai.input.messages" in event.attributes:
                inputs += from_parts(event.attributes["gen_ai.input.messages"], f"{at} gen_ai.input.messages")
            if "gen_ai.output.messages" in event.attributes:
                outputs += from_parts(event.attributes["gen_ai.output.messages"], f"{at} gen_ai.output.messages")[:1]
    return inputs, outputs


def llm_messages(span: Span, logs: list[Event], where: str) -> tuple[list[Msg], list[Msg]] | None:
    """(the messages sent, the reply) of a model-call span; None when its content was not captured."""
    a = span.attributes
    if "gen_ai.input.messages" in a or "gen_ai.output.messages" in a:
        system = system_instructions(a["gen_ai.system_instructions"], f"{where} gen_ai.system_instructions") \
            if "gen_ai.system_instructions" in a else []
        inputs = system + from_parts(a.get("gen_ai.input.messages", "[]"), f"{where} gen_ai.input.messages")
        return inputs, from_parts(a.get("gen_ai.output.messages", "[]"), f"{where} gen_ai.output.messages")[:1]
    if any(k.startswith(("llm.input_messages.", "llm.output_messages.")) for k in a):
        return (openinference(a, "llm.input_messages", where),
                openinference(a, "llm.output_messages", where)[:1])
    if any(k.startswith(("gen_ai.prompt.", "gen_ai.completion.")) for k in a):
        return indexed_genai(a, "gen_ai.prompt", where), indexed_genai(a, "gen_ai.completion", where)[:1]
    inputs, outputs = _from_events(sorted([*span.events, *logs], key=lambda e: e.time), where)
    if inputs or outputs:
        return inputs, outputs
    return None


def tool_execution(span: Span, where: str) -> Msg | None:
    """A tool span as one OpenAI tool call with its result: {"call": …, "result": …}; None when
    the span names no tool."""
    a = span.attributes
    name = a.get("gen_ai.tool.name", a.get("tool.name"))
    if not isinstance(name, str) or not name:
        return None
    arguments = a.get("gen_ai.tool.call.arguments", a.get("tool.parameters", a.get("input.value")))
    result = a.get("gen_ai.tool.call.result", a.get("output.value"))
    call_id = a.get("gen_ai.tool.call.id", a.get("tool_call.id"))
    return {"call": tool_call(call_id, name, arguments, f"{where} tool span"), "result": _text(result)}


def message_key(m: Msg) -> tuple[Any, ...]:
    """What makes two chat messages the same one across model calls (ids, argument spacing and
    an empty vs absent content may differ between how a reply came and how it is sent back)."""
    calls = []
    for c in m.get("tool_calls") or []:
        fn = (c.get("function") or {}) if isinstance(c, dict) else {}
        args = fn.get("arguments")
        try:
            args = json.dumps(json.loads(args), sort_keys=True) if isinstance(args, str) else args
        except (ValueError, RecursionError):
            pass
        calls.append((fn.get("name"), args))
    content = m.get("content")
    return m.get("role"), content.strip() if isinstance(content, str) else content or "", tuple(calls)


USAGE_KEYS = {
    "prompt": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"),
    "completion": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"),
}


def usage_of(span: Span) -> dict[str, tuple[str, Any]]:
    """The span's token counts as (attribute name, raw value), for the caller to check."""
    out = {}
    for kind, keys in USAGE_KEYS.items():
        for key in keys:
            if key in span.attributes:
                out[kind] = (key, span.attributes[key])
                break
    return out
