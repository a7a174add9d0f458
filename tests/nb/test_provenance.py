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
        {
            "kind": "blackboard.write",
            "payload": {"key": "customer", "value": {"id": "C7"}, "writer": "look"},
        },
        {
            "kind": "tool.call.started",
            "payload": {
                "node_id": "list",
                "tool": {"host_name": "ls"},
                "arguments": {"customer_id": "C7", "n": 1},
            },
        },
    ]
    (record,) = provenance(events)
    assert [(c.argument, c.path) for c in record.consumers] == [("customer_id", "customer.id")]


def test_path_keys():
    assert path_keys("orders[$selected_index].id") == ["orders", "selected_index"]
    assert path_keys("") == []


def test_activity_records_become_the_events_a_traced_run_records():
    from jdsl.tree.blackboard import Read, Write

    events = events_from_activity(
        [
            Write(
                key="k",
                value=3,
                writer_id="n1",
                writer_label="act",
                previous=None,
                overwrote=False,
                sequence=4,
            ),
            Read(path="k", value=3, reader_id="n2", sequence=5),
        ]
    )
    assert events[0]["kind"] == "blackboard.write" and events[0]["payload"]["writer"] == "n1"
    assert events[1] == {
        "kind": "blackboard.read",
        "sequence": 5,
        "payload": {"path": "k", "reader": "n2", "value": 3},
    }


def test_an_untraced_runs_provenance_is_the_traced_runs() -> None:
    """The same run, read from its sink's events and from ``blackboard.activity``."""
    from jdsl import act, ref, root, seq, store
    from jdsl.trace import ListTraceSink

    def lookup(email: str) -> dict:
        return {"id": "U1", "email": email}

    def greet(customer: dict) -> str:
        return f"hi {customer['id']}"

    tree = root("p").do(
        seq(
            store(act(lookup, email=ref("email")), "customer"),
            store(act(greet, customer=ref("customer")), "greeting"),
        )
    )
    sink = ListTraceSink()
    traced = tree.run(trace_sink=sink, email="a@b.c")
    untraced = tree.run(email="a@b.c")
    events = [e.to_dict() for e in sink.events if e.kind.startswith("blackboard.")]
    from_sink = [(e["kind"], e["payload"]) for e in events]
    from_activity = [
        (e["kind"], e["payload"])  # run inputs are traced in episode.started
        for e in events_from_activity(untraced.blackboard.activity)
        if e["payload"].get("writer") != "input"
    ]
    assert from_activity == from_sink
    recorded = [e.to_dict() for e in sink.events]
    assert (
        [r.key for r in provenance(events_from_activity(traced.blackboard.activity))]
        == [r.key for r in provenance(recorded)]
        == ["email", "customer", "greeting"]
    )


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


# -- react: tool arguments chosen by the model -----------------------------------------------

REACT = "root/react.0"


def _react_events(with_reads: bool) -> list[dict]:
    """A react leaf that reads ``question`` and calls a tool with a model-chosen order id that
    happens to equal a blackboard value (``order_id``), so value matching would link it."""
    events: list[dict] = [
        {
            "kind": "episode.started",
            "payload": {
                "inputs": {"question": "Is my order pending?", "order_id": "#W7602708"},
                "ir": {
                    "kind": "root",
                    "name": "ask",
                    "child": {
                        "kind": "react",
                        "signature": "question -> answer",
                        "tools": ["get_order"],
                    },
                },
            },
        },
        {"kind": "node.enter", "payload": {"node_id": REACT, "type": "react"}},
    ]
    if with_reads:
        events.append(
            {
                "kind": "blackboard.read",
                "payload": {"path": "question", "reader": REACT, "value": "Is my order pending?"},
            }
        )
    events += [
        {
            "kind": "tool.call.started",
            "actor": "model",
            "payload": {
                "node_id": REACT,
                "store": None,
                "tool": {"host_name": "get_order"},
                "arguments": {"order_id": "#W7602708"},
            },
        },
        {"kind": "blackboard.write", "payload": {"key": "answer", "value": "yes", "writer": REACT}},
        {"kind": "node.exit", "payload": {"node_id": REACT, "type": "react", "status": "success"}},
    ]
    return events


def test_react_tool_calls_are_chosen_by_the_model_not_consumers():
    from jdsl_nb.provenance import model_choices

    events = _react_events(with_reads=True)
    records = _by_key(provenance(events))
    assert [c.describe() for c in records["question"].consumers] == [
        "read as question by root/react.0 (step 2)"
    ]
    assert records["order_id"].consumers == []  # equal value, but no read: not a consumer
    (choice,) = model_choices(events)
    assert (choice.node_id, choice.tool, dict(choice.arguments)) == (
        REACT,
        "get_order",
        {"order_id": "#W7602708"},
    )
    assert "chosen by the model @root/react.0" in choice.describe()


def test_react_tool_calls_are_not_matched_by_value_without_reads():
    records = _by_key(provenance(_react_events(with_reads=False)))
    assert records["order_id"].consumers == [] and records["question"].consumers == []


def test_an_action_in_a_trace_with_reads_is_never_linked_by_value():
    events = [
        {
            "kind": "blackboard.write",
            "payload": {"key": "customer", "value": {"id": "C7"}, "writer": "look"},
        },
        {"kind": "blackboard.read", "payload": {"path": "other", "reader": "x", "value": 1}},
        {
            "kind": "tool.call.started",
            "payload": {
                "node_id": "list",
                "tool": {"host_name": "ls"},
                "arguments": {"customer_id": "C7"},
            },
        },
    ]
    assert provenance(events)[0].consumers == []


def test_a_real_react_run_shows_the_call_as_chosen_by_the_model():
    import pytest

    text_mod = pytest.importorskip("jdsl.text")
    from jdsl.providers.messages import ModelTurn, ToolCall
    from jdsl.testing import ScriptedModel
    from jdsl.trace import ListTraceSink
    from jdsl_nb.rundata import RunData
    from jdsl_nb.views import run_html, run_text

    def get_order_details(order_id: str) -> dict:
        return {"order_id": order_id, "status": "pending"}

    root = text_mod.parse_behavior(
        'react "question -> answer" tools=[get_order_details] max_steps=3\n',
        name="ask",
        tools=[get_order_details],
    )
    model = ScriptedModel(
        ModelTurn(
            tool_calls=[
                ToolCall(id="c1", name="get_order_details", arguments={"order_id": "#W7602708"})
            ]
        ),
        "pending",
    )
    sink = ListTraceSink()
    ctx = root.run(model=model, trace_sink=sink, question="Is my order pending?")
    run = RunData.build(ctx)
    text = run_text(run)
    assert "get_order_details(...) <- question" not in text
    assert "read as question by root/react.0" in text
    assert "get_order_details(order_id='#W7602708') chosen by the model @root/react.0" in text
    assert "tool calls chosen by the model" in run_html(run)
