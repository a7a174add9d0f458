"""Done-when: the retail teacher as behavior text parses, runs like the Python version and
formats back to the same text (the shipped core/jdsl/examples/retail_lookup.behavior)."""

from __future__ import annotations

from importlib import resources

import pytest
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.envs.fixtures import RetailWorld
from jdsl.errors import BindingError
from jdsl.ir import to_ir, validate_ir
from jdsl.testing import ScriptedModel
from jdsl.text import format_behavior, parse_behavior
from jdsl.tree import Root

INSTRUCTIONS = "Pick the order the customer means; answer with its 0-based index."
INPUTS = {"email": "c1@x.com", "request": "cancel the order that has not shipped yet"}


def behavior_text() -> str:
    path = resources.files("jdsl").joinpath("examples", "retail_lookup.behavior")
    return path.read_text(encoding="utf-8")


def python_teacher(world: RetailWorld) -> Root:
    return root("retail_lookup", system="You are a careful retail agent.").do(
        seq(
            act(world.lookup, email=ref("email")) >> "customer",
            act(world.list_orders, customer_id=ref("customer.id")) >> "orders",
            predict(
                "request, orders -> selected_index: int",
                instructions=INSTRUCTIONS,
                id="resolve_target",
            ),
            act(world.get_order, order_id=ref("orders[$selected_index].id")) >> "order",
        )
    )


def test_text_and_python_teacher_have_the_same_ir() -> None:
    parsed = parse_behavior(behavior_text())
    assert to_ir(parsed) == to_ir(python_teacher(RetailWorld.numbered(1)))
    assert validate_ir(to_ir(parsed), ["lookup", "list_orders", "get_order"]).ok


def test_text_teacher_runs_to_the_same_blackboard_as_python() -> None:
    text_world, python_world = RetailWorld.numbered(1), RetailWorld.numbered(1)
    from_text = parse_behavior(behavior_text(), tools=text_world.tools())
    text_ctx = from_text.run(model=ScriptedModel("1"), **INPUTS)
    python_ctx = python_teacher(python_world).run(model=ScriptedModel("1"), **INPUTS)
    assert dict(text_ctx.blackboard) == dict(python_ctx.blackboard)
    assert text_ctx.blackboard["order"]["id"] == "#W11"
    assert text_ctx.blackboard["order"]["status"] == "pending"
    assert text_ctx.blackboard.provenance() == python_ctx.blackboard.provenance()


def test_text_teacher_formats_back_to_the_same_text() -> None:
    text = behavior_text()
    assert format_behavior(parse_behavior(text)) == text
    assert format_behavior(python_teacher(RetailWorld.numbered(1))) == text


def test_text_teacher_without_tools_fails_before_the_first_tick() -> None:
    with pytest.raises(BindingError):
        parse_behavior(behavior_text()).run(model=ScriptedModel("1"), **INPUTS)
