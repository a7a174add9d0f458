"""A read of every element of a list is a loop even from one run (issue 24, "positions are
choices"; staticize/loops.py): one run that looked up each of the user's three reservations
before cancelling one compiled three reads by position (three index decisions), so a user with
five reservations was read three times. It compiles to ``for_each reservation_id in
user.reservations`` and serves a user with five. A read the other runs of the family make on
some elements only (no traversal there) stays as it was."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior, normalize_all, validate_package
from jdsl.ir import from_ir
from jdsl.text import format_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder  # noqa: E402
from test_acting_loops import _run  # noqa: E402


def _reads_first(i: int, count: int) -> dict[str, Any]:
    """Reads the first of the user's ``count`` reservations only, and cancels it."""
    ids = [f"R{i}S{k}T" for k in range(count)]
    b = AgentBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "please cancel the trips I no longer need"})
    b.call("get_user", {"reservations": ids}, store="user", user_id=f"u{i}")
    b.call("get_reservation", {"reservation_id": ids[0], "status": "booked"},
           reservation_id=ids[0])  # fmt: skip
    b.call("cancel_reservation", {"ok": True}, reservation_id=ids[0])
    return b.done(True)


def test_one_run_reading_every_reservation_compiles_a_loop() -> None:
    result = compile_behavior([_run(0, 3, [1])], name="cancel")
    text = format_behavior(from_ir(result.compiled.ir))
    assert "for_each reservation_id in user.reservations id=" in text, text
    assert "reservation_index:" not in text and "reservation_index_2" not in text, text
    assert result.ok, result.report().text
    held = validate_package(result.package, normalize_all([_run(9, 5, [4, 2]), _run(8, 1, [0])]))
    assert [(r.served, r.matched) for r in held.rows] == [(True, True)] * 2, held.text


def test_a_read_of_every_element_in_one_run_of_several_that_read_some_stays() -> None:
    """Another run read only the first of its three: a traversal of one run is no loop there."""
    result = compile_behavior([_run(0, 3, [1]), _reads_first(1, 3)], name="cancel")
    text = format_behavior(from_ir(result.compiled.ir))
    assert "for_each reservation_id in user.reservations id=" not in text, text
