"""OTLP/JSON read by hand-written spans: each convention's form gives the same calls, history
repeated across model-call spans is read once, runs map to cases by attribute or task, and
malformed files are one FILE:LINE error naming the field."""

from __future__ import annotations

import base64
import json

import pytest

from helpers import cases
from planprobe.errors import PlanprobeError
from planprobe.integrations.otel_runs import read_otel_traces
from planprobe.serve.replay import read_traces

TRACE = "5b8efff798038103d269b633813fc60c"
OTHER = "0af7651916cd43dd8448eb211c80319c"


def attrs(**values):
    out = []
    for key, value in values.items():
        key = key.replace("__", ".")
        if isinstance(value, bool):
            v = {"boolValue": value}
        elif isinstance(value, int):
            v = {"intValue": str(value)}
        else:
            v = {"stringValue": value if isinstance(value, str) else json.dumps(value)}
        out.append({"key": key, "value": v})
    return out


def any_value(value):
    """A Python value as an OTLP AnyValue (dicts as kvlists, as the SDK writes log bodies)."""
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": any_value(v)} for k, v in value.items()]}}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    if isinstance(value, int):
        return {"intValue": value}
    return {"stringValue": value}


def span(n, attributes, trace=TRACE, parent="", name="chat", events=None):
    sp = {"traceId": trace, "spanId": f"{n:016x}", "name": name, "startTimeUnixNano": str(1000 + n),
          "endTimeUnixNano": str(2000 + n), "attributes": attributes}
    if parent:
        sp["parentSpanId"] = parent
    if events:
        sp["events"] = events
    return sp


def request(*spans, logs=None):
    out = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "t"},
                                                                             "spans": list(spans)}]}]}
    if logs:
        out["resourceLogs"] = [{"scopeLogs": [{"logRecords": logs}]}]
    return out


def write(tmp_path, *lines, name="spans.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.fixture
def case():
    return cases(1, seed=5, actions=(3, 3))[0]


def names(case):
    return [t.name for t in case.tools]


def tool_calls(messages):
    return [c["function"]["name"] for m in messages for c in m.get("tool_calls") or []]


def call_part(i, name):
    return {"type": "tool_call", "id": f"c{i}", "name": name, "arguments": {}}


def genai_spans(case):
    """Current GenAI form: each chat span carries the whole history."""
    history = [{"role": "user", "parts": [{"type": "text", "content": case.task}]}]
    spans = []
    for i, name in enumerate([*names(case), None]):
        reply = {"role": "assistant", "parts": [call_part(i, name) if name else {"type": "text", "content": "done"}]}
        spans.append(span(i + 1, attrs(gen_ai__operation__name="chat", gen_ai__input__messages=history,
                                       gen_ai__output__messages=[reply], gen_ai__usage__input_tokens=10 + i,
                                       gen_ai__usage__output_tokens=2)))
        history = [*history, reply, {"role": "tool", "parts": [{"type": "tool_call_response", "id": f"c{i}",
                                                                   "response": "ok"}]}]
    return spans


def test_the_current_genai_form_reads_each_call_once_in_order(tmp_path, case):
    path = write(tmp_path, request(*genai_spans(case)))
    (rec,) = read_otel_traces(path, {case.id: case})  # no case id: found by its task
    assert rec.case_id == case.id and tool_calls(rec.messages) == names(case)
    assert [m["role"] for m in rec.messages] == ["user"] + ["assistant", "tool"] * 3 + ["assistant"]
    assert rec.usage.model_calls == 4 and rec.usage.prompt_tokens == 10 + 11 + 12 + 13


def test_a_single_document_with_base64_ids_and_spans_out_of_order(tmp_path, case):
    spans = genai_spans(case)[::-1]
    for sp in spans:
        sp["traceId"] = base64.b64encode(bytes.fromhex(sp["traceId"])).decode()
        sp["spanId"] = base64.b64encode(bytes.fromhex(sp["spanId"])).decode()
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(request(*spans), indent=2))
    (rec,) = read_traces(path, {case.id: case})  # --format auto finds OTLP/JSON
    assert tool_calls(rec.messages) == names(case) and rec.meta["otel_trace_id"] == TRACE


