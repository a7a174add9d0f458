"""OpenTelemetry out of jdsl traces: GenAI semantic-convention spans, live or recorded.

* :class:`OtelSink` — a trace sink for runs (``tree.run(trace_sink=OtelSink(url))``) that never
  fails the run it observes;
* :func:`export_otel` — send a recorded trace (a :class:`~jdsl.trace.Trace` or a JSONL file) to
  an OTLP/HTTP endpoint or any SDK exporter; :func:`trace_spans` / :func:`write_otlp_json` give
  the spans and their OTLP JSON file form.

The mapping (one ``invoke_agent`` span per episode, a span per tree node, ``chat {model}`` and
``execute_tool {name}`` spans) is :mod:`jdsl.trace.otel.spans` and
:mod:`jdsl.trace.otel.attributes`. Needs the ``otel`` extra (``pip install 'jdsl[otel]'``);
importing this package does not import OpenTelemetry.
"""

from jdsl.trace.otel.export import (
    DEFAULT_SERVICE_NAME,
    OtelExportError,
    export_otel,
    otlp_json,
    trace_spans,
    traces_endpoint,
    write_otlp_json,
)
from jdsl.trace.otel.sink import OtelSink
from jdsl.trace.otel.spans import SpanBuilder

__all__ = [
    "DEFAULT_SERVICE_NAME",
    "OtelExportError",
    "OtelSink",
    "SpanBuilder",
    "export_otel",
    "otlp_json",
    "trace_spans",
    "traces_endpoint",
    "write_otlp_json",
]
