"""for_each in behavior text: ``for_each ITEM in PATH [collect=KEY -> STORE] [max=N]``."""

from __future__ import annotations

import pytest
from jdsl import act, for_each, ref, root
from jdsl.errors import BehaviorSyntaxError, ValidationError
from jdsl.text import format_behavior, parse_behavior
from jdsl.text.parser import parse_behavior_ir

LOOP = (
    "for_each order_id in user.orders collect=order -> orders max=5 id=each_order\n"
    "  act get_order_details(order_id=order_id) -> order\n"
)


def child_of(text: str) -> dict:
    return parse_behavior_ir(text)["root"]["child"]


def test_the_full_line_parses_to_the_agreed_ir():
    assert child_of(LOOP) == {
        "kind": "for_each",
        "item": "order_id",
        "items": "user.orders",
        "collect": "order",
        "store": "orders",
        "max": 5,
        "id": "each_order",
        "child": {
            "kind": "action",
            "tool": "get_order_details",
            "args": {"order_id": {"ref": "order_id"}},
            "store": "order",
        },
    }


def test_the_short_line_leaves_collect_store_and_max_out():
    node = child_of("for_each o in users[$i].orders\n  act get(id=o.id)\n")
    assert {k: v for k, v in node.items() if k != "child"} == {
        "kind": "for_each", "item": "o", "items": "users[$i].orders"}  # fmt: skip


def test_canonical_text_prints_back_the_same_ir():
    tree = parse_behavior(LOOP)
    text = format_behavior(tree)
    assert text == "root behavior\n  " + LOOP.replace("\n  ", "\n    ")
    assert parse_behavior(text).to_ir() == tree.to_ir()
    assert format_behavior(parse_behavior(text)) == text


def test_attributes_may_come_in_any_order_and_print_canonically():
    text = "for_each o in xs id=l max=3 collect=y -> ys\n  act f(a=o) -> y\n"
    assert format_behavior(parse_behavior(text)).splitlines()[1] == (
        "  for_each o in xs collect=y -> ys max=3 id=l"
    )


def test_the_default_max_is_not_printed():
    text = format_behavior(parse_behavior("for_each o in xs max=1000\n  act f(a=o)\n"))
    assert "max=" not in text


def test_a_combinator_tree_prints_and_parses_back():
    tree = root("loop").do(
        for_each(
            "order_id",
            ref("user.orders"),
            act("get", order_id=ref("order_id")) >> "order",
            collect="order",
            store="orders",
        )  # fmt: skip
    )
    assert parse_behavior(format_behavior(tree)).to_ir() == tree.to_ir()


def test_nested_loops_round_trip():
    text = (
        "root nested\n"
        "  for_each user in users\n"
        "    for_each order in user.orders collect=detail -> details\n"
        "      act get(id=order.id) -> detail\n"
    )
    assert format_behavior(parse_behavior(text)) == text


@pytest.mark.parametrize(
    ("text", "col", "message", "hint"),
    [
        ("for_each\n  act a()", 9, "expected the loop's item name", "for_each ITEM in PATH"),
        ("for_each 1o in xs\n  act a()", 10, "expected the loop's item name", "for_each ITEM"),
        ("for_each in xs\n  act a()", 10, "'in' is a reserved word", "name the item"),
        ("for_each o of xs\n  act a()", 12, "expected 'in' after the item 'o'", "ITEM in PATH"),
        ("for_each o.id in xs\n  act a()", 11, "expected 'in' after the item 'o'", "ITEM in"),
        ("for_each o in\n  act a()", 14, "expected the path of a list", "ITEM in PATH"),
        ("for_each o in max=3\n  act a()", 15, "expected the path of a list", "ITEM in PATH"),
        ("for_each o in xs collect=y\n  act a()", 27, "expected '->'", "collect=KEY -> STORE"),
        ("for_each o in xs collect=\n  act a()", 26, "collect= needs the key", "collect=KEY"),
        ("for_each o in xs collect=y -> 1z\n  act a()", 31, "expected the key to store", "KEY"),
        ("for_each o in xs max=0\n  act a()", 22, "max= needs a whole number > 0", "max=3"),
        ("for_each o in xs max=1001\n  act a()", 22, "and <= 1000", "max=3"),
        ("for_each o in xs until=3\n  act a()", 18, "unknown attribute 'until'", "collect="),
        ("for_each o in xs", 1, "for_each needs one child", "indent one node"),
        ("for_each o in xs\n  act a()\n  act b()", 3, "for_each takes exactly one child", "seq"),
    ],
)
def test_a_bad_line_names_line_column_and_fix(text: str, col: int, message: str, hint: str):
    with pytest.raises(BehaviorSyntaxError) as caught:
        parse_behavior_ir(text)
    error = caught.value
    assert message in str(error)
    assert hint in error.hint
    assert error.col == col
    assert error.line == (3 if "act b()" in text else 1)


def test_an_ir_with_no_text_form_is_refused_by_the_printer():
    node = {"kind": "for_each", "item": "in", "items": "xs",
            "child": {"kind": "action", "tool": "a"}}  # fmt: skip
    with pytest.raises(ValidationError, match="no behavior-text form"):
        format_behavior(node)
