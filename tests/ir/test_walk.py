"""jdsl.ir.walk: the node schema read from the node classes, one walk, one numbering."""

from __future__ import annotations

import copy

import pytest
from jdsl import act, guard, invert, ref, repeat, root, sel, seq
from jdsl.errors import AuthoringError
from jdsl.ir import NODE_FIELDS
from jdsl.ir.walk import (
    CHILD_SLOTS,
    as_ir,
    child_slots,
    ir_nodes_with_ids,
    labelled_children,
    structural_ids,
    transform_ir,
    walk,
    walk_ir,
)
from jdsl.tree import assign_runtime_ids
from jdsl.tree.nodes import NODE_CLASSES


def _tree():
    return root("walk").do(
        seq(
            act("lookup", query=ref("request"), store="customer"),
            sel(guard("customer.ok == true"), invert(act("fallback"))),
            repeat(act("poll", store="done"), until=guard("done == true"), max=2),
        ),
    )


def test_node_fields_are_the_node_classes_fields() -> None:
    assert set(NODE_FIELDS) == set(NODE_CLASSES)
    for kind, cls in NODE_CLASSES.items():
        assert NODE_FIELDS[kind] == frozenset(cls.model_fields), kind


def test_child_slots_follow_the_node_classes() -> None:
    assert CHILD_SLOTS["sequence"] == ("children",)
    assert CHILD_SLOTS["repeat"] == ("child", "until")
    assert CHILD_SLOTS["root"] == ("child",)
    assert CHILD_SLOTS["action"] == ()


def test_dict_and_object_walks_agree() -> None:
    tree = _tree()
    ir = tree.to_ir()
    assert [n["kind"] for n in walk_ir(ir)] == [n.kind for n in walk(tree)]
    assert [n["kind"] for n in walk(ir)] == [n.kind for n in tree.walk()]
    for node in tree.walk():
        assert [c.kind for c in child_slots(node)] == [c.kind for c in node.children_nodes()]


def test_structural_ids_of_a_dict_are_the_runs_ids() -> None:
    tree = _tree()
    assign_runtime_ids(tree)
    ir = tree.to_ir()
    assert [i for i, _ in ir_nodes_with_ids(ir)] == [n.effective_id for n in tree.walk()]
    assert list(structural_ids(ir).values()) == [n.effective_id for n in tree.walk()]


def test_walk_is_iterative() -> None:
    node: dict = {"kind": "action", "tool": "t"}
    for _ in range(5000):
        node = {"kind": "invert", "child": node}
    assert sum(1 for _ in walk_ir(node)) == 5001
    assert len(structural_ids(node)) == 5001


def test_labels_and_filtering() -> None:
    repeat_ir = {"kind": "repeat", "child": {"kind": "guard"}, "until": {"kind": "check"}}
    assert [label for label, _ in labelled_children(repeat_ir)] == ["", "until"]
    assert labelled_children({"kind": "sequence", "children": [{"kind": "guard"}, 3]}) == [
        ("", {"kind": "guard"})
    ]
    assert child_slots({"kind": "sequence", "children": [{"kind": "guard"}, 3]})[1] == 3


def test_as_ir_reads_what_holds_a_tree() -> None:
    tree = _tree()
    ir = tree.to_ir()
    assert as_ir(tree) == ir
    assert as_ir({"format": "jdsl.behavior.v1", "root": ir}) == ir
    with pytest.raises(TypeError, match="holds no behavior tree"):
        as_ir(3)


def test_transform_ir_rebuilds_every_slot_and_mutates_nothing() -> None:
    ir = as_ir(_tree())
    filled = {slot for n in walk_ir(ir) for slot in CHILD_SLOTS[n["kind"]] if n.get(slot)}
    assert filled == {slot for slots in CHILD_SLOTS.values() for slot in slots}
    before = copy.deepcopy(ir)
    seen: list[str] = []

    def tag(node: dict) -> dict:
        seen.append(node["kind"])
        node["tagged"] = True
        return node

    out = transform_ir(ir, tag)
    assert ir == before
    assert all(n.get("tagged") for n in walk_ir(out))
    assert sorted(seen) == sorted(n["kind"] for n in walk_ir(ir))
    assert seen[-1] == "root" and seen.index("guard") < seen.index("selector")  # bottom-up
    assert not {id(n) for n in walk_ir(out)} & {id(n) for n in walk_ir(ir)}
    assert out["child"]["children"][2]["until"]["tagged"] is True


def test_transform_ir_replaces_subtrees_and_keeps_what_is_not_a_node() -> None:
    ir = {"kind": "sequence", "children": [{"kind": "action", "tool": "a"}, 3]}

    def wrap(node: dict) -> dict:
        return {"kind": "invert", "child": node} if node["kind"] == "action" else node

    assert transform_ir(ir, wrap) == {
        "kind": "sequence",
        "children": [{"kind": "invert", "child": {"kind": "action", "tool": "a"}}, 3],
    }


def test_transform_ir_is_iterative() -> None:
    node: dict = {"kind": "action", "tool": "t"}
    for _ in range(5000):
        node = {"kind": "invert", "child": node}
    assert sum(1 for _ in walk_ir(transform_ir(node, lambda n: n))) == 5001


def test_transform_ir_reads_a_node_object_as_its_ir() -> None:
    tree = _tree()
    assert transform_ir(tree, lambda n: n) == as_ir(tree)


def test_transform_ir_refuses_a_function_that_returns_no_node() -> None:
    def forgets(n: dict) -> dict:  # returns None for every node but actions
        if n["kind"] == "action":
            return n
        return None  # type: ignore[return-value]

    with pytest.raises(
        AuthoringError, match=r"returned NoneType for a 'guard' node; return the node"
    ):
        transform_ir(_tree(), forgets)
