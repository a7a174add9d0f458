"""Loops that act on some elements (issue 24): a write repeated over some elements of one list
in state, different ones per run (airline: cancel one reservation, or two of seven), is one
``for_each`` over a residual selection ``list[int]`` of the list's elements, not a path per
count (staticize/loops.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior, normalize_all, validate_package
from jdsl.ir import from_ir
from jdsl.text import format_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, count: int, picks: list[int]) -> dict[str, Any]:
    ids = [f"R{i}S{k}T" for k in range(count)]
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "cancel the trips I no longer need"})
    b.call("get_user", {"reservations": ids}, store="user", node_id="agent", node_type="react",
           user_id=f"u{i}")  # fmt: skip
    for k in picks:
        b.call("cancel_reservation", {"ok": True, "id": ids[k]}, store="cancelled",
               node_id="agent", node_type="react", reservation_id=ids[k])  # fmt: skip
    return b.done(True)


def test_a_write_over_some_elements_is_one_loop_over_a_selection() -> None:
    runs = [_run(0, 3, [0]), _run(1, 7, [4, 2]), _run(2, 4, [1, 3]), _run(3, 2, [1])]
    result = compile_behavior(runs, name="cancel")
    text = format_behavior(from_ir(result.compiled.ir))
    assert "for_each reservation_id in user.reservations[$reservation_indexes]" in text, text
    assert "-> reservation_indexes: list[int]" in text, text
    assert result.compiled.branches == ()
    v = result.verification
    assert result.ok and v.executed == v.matched == 4, result.report().text
    held = validate_package(result.package, normalize_all([_run(9, 5, [3, 0, 4])]))
    (row,) = held.rows
    assert row.served and row.matched, held.text()


def _twice(i: int, first: list[int], then: list[int]) -> dict[str, Any]:
    ids = [f"R{i}S{k}T" for k in range(5)]
    b = EpisodeBuilder(f"tw{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "cancel some trips, note it, then cancel more"})
    b.call("get_user", {"reservations": ids}, store="user", node_id="agent", node_type="react",
           user_id=f"u{i}")  # fmt: skip
    for picks in (first, then):
        for k in picks:
            b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type="react",
                   reservation_id=ids[k])  # fmt: skip
        if picks is first:
            b.call("add_note", {"ok": True}, node_id="agent", node_type="react", user_id=f"u{i}")
    return b.done(True)


def test_two_loops_over_the_same_write_each_replay_their_own_calls() -> None:
    runs = [_twice(0, [0], [3, 1]), _twice(1, [2, 4], [0]), _twice(2, [1, 0], [4, 2])]
    result = compile_behavior(runs, name="cancel")
    text = format_behavior(from_ir(result.compiled.ir))
    assert text.count("for_each reservation_id in user.reservations[$") == 2, text
    v = result.verification
    assert result.ok and v.executed == v.matched == 3, result.report().text
