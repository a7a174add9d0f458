"""No package writes to a fixed list position (issue 24, "positions are choices"): a program
compiled from one run that cancels ``user.reservations[1]`` matches its only run, so replay and
execution pass it; verification refuses it, naming the write, the argument and the list the
run chose from. So does a read by position whose result a write takes its argument from
(``get_reservation(user.reservations[1]) -> r``, then ``cancel_reservation(r.reservation_id)``).
A fixed position of a list that held one element in every run is no choice."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior, normalize_all
from jdsl.ir.walk import walk_ir

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder, compiled, verify_broken  # noqa: E402
from test_acting_loops import _run  # noqa: E402


def _node(ir: dict[str, Any], tool: str) -> dict[str, Any]:
    return next(n for n in walk_ir(ir["root"]) if n.get("tool") == tool)


def _fixed(ir: dict[str, Any]) -> dict[str, Any]:
    """The cancel (in its selection loop) given ``user.reservations[1]`` instead."""
    wrong = copy.deepcopy(ir)
    _node(wrong, "cancel_reservation")["args"]["reservation_id"] = {"ref": "user.reservations[1]"}
    return wrong


def _read_fixed(ir: dict[str, Any]) -> dict[str, Any]:
    """The reservation read (in its loop) at ``user.reservations[1]``, and the cancel taking
    the id from what that read returned."""
    wrong = copy.deepcopy(ir)
    read = _node(wrong, "get_reservation")
    read["args"]["reservation_id"] = {"ref": "user.reservations[1]"}
    cancel = _node(wrong, "cancel_reservation")
    cancel["args"]["reservation_id"] = {"ref": f"{read['store']}.reservation_id"}
    return wrong


def test_a_write_to_a_fixed_position_fails_verification() -> None:
    result = compile_behavior([_run(0, 3, [1])], name="cancel")
    assert result.ok, result.report().text
    report = verify_broken(result, _fixed)
    assert not report.ok
    (problem,) = [p for p in report.structural_problems if "fixed position" in p]
    assert "cancel_reservation" in problem and "user.reservations[1]" in problem, problem
    assert "3 elements" in problem, problem


def test_a_read_by_position_feeding_a_write_fails_verification() -> None:
    result = compile_behavior([_run(0, 3, [1])], name="cancel")
    report = verify_broken(result, _read_fixed)
    assert any("fixed position" in p and "get_reservation" in p
               for p in report.structural_problems), report.structural_problems  # fmt: skip


def test_the_only_element_of_a_list_is_no_choice() -> None:
    runs = []
    for i in range(2):
        b = AgentBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
        b.call("get_user", {"reservations": [f"R{i}"]}, store="user", user_id=f"u{i}")
        b.call("cancel_reservation", {"ok": True}, store="done", reservation_id=f"R{i}")
        runs.append(b.done(True))
    result = compiled(normalize_all(runs), name="cancel")

    def first(ir: dict[str, Any]) -> dict[str, Any]:
        wrong = copy.deepcopy(ir)
        _node(wrong, "cancel_reservation")["args"]["reservation_id"] = {
            "ref": "user.reservations[0]"
        }
        return wrong

    report = verify_broken(result, first)
    assert not any("fixed position" in p for p in report.structural_problems), report


def test_a_write_in_a_loop_over_a_fixed_elements_list_fails_verification() -> None:
    """``for_each reservation_id in users[1].reservations``: the user whose reservations are
    cancelled is a fixed position of a list of two."""
    runs = []
    for i in range(2):
        ids = [f"R{i}S{k}T" for k in range(3)]
        b = AgentBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
        b.call("find_users", [{"reservations": ["X"]}, {"reservations": ids}], store="users",
               user_id=f"u{i}")  # fmt: skip
        b.call("cancel_reservation", {"ok": True}, reservation_id=ids[1])
        runs.append(b.done(True))
    result = compiled(normalize_all(runs), name="cancel")

    def in_a_loop(ir: dict[str, Any]) -> dict[str, Any]:
        wrong = copy.deepcopy(ir)
        cancel = _node(wrong, "cancel_reservation")
        child = dict(cancel)
        cancel.clear()
        cancel.update(kind="for_each", id="each_cancel", items="users[1].reservations",
                      item="reservation_id", child=child)  # fmt: skip
        return wrong

    report = verify_broken(result, in_a_loop)
    assert any("fixed position users[1].reservations" in p
               for p in report.structural_problems), report.structural_problems  # fmt: skip
