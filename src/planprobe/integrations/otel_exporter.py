"""An OpenTelemetry SDK span exporter that appends OTLP/JSON to a file (the ``otel`` extra).

Python's SDK ships OTLP exporters over the network only; add this one to your tracer provider
to record an agent's spans for ``planprobe check --format otel``::

    provider.add_span_processor(SimpleSpanProcessor(OtlpJsonFileExporter("traces.jsonl")))

Each export is one ``ExportTraceServiceRequest`` a line, encoded by the SDK's own OTLP
encoder (``opentelemetry-exporter-otlp-proto-common``) and protobuf's JSON mapping, with the
ids turned to hex as the OTLP/JSON spec writes them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from .otlp_json import span_id_hex

ID_FIELDS = {"traceId": 16, "spanId": 8, "parentSpanId": 8}


def hex_ids(node: Any) -> None:
    """protobuf's JSON writes bytes as base64; OTLP/JSON wants the ids in hex."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ID_FIELDS and isinstance(value, str) and value:
                node[key] = span_id_hex(value, ID_FIELDS[key], key)
            else:
                hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids(item)


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """Finished spans as one OTLP/JSON export request."""
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]  # no stubs installed

    data = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    hex_ids(data)
    return data


class OtlpJsonFileExporter(SpanExporter):
    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if not spans:
            return SpanExportResult.SUCCESS
        line = json.dumps(otlp_json(spans), ensure_ascii=False) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
