"""Action: argument resolution and the return rules."""

from __future__ import annotations

import pytest
from jdsl import RefError, Status, act, ref, root, seq, store, tool
from jdsl.errors import BindingError
from jdsl.tree import Bindings


def add(a: int, b: int = 0) -> int:
    return a + b


def test_result_is_stored_with_provenance(tick):
    status, ctx = tick(act(add, a=ref("x"), b=2) >> "total", x=1)
    assert status is Status.SUCCESS
    assert ctx.blackboard["total"] == 3


def test_store_combinator_and_unstored_result(tick):
    node = store(act(add, a=1), "s")
    assert node.store == "s"
    status, ctx = tick(act(add, a=1))
    assert status is Status.SUCCESS and ctx.blackboard.writes() == []


def test_store_rejects_non_actions():
    with pytest.raises(TypeError):
        store(seq(), "x")  # type: ignore[arg-type]


def test_returned_status_is_the_node_status(tick):
    def refuse() -> Status:
        return Status.FAILURE

    status, ctx = tick(act(refuse) >> "x")
    assert status is Status.FAILURE and "x" not in ctx.blackboard


def test_none_and_falsy_results_succeed(tick):
    def nothing() -> None:
        return None

    status, ctx = tick(act(nothing) >> "x")
    assert status is Status.SUCCESS and ctx.blackboard["x"] is None


def test_exception_reraised_with_note(tick):
    def broken(a: int) -> int:
        raise ZeroDivisionError("no")

    with pytest.raises(ZeroDivisionError) as info:
        tick(act(broken, a=1, id="breaker"))
    assert any("breaker" in note and "act(broken)" in note for note in info.value.__notes__)


def test_missing_ref_raises_ref_error_with_guidance(tick):
    with pytest.raises(RefError) as info:
        tick(act(add, a=ref("orders[$selected_index].id")), orders=[])
    message = str(info.value)
    assert "selected_index" in message and "run(" in message and "store(" in message
    assert info.value.path == "orders[$selected_index].id"
    assert isinstance(info.value, KeyError)


def test_refs_resolve_direct_key_then_path(tick):
    status, ctx = tick(
        seq(act(add, a=ref("a.b")) >> "direct", act(add, a=ref("c.d")) >> "path"),
        **{"a.b": 5, "c": {"d": 7}},
    )
    assert ctx.blackboard["direct"] == 5 and ctx.blackboard["path"] == 7


def test_positional_args_become_keywords():
    node = act(add, ref("x"), 4)
    assert node.args == {"a": {"ref": "x"}, "b": {"const": 4}}


def test_positional_args_must_fit():
    with pytest.raises(TypeError):
        act(add, 1, 2, 3)


def test_var_keyword_args_flatten_and_var_positional_refused():
    def kw(**fields: int) -> dict:
        return fields

    def pos(*items: int) -> tuple:
        return items

    assert act(kw, a=1).args == {"a": {"const": 1}}
    with pytest.raises(TypeError):
        act(pos, 1)


def test_positional_args_need_a_callable():
    with pytest.raises(BindingError):
        act("lookup", ref("email"))


def test_const_none_and_dict_constants_survive_the_ir():
    node = act(add, a={"ref": "not-a-ref"}, b=None)
    assert node.to_ir()["args"] == {"a": {"const": {"ref": "not-a-ref"}}, "b": {"const": None}}


def test_action_by_name_uses_context_bindings(tick):
    bindings = Bindings(tools={"add": add})
    status, ctx = tick(act("add", a=2) >> "r", bindings=bindings)
    assert status and ctx.blackboard["r"] == 2


def test_unbound_action_names_closest(tick):
    with pytest.raises(BindingError) as info:
        tick(act("ad", a=1), bindings=Bindings(tools={"add": add}))
    assert "'add'" in str(info.value) and info.value.name == "ad"


def test_tool_instances_are_bound_by_tool_name():
    t = tool(add, name="plus")
    tree = root("r").do(act(t, a=1) >> "r")
    assert tree.bindings.tools == {"plus": t}
    assert tree.run().blackboard["r"] == 1
