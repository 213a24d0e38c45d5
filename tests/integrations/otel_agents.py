"""Agents as a production team would write them, acting on a case through their own tools (the
case's environment stands in for the real systems), traced by the real instrumentation
packages into OTLP/JSON files; shared by the OpenTelemetry tests."""

from __future__ import annotations

import contextlib
import json
import sys
import types
import warnings

from planprobe.environment import Limits
from planprobe.suites.registry import get_family


def environment(case):
    return get_family(case.family).environment(case, Limits(), 0, "production")


def tracer_provider(path):
    """An SDK tracer provider exporting every span to ``path`` as OTLP/JSON lines."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from planprobe.integrations.otel_exporter import OtlpJsonFileExporter

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OtlpJsonFileExporter(str(path))))
    return provider


def openai_agent(client, case, env, budget=None):
    """A plain tool-calling loop on the OpenAI client; ``budget``: it stops after that many tool
    calls (the deliberately wrong agent), without running the calls the model asks for next."""
    tools = [{"type": "function", "function": t.model_dump()} for t in case.tools]
    messages = [{"role": "user", "content": case.task}]
    for _ in range(20):
        reply = client.chat.completions.create(model="solver", messages=messages, tools=tools)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            if budget is not None and len(env.trace.tool_calls) >= budget:
                return None
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": env.call(call.function.name, call.function.arguments)})
    return None


def langgraph_agent(case, env, base_url):
    """LangGraph's prebuilt ReAct agent on ChatOpenAI, with tools of its own that act on ``env``."""
    from langchain_core.tools import StructuredTool
    from langchain_openai import ChatOpenAI

    def tool(spec):
        def run(**arguments):
            return env.call(spec.name, json.dumps(arguments))

        return StructuredTool.from_function(func=run, name=spec.name, description=spec.description,
                                            args_schema=spec.parameters)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in favour of langchain.agents.create_agent (not installed)
        from langgraph.prebuilt import create_react_agent

        graph = create_react_agent(ChatOpenAI(model="solver", base_url=base_url, api_key="unused", max_retries=0),
                                   [tool(t) for t in case.tools])

    return graph.invoke({"messages": [("user", case.task)]})


@contextlib.contextmanager
def openai_v2_instrumented(provider, monkeypatch):
    """``opentelemetry-instrumentation-openai-v2`` on the OpenAI client, capturing message content
    in the current GenAI conventions (gen_ai.input.messages / gen_ai.output.messages on the span).

    The installed instrumentation (2.4b0) was built against an older ``opentelemetry-util-genai``
    API than the one installed with it (1.3b0 renamed ``instruments`` and
    ``TelemetryHandler.start_inference``); when that is so, the two names are given their new
    equivalents here, and the instrumentation's own code does the rest."""
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
    _shim_util_genai(monkeypatch)
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield
    finally:
        instrumentor.uninstrument()


def _shim_util_genai(monkeypatch):
    """Map the two util-genai names the installed instrumentation still uses to their new equivalents."""
    try:
        import opentelemetry.util.genai.instruments  # noqa: F401
    except ImportError:
        from opentelemetry.util.genai._instruments import _Instruments

        shim = types.ModuleType("opentelemetry.util.genai.instruments")
        shim.create_duration_histogram = lambda meter: _Instruments(meter).operation_duration  # type: ignore[attr-defined]
        shim.create_token_histogram = lambda meter: _Instruments(meter).token_usage  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, shim.__name__, shim)
    from opentelemetry.util.genai.handler import TelemetryHandler

    if not hasattr(TelemetryHandler, "start_inference"):
        monkeypatch.setattr(TelemetryHandler, "start_inference", TelemetryHandler.inference, raising=False)


@contextlib.contextmanager
def openinference_langchain(provider):
    from openinference.instrumentation.langchain import LangChainInstrumentor

    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield
    finally:
        instrumentor.uninstrument()


@contextlib.contextmanager
def openai_v2_legacy_events(provider, log_path, monkeypatch):
    """The same instrumentation's v1.30 path: a span per call, each message a log record
    (``gen_ai.user.message`` …, ``gen_ai.choice``) with content (CAPTURE_MESSAGE_CONTENT=true).
    The installed opentelemetry-util-genai always reports the experimental mode, so the legacy
    wrapper is applied as the instrumentor applies it; the log records go to ``log_path`` as
    OTLP/JSON (the SDK's log encoder) when the block ends."""
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    _shim_util_genai(monkeypatch)
    import openai
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.instrumentation.openai_v2.instruments import Instruments
    from opentelemetry.instrumentation.openai_v2.patch import (
        chat_completions_create_v_old,
    )
    from opentelemetry.instrumentation.utils import unwrap
    from opentelemetry.metrics import get_meter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import (
        InMemoryLogRecordExporter,
        SimpleLogRecordProcessor,
    )
    from wrapt import wrap_function_wrapper

    from planprobe.integrations.otel_exporter import hex_ids

    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    wrap_function_wrapper("openai.resources.chat.completions", "Completions.create", chat_completions_create_v_old(
        provider.get_tracer("opentelemetry.instrumentation.openai_v2"),
        logger_provider.get_logger("opentelemetry.instrumentation.openai_v2"), Instruments(get_meter("test")), True))
    try:
        yield
    finally:
        unwrap(openai.resources.chat.completions.Completions, "create")
    data = MessageToDict(encode_logs(logs.get_finished_logs()), use_integers_for_enums=True)
    hex_ids(data)
    with open(log_path, "a", encoding="utf-8") as f:
        f.write(json.dumps(data) + "\n")
