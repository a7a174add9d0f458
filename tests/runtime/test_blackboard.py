"""Blackboard provenance, ContextWindow and structural ids."""

from __future__ import annotations

from jdsl import Blackboard, ContextWindow, act, assign_runtime_ids, predict, ref, repeat, root, seq
from jdsl.tree import Read, Write


def test_inputs_recorded_as_input_writer():
    bb = Blackboard({"email": "a"})
    assert bb.who_wrote("email") == "input"
    assert bb.activity == [Write("email", "a", "input", "run input")]


def test_set_records_previous_and_overwrote():
    bb = Blackboard({"k": 1})
    bb.set("k", 2, writer_id="n1", writer_label="act(a)")
    bb.set("k", 3, writer_id="n1", writer_label="act(a)")
    bb.set("k", 4, writer_id="n2", writer_label="act(b)")
    writes = bb.writes()
    assert [w.previous for w in writes] == [None, 1, 2, 3]
    assert [w.overwrote for w in writes] == [False, True, False, True]
    assert [c.writer_id for c in bb.clobbers()] == ["n1", "n2"]
    assert bb.who_wrote("k") == "n2" and bb.who_wrote("zzz") is None


def test_item_assignment_goes_through_set():
    bb = Blackboard()
    bb["x"] = 1
    assert bb.who_wrote("x") == "?" and bb.writes()[0].key == "x"


def test_reads_are_recorded_with_reader():
    def echo(v: str) -> str:
        return v

    tree = root("r").do(act(echo, v=ref("a"), id="reader") >> "b")
    ctx = tree.run(a="x")
    reads = ctx.blackboard.reads()
    assert reads == [Read("a", "x", "reader")]
    assert ctx.blackboard.provenance() == {"a": "input", "b": "reader"}


def test_context_window_stack():
    window = ContextWindow(["A"])
    window.push("B")
    assert window.system == "A\n\nB"
    window.pop()
    window.pop()
    window.pop()  # no-op when empty
    assert window.system == ""


def test_structural_ids():
    def f() -> None:
        return None

    tree = root("r").do(seq(act(f), repeat(act(f), until=act(f)), predict("a -> b", id="p")))
    assign_runtime_ids(tree)
    ids = [n.effective_id for n in tree.walk()]
    assert ids == [
        "root",
        "root/sequence.0",
        "root/sequence.0/action.0",
        "root/sequence.0/repeat.1",
        "root/sequence.0/repeat.1/action.0",
        "root/sequence.0/repeat.1/action.1",
        "p",
    ]
    assert "_runtime_id" not in str(tree.to_ir())