def test_openinference_indexed_messages_and_nested_llm_spans(tmp_path, case):
    a, b, c = names(case)
    base = {"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": case.task}
    first = {**base, "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.tool_calls.0.tool_call.id": "x",
             "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": a,
             "llm.output_messages.0.message.tool_calls.1.tool_call.function.name": b,
             "llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments": "{}",
             "llm.token_count.prompt": 7}
    second = {**base, "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
              "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": c,
              "llm.input_messages.1.message.role": "assistant",
              "llm.input_messages.1.message.tool_calls.0.tool_call.function.name": a,
              "llm.input_messages.1.message.tool_calls.1.tool_call.function.name": b,
              "llm.input_messages.1.message.tool_calls.1.tool_call.function.arguments": "{ }",
              "llm.input_messages.2.message.role": "tool", "llm.input_messages.2.message.content": "ok",
              "llm.input_messages.3.message.role": "tool", "llm.input_messages.3.message.content": "ok"}
    third = {**base, "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": "done"}
    root = span(1, attrs(**{"openinference.span.kind": "CHAIN", **base}), name="LangGraph")
    # a CHAIN span with input messages is no model call; an LLM span inside an LLM span is the same call
    inner = span(9, attrs(gen_ai__operation__name="chat", gen_ai__input__messages=[]), parent=f"{2:016x}")
    path = write(tmp_path, request(root, span(2, attrs(**first), parent=f"{1:016x}"), inner,
                                   span(3, attrs(**second), parent=f"{1:016x}"),
                                   span(4, attrs(**third), parent=f"{1:016x}")))
    (rec,) = read_otel_traces(path, {case.id: case})
    assert tool_calls(rec.messages) == [a, b, c] and rec.usage.model_calls == 3 and rec.usage.prompt_tokens == 7
    assert rec.messages[-1] == {"role": "assistant", "content": "done"}


def test_older_genai_forms_events_logs_and_indexed_prompts(tmp_path, case):
    a, b, c = names(case)
    # the indexed gen_ai.prompt.N / gen_ai.completion.N attributes
    indexed = span(1, attrs(gen_ai__prompt__0__role="user", gen_ai__prompt__0__content=case.task,
                            **{"gen_ai.completion.0.tool_calls.0.name": a, "gen_ai.completion.0.tool_calls.0.id": "1"}))
    # one event per message, as span events
    events = [{"name": "gen_ai.user.message", "timeUnixNano": "1", "attributes": attrs(content=case.task)},
              {"name": "gen_ai.assistant.message", "timeUnixNano": "2",
               "attributes": attrs(tool_calls=[{"id": "1", "type": "function", "function": {"name": a,
                                                                                            "arguments": "{}"}}])},
              {"name": "gen_ai.tool.message", "timeUnixNano": "3", "attributes": attrs(id="1", content="ok")},
              {"name": "gen_ai.choice", "timeUnixNano": "4", "attributes": attrs(
                  index=0, message={"role": "assistant", "tool_calls": [
                      {"id": "2", "type": "function", "function": {"name": b, "arguments": "{}"}}]})}]
    evented = span(2, attrs(gen_ai__system="openai"), events=events)  # v1.26: no gen_ai.operation.name yet
    # as log records of the span (the OpenAI v2 instrumentation's legacy path)
    third = span(3, attrs(gen_ai__operation__name="chat"))
    history = [("gen_ai.user.message", {"content": case.task}),
               ("gen_ai.assistant.message", {"tool_calls": [{"id": "1", "type": "function",
                                                             "function": {"name": a, "arguments": "{}"}}]}),
               ("gen_ai.tool.message", {"id": "1", "content": "ok"}),
               ("gen_ai.assistant.message", {"tool_calls": [{"id": "2", "type": "function",
                                                             "function": {"name": b, "arguments": "{}"}}]}),
               ("gen_ai.tool.message", {"id": "2", "content": "ok"}),
               ("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
                "tool_calls": [{"id": "3", "type": "function", "function": {"name": c, "arguments": "{}"}}]}})]
    logs = [{"timeUnixNano": str(10 + i), "traceId": TRACE, "spanId": f"{3:016x}", "eventName": name,
             "body": any_value(body)} for i, (name, body) in enumerate(history)]
    path = write(tmp_path, request(indexed, evented, third, logs=logs))
    (rec,) = read_otel_traces(path, {case.id: case})
    # the last reply asks for c and nothing answers it: the run ended before c ran
    assert tool_calls(rec.messages) == [a, b]
    assert rec.usage.model_calls == 3


def test_runs_map_to_cases_by_attribute_resource_or_task(tmp_path):
    two = cases(2, seed=6, actions=(3, 3))
    by_id = {c.id: c for c in two}
    named = genai_spans(two[0])
    named[2]["attributes"] += attrs(planprobe__case_id=two[1].id)  # the attribute wins over the task
    other = [dict(s, traceId=OTHER) for s in genai_spans(two[0])]
    path = write(tmp_path, request(*named), request(*other))
    recs = read_otel_traces(path, by_id)
    assert [r.case_id for r in recs] == [two[1].id, two[0].id] and [r.line for r in recs] == [1, 2]


