"""Positions are choices (issue 24): an id that is an element of a list in state is a selection
among those elements (a residual ``int`` over the list), not a run input the user states, unless
every run of the family had the user state it (docs/design.md §6). Airline
``tau_airline_test_2_2``: the user never states the reservation id, the agent finds it among the
user's reservations; the runs the package was compiled from happened to state it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior, normalize_all, validate_package

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, pick: int, *, said: bool, ok: bool = True) -> dict[str, Any]:
    ids = [f"R{i}X{k}Q" for k in range(3)]
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    said_text = f"please cancel my reservation {ids[pick]}" if said else "cancel my latest trip"
    b.emit("user.message", {"content": said_text})
    b.call("get_user", {"reservations": ids}, store="user", node_id="agent", node_type="react",
           user_id=f"u{i}")  # fmt: skip
    if ok:
        b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type="react",
               reservation_id=ids[pick])  # fmt: skip
    else:
        b.call("cancel_reservation", error="not allowed", node_id="agent", node_type="react",
               reservation_id=ids[pick])  # fmt: skip
    return b.done(ok)


def _cancel(result: Any) -> Any:
    (choice,) = next(a for a in result.compiled.actions if a.tool == "cancel_reservation").choices
    return choice


def test_an_id_some_users_of_the_family_did_not_state_is_a_selection() -> None:
    runs = [_run(0, 0, said=True), _run(1, 2, said=True), _run(2, 1, said=True),
            _run(3, 1, said=False, ok=False)]  # fmt: skip
    result = compile_behavior(runs, name="cancel")
    choice = _cancel(result)
    assert (choice.how, choice.spec) == (
        "selection",
        {"ref": "user.reservations[$reservation_index]"},
    ), result.report().text
    assert result.ok, result.report().text
    held = validate_package(result.package, normalize_all([_run(9, 2, said=False)]))
    (row,) = held.rows
    assert row.served and row.matched, held.text()


def test_an_id_every_user_of_the_family_stated_stays_a_stated_input() -> None:
    runs = [_run(0, 0, said=True), _run(1, 2, said=True), _run(2, 1, said=True)]
    choice = _cancel(compile_behavior(runs, name="cancel"))
    assert (choice.how, choice.stated) == ("input", True)
