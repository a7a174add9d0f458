"""Export a recorded jdsl trace as OpenTelemetry spans: over OTLP/HTTP, or as OTLP JSON.

::

    export_otel("runs.jsonl", endpoint="http://127.0.0.1:6006")      # Phoenix, a collector
    export_otel(trace, exporter=InMemorySpanExporter())              # any SpanExporter
    write_otlp_json(trace_spans(trace), "runs.otlp.json")             # the OTLP file format

The command line is ``jdsl export otel TRACES.jsonl --endpoint URL`` (or ``--out FILE``).
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from jdsl.errors import JdslError, MissingDependencyError
from jdsl.trace.addresses import redact_address, redact_addresses
from jdsl.trace.atomic import write_atomic
from jdsl.trace.events import TraceEvent
from jdsl.trace.otel.spans import SpanBuilder

__all__ = [
    "DEFAULT_SERVICE_NAME",
    "OtelExportError",
    "export_otel",
    "otlp_http_exporter",
    "otlp_json",
    "require_sdk",
    "trace_spans",
    "traces_endpoint",
    "tracer_provider",
    "write_otlp_json",
]

DEFAULT_SERVICE_NAME = "jdsl"
_BATCH = 512  # spans per OTLP request
_LIMITS = ("max_attributes", "max_events", "max_links", "max_span_attributes",
           "max_event_attributes", "max_link_attributes", "max_attribute_length",
           "max_span_attribute_length")  # fmt: skip
"""Every limit of the SDK's ``SpanLimits``: :func:`tracer_provider` lifts them all."""


class OtelExportError(JdslError):
    """Spans could not be delivered to an OpenTelemetry endpoint.

    Attributes:
        endpoint: the URL the spans were sent to (None: the exporter's own target).
    """

    def __init__(self, message: str, *, endpoint: str | None = None) -> None:
        self.endpoint = endpoint
        super().__init__(message)


def require_sdk() -> None:
    """Raise :class:`MissingDependencyError` (extra ``otel``) when opentelemetry-sdk is missing."""
    try:
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        raise MissingDependencyError("opentelemetry-sdk", "otel") from None


def tracer_provider(processor: Any, *, service_name: str = DEFAULT_SERVICE_NAME) -> Any:
    """A new SDK ``TracerProvider`` (never the global one) with ``processor`` and the resource
    ``service.name`` = ``openinference.project.name`` = ``service_name`` (Phoenix files the
    spans under that project). Its spans keep every attribute and event put on them: a model
    turn's span flattens the whole conversation into attributes (hundreds in a long run), and
    the SDK's default limit (128 per span) dropped the oldest, losing calls and turns; a value
    cut to ``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`` would be broken JSON.

    Raises:
        MissingDependencyError: ``opentelemetry-sdk`` is not installed (extra ``otel``).
    """
    require_sdk()
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanLimits, TracerProvider

    resource = {"service.name": service_name, "openinference.project.name": service_name}
    unset = SpanLimits.UNSET  # no limit, whatever OTEL_SPAN_*_LIMIT / OTEL_ATTRIBUTE_* say
    limits = SpanLimits(**dict.fromkeys(_LIMITS, unset))
    provider = TracerProvider(resource=Resource.create(resource), span_limits=limits)
    provider.add_span_processor(processor)
    return provider


def trace_spans(
    events: Iterable[TraceEvent],
    *,
    capture_content: bool = False,
    service_name: str = DEFAULT_SERVICE_NAME,
) -> list[Any]:
    """The finished spans (SDK ``ReadableSpan`` s) of a recorded trace, in end order.

    Args:
        events: the trace (a :class:`~jdsl.trace.Trace`, or any events in emission order).
        capture_content: record messages, tool arguments and results (see
            :mod:`jdsl.trace.otel.attributes`).
        service_name: the resource's ``service.name`` and Phoenix project.
    """
    require_sdk()
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = tracer_provider(SimpleSpanProcessor(exporter), service_name=service_name)
    builder = SpanBuilder(provider.get_tracer("jdsl"), capture_content=capture_content)
    for event in events:
        builder.add(event)
    builder.close()
    provider.shutdown()
    return list(exporter.get_finished_spans())