@pytest.mark.parametrize("content, expected", [
    ("not json {", "spans.jsonl:2: not valid JSON"),
    ("[1]", "spans.jsonl:2: expected an OTLP export request"),
    (json.dumps({"resourceSpans": {}}), "spans.jsonl:2: resourceSpans: expected a list"),
    (json.dumps(request({**span(1, []), "traceId": "xyz"})),
     "spans.jsonl:2: resourceSpans[0].scopeSpans[0].spans[0].traceId: expected a 16-byte id"),
    (json.dumps(request({**span(1, []), "spanId": None})), "spans[0].spanId: expected a 8-byte id"),
    (json.dumps(request(span(1, [{"key": "a", "value": {"intValue": "x"}}]))), "(a).intValue: expected an integer"),
    (json.dumps(request(span(1, [{"key": "a", "value": {"weird": 1}}]))), "unknown AnyValue kind 'weird'"),
    (json.dumps(request(span(1, [{"value": {}}]))), "attributes[0].key: expected a string"),
    (json.dumps(request(span(1, attrs(gen_ai__input__messages="[{")))),
     "spans.jsonl:2: span 'chat' gen_ai.input.messages: not valid JSON"),
    (json.dumps(request(span(1, attrs(gen_ai__input__messages=[{"role": "robot", "parts": []}])))),
     "gen_ai.input.messages[0]: role: expected system"),
    (json.dumps(request(span(1, attrs(gen_ai__input__messages=[{"role": "user", "parts": {}}])))),
     "gen_ai.input.messages[0].parts: expected a list"),
    (json.dumps(request(span(1, attrs(gen_ai__output__messages=[{"role": "assistant", "parts": [
        {"type": "tool_call", "name": 5}]}])))), "parts[0]: tool call name: expected a string"),
    (json.dumps(request(span(1, attrs(gen_ai__operation__name="chat", gen_ai__request__model="m")))),
     "its model calls carry no messages and it has no tool spans"),
    (json.dumps(request(span(1, attrs(gen_ai__input__messages=[], planprobe__case_id="nope")))),
     "planprobe.case_id: no case 'nope' in the suite"),
    (json.dumps(request(span(1, attrs(gen_ai__input__messages=[
        {"role": "user", "parts": [{"type": "text", "content": "something else"}]}])))),
     "its first user message is no case's task"),
    (json.dumps(request(span(1, attrs(gen_ai__usage__input_tokens=-3, gen_ai__input__messages=[],
                                      planprobe__case_id="x")))), "gen_ai.usage.input_tokens: expected a whole"),
    (json.dumps(request(span(1, attrs(planprobe__case_id="a", gen_ai__input__messages=[])),
                        span(2, attrs(planprobe__case_id="b")))), "planprobe.case_id: 'b' in a trace"),
    (json.dumps(request(span(1, attrs(gen_ai__input__messages=[], planprobe__status="exploded")))),
     "planprobe.status: expected one of completed"),
    (json.dumps(request(span(1, attrs(gen_ai__input__messages=[], planprobe__status="timeout",
                                      planprobe__errors="{")))), "planprobe.errors: expected a JSON list"),
])
def test_malformed_files_are_one_line_naming_file_line_and_field(tmp_path, case, content, expected):
    good = [dict(s, traceId=OTHER) for s in genai_spans(case)]  # a readable run before the bad line
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(request(*good)) + "\n" + content + "\n")
    with pytest.raises(PlanprobeError) as err:
        read_traces(path, {case.id: case}, "otel")
    message = str(err.value)
    assert expected in message and "\n" not in message, message
    assert str(path) in message or "spans.jsonl" in message


def test_a_file_without_agent_runs_says_so(tmp_path, case):
    path = write(tmp_path, request(span(1, attrs(http__method="GET"), name="GET /")))
    with pytest.raises(PlanprobeError, match="spans.jsonl: no agent runs in the file"):
        read_traces(path, {case.id: case}, "otel")


def test_a_pretty_printed_document_with_a_syntax_error_names_its_line(tmp_path, case):
    path = tmp_path / "doc.json"
    path.write_text('{\n  "resourceSpans": [\n    {,\n  ]\n}\n')
    with pytest.raises(PlanprobeError, match=r"doc.json:3: not valid JSON"):
        read_traces(path, {case.id: case})


def test_a_file_of_another_format_under_format_otel_is_refused(tmp_path, case):
    path = write(tmp_path, {"case_id": case.id, "messages": []})
    with pytest.raises(PlanprobeError, match="spans.jsonl:1: expected an OTLP export request"):
        read_traces(path, {case.id: case}, "otel")
    with pytest.raises(PlanprobeError, match="expected a trace in the planprobe format"):
        read_traces(path, {case.id: case}, "planprobe")
    (rec,) = read_traces(path, {case.id: case})  # auto: the OpenAI chat format, as before
    assert rec.kind == "openai"


def test_calls_of_the_last_reply_count_only_where_a_tool_span_shows_them_run(tmp_path, case):
    *spans, _done = genai_spans(case)  # the run ends on the reply asking for the third call
    ran = span(20, attrs(gen_ai__operation__name="execute_tool", gen_ai__tool__name=names(case)[2]), name="tool")
    stopped = write(tmp_path, request(*spans), name="stopped.jsonl")
    crashed_after = write(tmp_path, request(*spans, ran), name="ran.jsonl")
    assert tool_calls(read_otel_traces(stopped, {case.id: case})[0].messages) == names(case)[:2]
    assert tool_calls(read_otel_traces(crashed_after, {case.id: case})[0].messages) == names(case)
