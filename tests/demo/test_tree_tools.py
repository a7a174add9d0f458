"""tree_tools: the retail tools for trees (parsed results, refused calls raised and traced)."""

from __future__ import annotations

import pytest
from jdsl.dsl import act, ref, root, seq
from jdsl.envs.tau_retail import RetailEnv, RetailToolError, structured_result, tree_tools
from jdsl.errors import BindingError, ToolError
from jdsl.trace import ListTraceSink


def _tool(env: RetailEnv, name: str):  # type: ignore[no-untyped-def]
    return tree_tools(env, [name])[0]


def test_results_are_data_and_schemas_are_the_benchmarks() -> None:
    env = RetailEnv()
    tools = {t.name: t for t in tree_tools(env)}
    plain = {t.name: t for t in env.tools()}
    assert tools.keys() == plain.keys() and len(tools) == 16
    assert tools["cancel_pending_order"].parameters == plain["cancel_pending_order"].parameters
    user = tools["get_user_details"](user_id="noah_brown_6181")
    assert user["orders"] == ["#W7678072"]
    user_id = tools["find_user_id_by_email"](email="noah.brown7922@example.com")
    assert user_id == "noah_brown_6181"  # a bare id stays text
    assert tools["calculate"](expression="2 + 3") == 5.0
    assert [step.name for step in env.history] == [
        "get_user_details",
        "find_user_id_by_email",
        "calculate",
    ]


def test_structured_result_keeps_non_json_text() -> None:
    assert structured_result('{"a": [1]}') == {"a": [1]}
    assert structured_result("") == ""
    assert structured_result("Transfer successful") == "Transfer successful"


def test_refused_call_raises_and_changes_nothing() -> None:
    env = RetailEnv()
    before = env.db_hash()
    cancel = _tool(env, "cancel_pending_order")
    with pytest.raises(RetailToolError) as caught:
        cancel(order_id="#W7602708", reason="because")
    assert isinstance(caught.value, ToolError)
    assert caught.value.result == "Error: invalid reason"
    assert caught.value.tool == "cancel_pending_order"
    assert "cancel_pending_order" in str(caught.value)
    assert env.db_hash() == before


def test_unknown_name_is_a_binding_error() -> None:
    with pytest.raises(BindingError, match="cancel_order"):
        tree_tools(RetailEnv(), ["cancel_order"])


def test_a_refused_call_in_a_tree_is_traced_as_failed() -> None:
    env = RetailEnv()
    tree = root("probe").do(seq(act(_tool(env, "get_order_details"), order_id=ref("oid")) >> "o"))
    sink = ListTraceSink()
    ctx = tree.run(trace_sink=sink, raise_errors=False, oid="#W0")
    assert isinstance(ctx.error, RetailToolError)
    failed = [e for e in sink.events if e.kind == "tool.call.failed"]
    assert len(failed) == 1 and "Error: order not found" in failed[0].payload["error"]
    assert failed[0].payload["error_type"] == "RetailToolError"
