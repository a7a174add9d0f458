"""OtelSink: a live trace sink that sends a run's spans to an OpenTelemetry backend.

::

    with OtelSink("http://127.0.0.1:6006") as sink:                  # a local Phoenix
        tree.run(model=model, trace_sink=sink, email="...")
    tree.run(trace_sink=FanoutSink(JsonlTraceSink("runs.jsonl"), OtelSink()))  # both

Telemetry fails open: an exporter, a backend or a mapping that fails never fails the run it
observes; a failure is counted in ``.errors`` and reported once on stderr.
"""

from __future__ import annotations

import sys
from typing import Any

from jdsl.trace.events import TraceEvent
from jdsl.trace.otel.export import (
    DEFAULT_SERVICE_NAME,
    otlp_http_exporter,
    require_sdk,
    tracer_provider,
)
from jdsl.trace.otel.spans import SpanBuilder
from jdsl.trace.redact import Redactor
from jdsl.trace.sinks import BaseTraceSink

__all__ = ["OtelSink"]

_DEFAULT: Any = object()  # "the default redactor" (a fresh one per sink)


class OtelSink(BaseTraceSink):
    """Maps each event to OpenTelemetry spans as it is emitted (see
    :mod:`jdsl.trace.otel.spans`) and exports them in the background.

    Args:
        endpoint: an OTLP/HTTP URL (``http://127.0.0.1:6006`` for a local Phoenix); None reads
            ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_ENDPOINT``.
        exporter: any SDK ``SpanExporter`` instead of OTLP/HTTP (e.g. ``InMemorySpanExporter``).
        headers: HTTP headers for the endpoint (an API key); never traced or shown.
        capture_content: also record messages, tool arguments and results, blackboard values.
        service_name: the resource's ``service.name``.
        batch: export on a background thread (``BatchSpanProcessor``, the default) or
            synchronously as each span ends (``SimpleSpanProcessor``; tests, short scripts).
        redactor: applied to payloads before they become attributes (secret-looking strings
            and key names); ``Redactor(enabled=False)`` turns it off.
        warn: report the first failure on stderr.

    Raises:
        MissingDependencyError: the ``otel`` extra is not installed.
    """

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        exporter: Any = None,
        headers: dict[str, str] | None = None,
        capture_content: bool = False,
        service_name: str = DEFAULT_SERVICE_NAME,
        batch: bool = True,
        redactor: Redactor | None = _DEFAULT,
        warn: bool = True,
    ) -> None:
        super().__init__(redactor=Redactor() if redactor is _DEFAULT else redactor)
        require_sdk()
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

        self.exporter = exporter or otlp_http_exporter(endpoint, headers=headers)
        processor = (
            BatchSpanProcessor(self.exporter, schedule_delay_millis=500)
            if batch
            else SimpleSpanProcessor(self.exporter)
        )
        self.provider = tracer_provider(processor, service_name=service_name)
        self._builder = SpanBuilder(
            self.provider.get_tracer("jdsl"), capture_content=capture_content
        )
        self.warn = warn
        self.errors = 0
        self.last_error: BaseException | None = None

    def __repr__(self) -> str:
        return f"OtelSink(exporter={type(self.exporter).__name__}, errors={self.errors})"

    def append(self, event: TraceEvent) -> None:
        """Turn a stamped event into span starts and ends; a failure is counted, never raised."""
        try:
            self._builder.add(event)
        except Exception as exc:  # noqa: BLE001 - telemetry fails open
            self._failed(exc)

    def emit(self, event: TraceEvent) -> TraceEvent:
        """Prepare, stamp and map ``event``; returns it (as given when preparing it failed)."""
        try:
            return super().emit(event)
        except Exception as exc:  # noqa: BLE001 - telemetry fails open
            self._failed(exc)
            return event

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Export the spans that have ended; False when that did not finish in time."""
        try:
            return bool(self.provider.force_flush(int(timeout_s * 1000)))
        except Exception as exc:  # noqa: BLE001 - telemetry fails open
            self._failed(exc)
            return False

    def close(self) -> None:
        """End the spans a torn run left open, export everything, stop the exporter."""
        try:
            with self._lock:
                self._builder.close()
            self.provider.shutdown()
        except Exception as exc:  # noqa: BLE001 - telemetry fails open
            self._failed(exc)

    def __enter__(self) -> OtelSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _failed(self, exc: BaseException) -> None:
        self.errors += 1
        self.last_error = exc
        if self.warn and self.errors == 1:
            print(
                f"jdsl.trace.otel: {type(exc).__name__}: {exc}; spans may be missing, the run "
                "continues (further failures are counted in OtelSink.errors)",
                file=sys.stderr,
            )