def traces_endpoint(endpoint: str) -> str:
    """The OTLP/HTTP traces URL of ``endpoint``: a bare base URL gets ``/v1/traces``
    (``http://127.0.0.1:6006`` -> ``http://127.0.0.1:6006/v1/traces``); a URL with a path is
    used as given."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(endpoint)
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError as exc:  # "http://[::1" (an IPv6 host not closed), port 99999999
        raise OtelExportError(
            f"endpoint {redact_address(endpoint)!r} is not a URL ({exc}); pass one such as "
            "http://127.0.0.1:6006 or http://[::1]:4318",
            endpoint=endpoint,
        ) from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OtelExportError(
            f"endpoint {redact_address(endpoint)!r} is not an http(s) URL; pass one such as "
            "http://127.0.0.1:6006 (Phoenix) or http://127.0.0.1:4318 (a collector)",
            endpoint=endpoint,
        )
    if parts.path not in ("", "/"):
        return endpoint
    return urlunsplit(parts._replace(path="/v1/traces"))


def otlp_http_exporter(
    endpoint: str | None, *, headers: dict[str, str] | None = None, timeout_s: float = 10.0
) -> Any:
    """An ``OTLPSpanExporter`` (protobuf over HTTP) for ``endpoint`` (None: the
    ``OTEL_EXPORTER_OTLP_*`` environment, as the SDK reads it).

    Raises:
        MissingDependencyError: ``opentelemetry-exporter-otlp-proto-http`` is not installed.
    """
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        raise MissingDependencyError("opentelemetry-exporter-otlp-proto-http", "otel") from None
    url = traces_endpoint(endpoint) if endpoint else None
    if url is not None and redact_address(url) != url:
        _hide_in_sdk_logs(url)
    return OTLPSpanExporter(endpoint=url, headers=headers, timeout=timeout_s)


_SDK_LOGGERS = (
    "opentelemetry.exporter.otlp.common.http",
    "opentelemetry.exporter.otlp.proto.http._common",
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
)
"""The loggers whose lines (retries, failures) may quote the endpoint's path and query."""


class _AddressFilter(logging.Filter):
    """Rewrites a log line so it never shows the credentials of one endpoint."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        clean = redact_addresses(text, [self.address])
        if clean != text:
            record.msg, record.args = clean, ()
        return True


def _hide_in_sdk_logs(url: str) -> None:
    """Make the OTLP exporter's own log lines hide ``url``'s credentials (once per URL)."""
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _AddressFilter) and f.address == url for f in logger.filters):
            logger.addFilter(_AddressFilter(url))


def export_otel(
    events: Iterable[TraceEvent] | str | os.PathLike[str],
    *,
    endpoint: str | None = None,
    exporter: Any = None,
    headers: dict[str, str] | None = None,
    capture_content: bool = False,
    service_name: str = DEFAULT_SERVICE_NAME,
    timeout_s: float = 10.0,
) -> int:
    """Send a recorded trace to an OpenTelemetry backend; returns the number of spans sent.

    Args:
        events: a :class:`~jdsl.trace.Trace`, events in order, or the path of a JSONL trace.
        endpoint: an OTLP/HTTP URL (``http://127.0.0.1:6006`` for a local Phoenix); None reads
            ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_ENDPOINT``.
        exporter: any SDK ``SpanExporter`` instead (e.g. ``InMemorySpanExporter``).
        headers: HTTP headers for the endpoint (e.g. an API key); never logged.
        capture_content: also send messages, tool arguments and results.
        service_name: the resource's ``service.name``.
        timeout_s: seconds per OTLP request.

    Raises:
        OtelExportError: the backend refused the spans or could not be reached.
        MissingDependencyError: the ``otel`` extra is not installed.
    """
    from jdsl.trace.collection import Trace, read_events

    if isinstance(events, str | os.PathLike):
        events = read_events(events)
    if capture_content and isinstance(events, Trace) and events.blob_store is not None:
        events = events.hydrated()  # the content is the values, not their blob markers
    spans = trace_spans(events, capture_content=capture_content, service_name=service_name)
    target = exporter or otlp_http_exporter(endpoint, headers=headers, timeout_s=timeout_s)
    try:
        for start in range(0, len(spans), _BATCH):
            _send(target, spans[start : start + _BATCH], endpoint)
    finally:
        if exporter is None:
            target.shutdown()
    return len(spans)


def _send(exporter: Any, spans: Sequence[Any], endpoint: str | None) -> None:
    from opentelemetry.sdk.trace.export import SpanExportResult

    if exporter.export(spans) is not SpanExportResult.SUCCESS:
        where = redact_address(endpoint) if endpoint else "the OTEL_EXPORTER_OTLP_ENDPOINT"
        raise OtelExportError(
            f"{where} did not accept {len(spans)} spans; check that the backend is running "
            "there and speaks OTLP over HTTP (start a local one with `phoenix serve`), or "
            "write them to a file with --out",
            endpoint=endpoint,
        )


def otlp_json(spans: Sequence[Any]) -> dict[str, Any]:
    """Spans as one OTLP JSON ``ExportTraceServiceRequest`` (``{"resourceSpans": [...]}``),
    with hex trace and span ids as the OTLP JSON encoding requires."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    document = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource in document.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
    return document


def write_otlp_json(spans: Sequence[Any], path: str | os.PathLike[str]) -> Path:
    """Write spans as OTLP JSON lines (one request per line, what the OpenTelemetry
    Collector's file exporter writes), atomically: a temp file, then a rename."""
    text = json.dumps(otlp_json(spans), sort_keys=True, separators=(",", ":")) + "\n"
    return write_atomic(path, text.encode("utf-8"))
