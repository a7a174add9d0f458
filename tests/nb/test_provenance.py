"""Blackboard provenance and the timeline, from contract-shaped events."""

from __future__ import annotations

from jdsl_nb.provenance import events_from_activity, path_keys, provenance
from jdsl_nb.timeline import blackboard_at, event_summary, node_spans


def _by_key(records):
    return {r.key: r for r in records}


def test_every_write_has_writer_previous_and_step(run_events):
    records = _by_key(provenance(run_events))
    assert records["email"].writer == "input"
    assert records["customer"].writer == "root/sequence.0/action.0"
    assert records["selected_index"].writer == "resolve_target"
    assert records["customer"].step < records["orders"].step


def test_consumers_name_the_tool_argument_the_value_fed(run_events):
    records = _by_key(provenance(run_events))
    fed = [(c.tool, c.argument, c.path) for c in records["customer"].consumers]
    assert fed == [("list_orders", "customer_id", "customer.id")]
    index_uses = [(c.tool, c.argument) for c in records["selected_index"].consumers]
    assert ("cancel", "order_id") in index_uses  # a $name index is a use too
    assert records["receipt"].consumers == []


def test_reads_without_a_tool_call_are_kept_as_reads(run_events):
    records = _by_key(provenance(run_events))
    reads = [c for c in records["request"].consumers if c.tool is None]
    assert reads and reads[0].node_id == "resolve_target"
    assert "read as request by resolve_target" in reads[0].describe()


def test_overwrite_by_another_writer_keeps_the_previous_value():
    events = [
        {"kind": "blackboard.write", "payload": {"key": "k", "value": 1, "writer": "a"}},
        {"kind": "blackboard.write", "payload": {"key": "k", "value": 2, "writer": "b"}},
    ]
    first, second = provenance(events)
    assert (first.overwrote, second.overwrote, second.previous) == (False, True, 1)


def test_without_read_events_values_are_matched_exactly():
    events = [
        {"kind": "blackboard.write", "payload": {"key": "customer", "value": {"id": "C7"},
                                                 "writer": "look"}},
        {"kind": "tool.call.started", "payload": {"node_id": "list", "tool": {"host_name": "ls"},
                                                  "arguments": {"customer_id": "C7", "n": 1}}},
    ]
    (record,) = provenance(events)
    assert [(c.argument, c.path) for c in record.consumers] == [("customer_id", "customer.id")]


def test_path_keys():
    assert path_keys("orders[$selected_index].id") == ["orders", "selected_index"]
    assert path_keys("") == []


def test_activity_records_become_events():
    class Write:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    events = events_from_activity([Write(key="k", value=3, writer_id="n1", writer_label="act",
                                         previous=None, overwrote=False, sequence=4)])
    assert events[0]["kind"] == "blackboard.write" and events[0]["payload"]["writer"] == "n1"


def test_blackboard_as_of_a_step(run_events):
    records = provenance(run_events)
    assert set(blackboard_at(records, 0)) == {"email", "request"}
    assert "receipt" in blackboard_at(records, len(run_events) - 1)


def test_node_spans_and_summaries(run_events):
    spans = node_spans(run_events)
    assert list(spans)[0] == "root"
    assert spans["resolve_target"][0].status == "success"
    started = next(e for e in run_events if e["kind"] == "tool.call.started")
    assert event_summary(started).startswith("call lookup(")
    assert event_summary({"kind": "unknown.kind"}) == "unknown.kind"
