"""A for_each in the drawing, the step debugger and the provenance views: its passes show."""

from __future__ import annotations

from typing import Any

import pytest
from jdsl.drawing import NODE_STYLE, drawing_label, node_statuses, structural_ids, tree_dot
from jdsl.text import parse_behavior
from jdsl.trace import ListTraceSink
from jdsl_nb.provenance import events_from_activity, provenance
from jdsl_nb.rundata import RunData
from jdsl_nb.stepping import JUMP_KINDS, StepIndex
from jdsl_nb.timeline import event_summary, node_spans
from jdsl_nb.views import provenance_html
from jdsl_nb.widgets import RunView

TEXT = (
    "seq\n"
    "  for_each order_id in user.orders collect=order -> orders\n"
    "    act get_order(order_id=order_id) -> order\n"
    "  act summarize(orders=orders)\n"
)
LOOP = "root/sequence.0/for_each.0"
GET = "root/sequence.0/for_each.0/action.0"


def get_order(order_id: str) -> dict[str, Any]:
    return {"id": order_id}


def summarize(orders: list) -> int:
    return len(orders)


def run(count: int = 3) -> tuple[Any, list[dict[str, Any]]]:
    tree = parse_behavior(TEXT).bind(tools=[get_order, summarize])
    sink = ListTraceSink()
    ctx = tree.run(trace_sink=sink, user={"orders": [f"#W{i}" for i in range(count)]})
    return ctx, [e.to_dict() for e in sink.events]


def test_the_drawing_labels_the_loop_as_its_text_line():
    ir = parse_behavior(TEXT).to_ir()
    assert drawing_label(ir["child"]["children"][0]) == (
        "for_each order_id in user.orders collect=order -> orders"
    )
    assert "for_each" in NODE_STYLE
    dot = tree_dot(ir)
    assert "for_each order_id in" in dot and "jdsl-for_each" in dot
    assert structural_ids(ir)[id(ir["child"]["children"][0]["child"])] == GET


def test_the_run_colours_the_loop_and_its_child_by_their_last_status():
    _, events = run()
    statuses = node_statuses(events)
    assert statuses[LOOP] == "success" and statuses[GET] == "success"
    assert len(node_spans(events)[GET]) == 3  # one span per pass


def test_the_step_debugger_jumps_from_pass_to_pass():
    _, events = run()
    assert "loop pass" in JUMP_KINDS
    index = StepIndex.build(events)
    passes = index.jumps["loop pass"]
    assert len(passes) == 3 and set(passes) <= set(index.jumps["write"])
    assert index.jump("loop pass", passes[0], 1) == passes[1]
    assert index.jump("loop pass", passes[2], -1) == passes[1]
    assert index.state(passes[1])[1] == LOOP  # the item write belongs to the loop
    assert [event_summary(events[step]) for step in passes] == [
        f"order_id = #W{i} (pass {i}, from user.orders[{i}])" for i in range(3)
    ]


def test_the_run_view_offers_the_pass_jump():
    _, events = run()
    view = RunView(events)
    view.jump_kind.value = "loop pass"
    following = [b for b in view.children[2].children[1].children if hasattr(b, "on_click")][1]
    view.slider.value = 0
    following.click()
    assert view.slider.value == StepIndex.build(events).jumps["loop pass"][0]


def test_provenance_names_the_pass_and_the_element_of_each_item_write():
    ctx, events = run(2)
    for records in (provenance(events), provenance(events_from_activity(ctx.blackboard.activity))):
        items = [r for r in records if r.key == "order_id"]
        assert [(r.writer, r.source, r.index) for r in items] == [
            (LOOP, "user.orders[0]", 0), (LOOP, "user.orders[1]", 1)]  # fmt: skip
        assert items[1].pass_text() == "pass 1, from user.orders[1]"
        assert not any(r.overwrote for r in items)  # the loop rewriting its own key
    records = provenance(events)
    html = provenance_html(records)
    assert "pass 0, from user.orders[0]" in html and "pass 1, from user.orders[1]" in html
    first = next(r for r in records if r.key == "order_id")
    assert any(c.tool == "get_order" and c.argument == "order_id" for c in first.consumers)


def test_run_data_builds_from_a_loop_run():
    ctx, events = run(0)
    for source in (ctx, events):
        data = RunData.build(source)
        assert [r.key for r in data.records if r.writer == LOOP] == ["orders"]


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list:
    """What the magics display, in order."""
    items: list = []
    monkeypatch.setattr("jdsl_nb.magics.display", lambda obj, **kw: items.append(obj))
    return items


def test_a_behavior_cell_with_a_for_each_runs_and_its_view_shows_the_passes(ip, shown):
    ip.user_ns.update(get_order=get_order, summarize=summarize)
    ip.run_cell_magic("behavior", 'looped --run --input \'user:={"orders": ["#W1", "#W2"]}\'', TEXT)
    view = shown[-1]
    assert type(view).__name__ == "RunView" and view.run.status == "success"
    assert "pass 1, from user.orders[1]" in view.provenance.value
    assert ip.user_ns["looped_run"].blackboard["orders"] == [get_order("#W1"), get_order("#W2")]
