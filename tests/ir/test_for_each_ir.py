"""The for_each node in the IR: schema, validate_ir rules, from_ir / to_ir round trip."""

from __future__ import annotations

from typing import Any

import pytest
from jdsl.errors import ValidationError
from jdsl.ir import BEHAVIOR_FORMAT, from_ir, ir_json_schema, load_stored_schema, to_ir, validate_ir
from jdsl.tree import ForEach


def doc(child: Any) -> dict[str, Any]:
    return {"format": BEHAVIOR_FORMAT, "root": {"kind": "root", "name": "t", "child": child}}


def get_order(**extra: Any) -> dict[str, Any]:
    return {"kind": "action", "tool": "get_order", "args": {"id": {"ref": "order_id"}}, **extra}


def loop(**fields: Any) -> dict[str, Any]:
    node = {"kind": "for_each", "items": "user.orders", "item": "order_id",
            "child": get_order(store="order")}  # fmt: skip
    node.update(fields)
    return {k: v for k, v in node.items() if v is not None}


def problems(**fields: Any) -> tuple[str, ...]:
    return validate_ir(doc(loop(**fields))).problems


def test_a_well_formed_for_each_validates_and_round_trips():
    ir = doc(loop(collect="order", store="orders", max=5, id="each_order"))
    assert validate_ir(ir).ok
    tree = from_ir(ir)
    assert isinstance(tree.child, ForEach)
    assert to_ir(tree) == {**ir, "root": {**ir["root"], "child": {**ir["root"]["child"]}}}
    assert to_ir(from_ir(to_ir(tree))) == to_ir(tree)


def test_defaults_max_to_1000_and_leaves_collect_out():
    node = to_ir(from_ir(doc(loop())))["root"]["child"]
    assert node["max"] == 1000
    assert "collect" not in node and "store" not in node


def test_items_may_index_with_a_blackboard_value():
    assert problems(items="users[$i].orders") == ()


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"items": None}, "items must be a path such as user.orders, got None"),
        ({"items": "a..b"}, "items: malformed path 'a..b'"),
        ({"items": 3}, "items must be a path"),
        ({"item": None}, "item must be a name such as order_id"),
        ({"item": "order id"}, "item must be a name such as order_id"),
        ({"item": "1st"}, "item must be a name"),
        ({"item": "user.orders"}, "item must be a name"),
        ({"collect": "order"}, "collect and store come together"),
        ({"store": "orders"}, "collect and store come together"),
        ({"collect": "a..b", "store": "orders"}, "collect must be a key or path"),
        ({"collect": "order", "store": "my orders"}, "store must be a name"),
        ({"max": 0}, "unbounded or invalid max 0; use a whole number 1..1000"),
        ({"max": 1001}, "unbounded or invalid max 1001"),
        ({"max": True}, "unbounded or invalid max"),
        ({"max": 2.5}, "unbounded or invalid max"),
        ({"until": {"kind": "guard", "expression": {"exists": "x"}}}, "unknown field(s) ['until']"),
    ],
)
def test_each_bad_field_is_reported(fields: dict[str, Any], expected: str):
    found = problems(**fields)
    assert any(expected in p for p in found), found
    assert all(p.startswith("for_each 'root/for_each.0': ") for p in found)


def test_a_for_each_without_child_is_reported():
    node = loop()
    del node["child"]
    assert validate_ir(doc(node)).problems == (
        "for_each 'root/for_each.0': for_each needs a child",
    )


def test_every_problem_of_one_node_is_reported_at_once():
    found = problems(items="", item="1", collect="x", max=0)
    assert len(found) == 4, found


def test_from_ir_refuses_what_validate_ir_reports():
    for fields in (
        {"items": "a..b"},
        {"item": "a b"},
        {"collect": "x"},
        {"max": 0},
        {"max": True},
        {"max": "3"},
        {"max": 2.0},
    ):
        with pytest.raises(ValidationError):
            from_ir(doc(loop(**fields)))


def test_the_children_of_a_for_each_are_validated():
    ir = doc(loop() | {"child": {"kind": "action"}})
    assert any("root/for_each.0/action.0" in p and "tool" in p for p in validate_ir(ir).problems)


def test_capabilities_inside_a_for_each_are_collected():
    report = validate_ir(doc(loop()), required_capabilities=[])
    assert report.capabilities == ("get_order",)
    assert "tool 'get_order' used but not declared in required_capabilities" in report.problems


def test_the_schema_describes_for_each():
    schema = ir_json_schema()
    assert schema == load_stored_schema()
    node = schema["$defs"]["ForEach"]
    assert set(node["required"]) == {"items", "item"}
    assert node["properties"]["max"]["maximum"] == 1000
    assert node["properties"]["kind"]["const"] == "for_each"
