"""A held-out run whose writes of one selection loop are split by reads is the loop's run
(fresh7 finding 0 with ``--holdout 1``, family ``airline.update_reservation_flights+
cancel_reservation`` of the airline file given twice): the training run cancelled two
reservations one after the other (a loop over a selection), the held-out one cancelled one,
read three others, then cancelled another. Its loop answer took the first cancel only, so the
package "diverged" (the second cancel never made) where it makes the same writes in the same
order. Reads between a loop's calls are free (tokens: branches.write_tokens; answers:
compiler/loop_answers.py), unless the program has a loop for each stretch."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all, validate_package

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder, compiled  # noqa: E402


def _run(i: int, first: int, then: int, *, reads_between: bool) -> dict[str, Any]:
    ids = [f"R{i}S{k}T" for k in range(4)]
    b = AgentBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "please cancel the trips I no longer need"})
    b.call("get_user", {"reservations": ids}, store="user", user_id=f"u{i}")
    b.call("cancel_reservation", {"ok": True}, reservation_id=ids[first])
    if reads_between:
        for k in (0, 3):
            b.call("get_reservation", {"reservation_id": ids[k], "status": "booked"},
                   reservation_id=ids[k])  # fmt: skip
    b.call("cancel_reservation", {"ok": True}, reservation_id=ids[then])
    return b.done(True)


def test_reads_between_a_loops_writes_are_free_in_a_held_out_run() -> None:
    result = compiled(normalize_all([_run(0, 1, 2, reads_between=False)]), name="cancel")
    assert "[$reservation_indexes]" in str(result.ir)
    held = validate_package(result.package, normalize_all([_run(9, 2, 0, reads_between=True)]))
    assert [(r.served, r.matched) for r in held.rows] == [(True, True)], held.text
