"""Root.prepare remembers what it derives from the tree, and forgets it when the tree changes."""

from __future__ import annotations

from jdsl import act, root, seq


def noop() -> None:
    """A no-op tool."""


def test_a_node_moved_in_place_gets_its_new_structural_id() -> None:
    """The pre-order of nodes is the same before and after the move; the shape is not."""
    leaf_a, leaf_b, leaf_c = act(noop), act(noop), act(noop)
    inner = seq(leaf_b, leaf_c)
    outer = seq(leaf_a, inner)
    tree = root("moved").do(outer)
    tree.run()
    assert leaf_c.effective_id == "root/sequence.0/sequence.1/action.1"
    inner.children.remove(leaf_c)
    outer.children.append(leaf_c)  # root, outer, a, inner, b, c: the same pre-order
    tree.run()
    assert leaf_c.effective_id == "root/sequence.0/action.2"


def test_a_node_shared_with_another_tree_takes_back_this_trees_ids() -> None:
    shared = act(noop)
    first = root("first").do(seq(shared))
    second = root("second").do(seq(act(noop), seq(shared)))
    first.run()
    second.run()
    assert shared.effective_id == "root/sequence.0/sequence.1/action.0"
    first.run()  # nothing about ``first`` changed: its remembered ids are given back
    assert shared.effective_id == "root/sequence.0/action.0"


def test_a_tool_bound_later_is_used() -> None:
    calls: list[str] = []

    def lookup() -> str:
        calls.append("lookup")
        return "x"

    tree = root("late").do(act("lookup"))
    assert tree.run(raise_errors=False).error is not None
    tree.bind(tools={"lookup": lookup})
    assert tree.run().status.value == "success" and calls == ["lookup"]
