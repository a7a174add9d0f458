"""The retail scenario of docs/design.md appendix B, end to end from Python."""

from __future__ import annotations

from jdsl import ListTraceSink, Status, act, predict, ref, root, seq
from jdsl.envs.fixtures import RetailWorld, retail_fixture_tools
from jdsl.testing import ScriptedModel


def build(world: RetailWorld):
    lookup, list_orders, get_order, _ = world.tools()
    return root("cancel").do(
        seq(
            act(lookup, email=ref("email")) >> "customer",
            act(list_orders, customer_id=ref("customer.id")) >> "orders",
            predict("request, orders -> selected_index: int", id="resolve_target"),
            act(get_order, order_id=ref("orders[$selected_index].id")) >> "order",
        )
    )


def test_retail_scenario_leaves_the_right_order_with_provenance():
    sink = ListTraceSink()
    ctx = build(RetailWorld.numbered(1)).run(
        model=ScriptedModel("1"), trace_sink=sink, email="c1@x.com", request="cancel my order"
    )
    assert ctx.status is Status.SUCCESS
    assert ctx.blackboard["order"]["id"] == "#W11"
    assert ctx.blackboard.provenance() == {
        "email": "input",
        "request": "input",
        "customer": "root/sequence.0/action.0",
        "orders": "root/sequence.0/action.1",
        "selected_index": "resolve_target",
        "order": "root/sequence.0/action.3",
    }
    reads = {r.path: r.reader_id for r in ctx.blackboard.reads()}
    assert reads["orders[$selected_index].id"] == "root/sequence.0/action.3"
    calls = [e.payload["arguments"] for e in sink.events if e.kind == "tool.call.started"]
    assert calls == [{"email": "c1@x.com"}, {"customer_id": "U1"}, {"order_id": "#W11"}]


def test_unseen_customer_and_other_choice():
    world = RetailWorld.numbered(99)
    ctx = build(world).run(model=ScriptedModel("0"), email="c99@x.com", request="the shipped one")
    assert ctx.blackboard["order"]["id"] == "#W990"


def test_tool_error_sets_ctx_error_without_raising():
    ctx = build(RetailWorld.numbered(1)).run(
        model=ScriptedModel("1"), raise_errors=False, email="stranger@x.com", request="?"
    )
    assert isinstance(ctx.error, KeyError) and ctx.status is Status.FAILURE
    assert "customer" not in ctx.blackboard


def test_out_of_range_choice_is_a_ref_error():
    ctx = build(RetailWorld.numbered(1)).run(
        model=ScriptedModel("7"), raise_errors=False, email="c1@x.com", request="?"
    )
    assert type(ctx.error).__name__ == "RefError" and "orders has no" in str(ctx.error)


def test_cancel_tool_changes_the_world():
    world = RetailWorld.numbered(2)
    _, _, _, cancel = retail_fixture_tools(world)
    assert cancel("#W21", "changed mind")["status"] == "cancelled"
    assert world.cancelled == [("#W21", "changed mind")]
    try:
        cancel("#W20", "x")
    except ValueError as exc:
        assert "shipped" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("cancelling a shipped order must fail")
