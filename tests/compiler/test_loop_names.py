"""A loop's element name outlives the loop, so a later call's stated input must not share it
(airline cancel_reservation: the loop over the user's reservations bound ``reservation_id`` and
the cancel that follows, whose id the user stated, cancelled the loop's last reservation)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, pick: int, count: int, *, said: bool = True) -> dict[str, Any]:
    ids = [f"R{i}X{k}Q" for k in range(count)]
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    if said:
        b.emit("user.message", {"content": f"please cancel my reservation {ids[pick]}"})
    b.call("get_user", {"reservations": ids}, store="user", node_id="agent", node_type="react",
           user_id=f"u{i}")  # fmt: skip
    for rid in ids:
        b.call("get_reservation", {"reservation_id": rid, "status": "booked"}, node_id="agent",
               node_type="react", reservation_id=rid)  # fmt: skip
    b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type="react",
           reservation_id=ids[pick])  # fmt: skip
    return b.done(True)


def test_the_write_after_a_loop_reads_its_own_input_not_the_last_element() -> None:
    result = compile_behavior([_run(0, 0, 3), _run(1, 1, 2), _run(2, 2, 4)], name="cancel")
    report = result.report()
    assert any("for_each" in str(node) for node in [result.ir["root"]])
    assert result.ok, report.text
    assert report["verification"]["matched"] == 3
    cancel = next(a for a in result.compiled.actions if a.tool == "cancel_reservation")
    (choice,) = cancel.choices
    assert choice.stated and choice.spec["ref"] != "reservation_id"


def test_a_write_after_a_loop_does_not_read_the_loops_store() -> None:
    # the first reservation looked up is cancelled: after the loop, its store holds the last one
    result = compile_behavior([_run(0, 0, 3, said=False), _run(1, 0, 2, said=False)], name="c")
    cancel = next(a for a in result.compiled.actions if a.tool == "cancel_reservation")
    (choice,) = cancel.choices
    assert not str(choice.spec.get("ref", "")).startswith("get_reservation_out")
    assert "different arguments" not in result.report().text


def _looping(i: int, count: int) -> dict[str, Any]:
    ids = [f"#W{i}{k}7Q" for k in range(count)]
    b = EpisodeBuilder(f"loop{i}", inputs={"user_id": f"u{i}"}, task_id=f"l{i}")
    b.call("get_user", {"orders": ids}, store="user", node_id="agent", node_type="react",
           user_id=f"u{i}")  # fmt: skip
    for oid in ids:
        b.call("get_order", {"order_id": oid, "status": "pending"}, node_id="agent",
               node_type="react", order_id=oid)  # fmt: skip
    b.call("cancel_order", {"ok": True}, node_id="agent", node_type="react", order_id=ids[-1])
    return b.done(True)


def _stated(i: int) -> dict[str, Any]:
    oid = f"#S{i}9K"
    b = EpisodeBuilder(f"said{i}", inputs={}, task_id=f"s{i}")
    b.emit("user.message", {"content": f"please cancel my order {oid}"})
    b.call("get_order", {"order_id": oid, "status": "pending"}, node_id="agent",
           node_type="react", order_id=oid)  # fmt: skip
    b.call("cancel_order", {"ok": True}, node_id="agent", node_type="react", order_id=oid)
    return b.done(True)


def test_a_sibling_alternatives_loop_does_not_rename_a_stated_input() -> None:
    """A loop binding ``order_id`` in one alternative leaves the name free in the next: the
    alternative whose user states the order reads ``order_id``, not ``order_id_2`` (the terse
    retail exchange package asked for ``optional: order_id_2`` with no ``order_id``)."""
    runs = [_looping(0, 2), _looping(1, 3), _looping(2, 2), _stated(0), _stated(1), _stated(2)]
    result = compile_behavior(runs, name="cancel")
    text = str(result.ir)
    assert "for_each" in text, text
    stated = [a for a in result.compiled.actions if a.tool == "get_order"
              and a.choices and a.choices[0].how == "input"]  # fmt: skip
    assert [a.choices[0].spec["ref"] for a in stated] == ["order_id"], result.report().text
