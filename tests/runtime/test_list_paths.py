"""List paths: ``xs[*].id`` and ``xs[$k].id`` with ``k`` a list of indexes, in the runtime, the
behavior text, the IR and drawings."""

from __future__ import annotations

import pytest
from jdsl.drawing import tree_dot
from jdsl.errors import BehaviorSyntaxError, RefError
from jdsl.expr import MISSING, evaluate, is_list_path, missing_step, parse_path, resolve_path
from jdsl.ir import validate_ir
from jdsl.text import format_behavior, parse_behavior

ORDER = {"order": {"items": [{"item_id": "i0"}, {"item_id": "i1"}, {"item_id": "i2"}]}}


@pytest.mark.parametrize(
    ("path", "extra", "expected"),
    [
        ("order.items[*].item_id", {}, ["i0", "i1", "i2"]),
        ("order.items[$k].item_id", {"k": [2, 0]}, ["i2", "i0"]),
        ("order.items[$k].item_id", {"k": ["1"]}, ["i1"]),  # untyped model output
        ("order.items[$k].item_id", {"k": 1}, "i1"),  # an int index stays a scalar path
        ("order.items[$k].item_id", {"k": []}, []),
        ("order.items[$k].item_id", {"k": [0, 7]}, MISSING),  # out of range: never partial
        ("order.items[$k].item_id", {"k": [True]}, MISSING),  # a bool never indexes
        ("order.items[*].price", {}, MISSING),  # an element lacks the field
        ("order[*]", {}, MISSING),  # not a list
    ],
)
def test_list_paths_resolve_element_by_element(path: str, extra: dict, expected: object) -> None:
    assert resolve_path(path, {**ORDER, **extra}) == expected


def test_list_path_helpers() -> None:
    assert parse_path("a[*].b") == (("key", "a"), ("all", None), ("key", "b"))
    assert is_list_path("a[*]") and not is_list_path("a[$k]")
    assert "[*]" in missing_step("order.items[*].price", ORDER)
    assert evaluate({"exists": "order.items[$k]"}, {**ORDER, "k": [0, 2]})
    assert not evaluate({"exists": "order.items[$k]"}, {**ORDER, "k": [3]})


TEXT = """root r
  seq
    predict "conversation, order -> item_indexes: list[int]" id=pick
    guard exists(order.items[$item_indexes]) id=check
    act refund(item_ids=order.items[$item_indexes].item_id, every=order.items[*].item_id) -> receipt
"""


def test_list_paths_round_trip_through_text_ir_and_drawings() -> None:
    tree = parse_behavior(TEXT)
    assert format_behavior(parse_behavior(format_behavior(tree))) == format_behavior(tree)
    ir = {"format": "jdsl.behavior.v1", "root": tree.to_ir()}
    assert validate_ir(ir).ok
    action = tree.to_ir()["child"]["children"][2]
    assert action["args"]["every"] == {"ref": "order.items[*].item_id"}
    assert "order.items[$item_indexes].item_id" in tree_dot(tree)


def test_a_bad_bracket_names_the_list_form() -> None:
    with pytest.raises(BehaviorSyntaxError, match=r"\[\*\]"):
        parse_behavior("root r\n  act f(x=a[?])\n")


def test_the_runtime_passes_the_selected_elements() -> None:
    tree = parse_behavior(TEXT)
    got: dict = {}

    def refund(item_ids: list, every: list) -> dict:
        got.update(item_ids=item_ids, every=every)
        return {"ok": True}

    from jdsl.testing import ScriptedModel

    ctx = tree.run(model=ScriptedModel('{"item_indexes": [2, 1]}', "[2, 1]"), tools={"refund": refund},
                   conversation=["return the last two"], **ORDER)  # fmt: skip
    assert ctx.status.value == "success", ctx.failure
    assert got == {"item_ids": ["i2", "i1"], "every": ["i0", "i1", "i2"]}
    bad = tree.run(model=ScriptedModel("[5]"), tools={"refund": refund}, raise_errors=False,
                   conversation=["?"], **ORDER)  # fmt: skip
    assert (
        bad.status.value == "failure" and bad.failure is not None and bad.failure.node_id == "check"
    )
    assert RefError  # a missing list path in an action is a RefError like any path


def test_an_index_out_of_range_says_to_check_the_index_not_to_seed_the_list():
    """``user`` is on the blackboard, so "seed it as a run() input" would not help: the error
    names the index and its value (here a model's answer) instead."""
    from jdsl.testing import ScriptedModel

    tree = parse_behavior(
        'root r\n  seq\n    predict "user -> order_index: int"\n'
        "    act get(order_id=user.orders[$order_index]) -> order\n"
    )
    ctx = tree.run(model=ScriptedModel("1"), tools={"get": lambda order_id: order_id},
                   raise_errors=False, user={"orders": ["#W1"]})  # fmt: skip
    message = str(ctx.error)
    assert isinstance(ctx.error, RefError), message
    assert "$order_index = 1" in message
    assert "Seed it as a run() input" not in message
