"""OpenTelemetry export: mapping a recorded trace to GenAI spans, and a live OtelSink's cost.

* recorded: :func:`jdsl.trace.otel.trace_spans` over 20 traced runs of the demo's retail
  teacher (the spans built by the SDK, kept in memory), against the time recording them took;
* live: one traced retail run with an ``OtelSink`` (in-memory exporter, synchronous
  processor) against the same run with a ``ListTraceSink``, as a ratio.
"""

from __future__ import annotations

from typing import Any

from bench.table import Row
from bench.timing import median_seconds

__all__ = ["measure"]

SECTION = "otel"
_RUNS = 20
_LIVE_TARGET_X = 4.0  # a run with an OtelSink vs the same run with a ListTraceSink


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
    """Two rows: mapping a recorded trace against recording it, and a live run's cost."""
    from jdsl.trace import ListTraceSink
    from jdsl.trace.otel import OtelSink, trace_spans
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    run, repeats = _runner(), 3 if quick else 7
    recorded = ListTraceSink()

    def record() -> None:
        for _ in range(_RUNS):
            run(recorded)

    recording = median_seconds(record, repeats=1, warmup=0)
    events = recorded.events
    mapping = median_seconds(lambda: trace_spans(events), repeats=repeats)
    listed = median_seconds(lambda: run(ListTraceSink()), repeats=repeats)
    live = median_seconds(
        lambda: run(OtelSink(exporter=InMemorySpanExporter(), batch=False)), repeats=repeats
    )
    return [
        Row(SECTION, f"{_RUNS} recorded retail runs -> spans ({len(events)} events)", mapping,
            peer=recording, peer_name="recording them", target="<= recording them",
            met=mapping <= recording,
            note=f"trace_spans, SDK spans in memory; {mapping / len(events) * 1e6:.0f} µs/event"),
        Row(SECTION, "a retail run with OtelSink", live, peer=listed, peer_name="ListTraceSink",
            target=f"<= {_LIVE_TARGET_X:.0f}x ListTraceSink", met=live <= _LIVE_TARGET_X * listed,
            note="in-memory exporter, synchronous processor"),
    ]  # fmt: skip
