"""OpenTelemetry export: mapping a recorded trace to GenAI spans, and a live OtelSink's cost.

* recorded: :func:`jdsl.trace.otel.trace_spans` over 20 traced runs of the demo's retail
  teacher (the spans built by the SDK, kept in memory), per event;
* live: one traced retail run with an ``OtelSink`` (in-memory exporter, synchronous
  processor) against the same run with a ``ListTraceSink``, as a ratio.
"""

from __future__ import annotations

from typing import Any

from bench.table import Row
from bench.timing import median_seconds

__all__ = ["measure"]

SECTION = "otel"
_EVENTS_TARGET_S = 50e-6  # per event mapped to spans
_LIVE_TARGET_X = 4.0  # an OtelSink run vs a ListTraceSink run


def _runner() -> Any:
    from jdsl.demo.family import cancel_tasks, task_inputs
    from jdsl.demo.teacher import GoldChoice, offline_teacher, teacher_tree
    from jdsl.envs.tau_retail import RetailEnv, tree_tools

    tree, task = teacher_tree(), cancel_tasks()[0]
    model, inputs = offline_teacher(GoldChoice.of(task)), task_inputs(task)

    def run(sink: Any) -> Any:
        return tree.run(model=model, trace_sink=sink, tools=tree_tools(RetailEnv()), **inputs)

    return run


def measure(*, quick: bool) -> list[Row]:
    """Two rows: per-event mapping time and the live sink's ratio to a list sink."""
    from jdsl.trace import ListTraceSink
    from jdsl.trace.otel import OtelSink, trace_spans
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    run, repeats = _runner(), 3 if quick else 7
    recorded = ListTraceSink()
    for _ in range(20):
        run(recorded)
    events = recorded.events
    per_event = median_seconds(lambda: trace_spans(events), repeats=repeats) / len(events)
    listed = median_seconds(lambda: run(ListTraceSink()), repeats=repeats)
    live = median_seconds(
        lambda: run(OtelSink(exporter=InMemorySpanExporter(), batch=False)), repeats=repeats
    )
    return [
        Row(SECTION, f"recorded trace -> spans, per event ({len(events)} events)", per_event,
            target=f"<= {_EVENTS_TARGET_S * 1e6:.0f} µs", met=per_event <= _EVENTS_TARGET_S,
            note="trace_spans: SDK spans kept in memory"),
        Row(SECTION, "retail run with OtelSink vs ListTraceSink", live / listed, unit="x",
            peer=listed, peer_name="ListTraceSink run (s)", target=f"<= {_LIVE_TARGET_X:.0f}x",
            met=live / listed <= _LIVE_TARGET_X, note="in-memory exporter, synchronous processor"),
    ]  # fmt: skip
