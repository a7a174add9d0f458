"""A write acting on an element of a list is never a fixed count (issue 24, "positions are
choices"), even in a family of one run: ``cancel_reservation`` on one of the user's
reservations compiles to ``for_each reservation_id in user.reservations[$reservation_indexes]``,
so a run cancelling two is served and matched (staticize/loops.py). Where the element was a
teacher program's own action, the user stated the id, or the other arguments are values of the
element acted on, the call stays one call."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, normalize_all, validate_package
from jdsl.compiler.staticize import loops
from jdsl.ir import from_ir
from jdsl.text import format_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, count: int, picks: list[int], *, node_type: str = "react",
         said: bool = False, reads: bool = True) -> dict[str, Any]:  # fmt: skip
    ids = [f"R{i}S{k}T" for k in range(count)]
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    what = " and ".join(ids[k] for k in picks) if said else "the trips I no longer need"
    b.emit("user.message", {"content": f"please cancel {what}"})
    b.call("get_user", {"reservations": ids}, store="user", node_id="agent", node_type=node_type,
           user_id=f"u{i}")  # fmt: skip
    for k in range(count if reads else 0):
        b.call("get_reservation", {"reservation_id": ids[k], "status": "booked"},
               node_id="agent", node_type=node_type, reservation_id=ids[k])  # fmt: skip
    for k in picks:
        b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type=node_type,
               reservation_id=ids[k])  # fmt: skip
    return b.done(True)


def _text(result: Any) -> str:
    return format_behavior(from_ir(result.compiled.ir))


@pytest.mark.parametrize("reads", [True, False])
def test_one_run_cancelling_one_compiles_a_loop_that_serves_a_run_cancelling_two(
    reads: bool,
) -> None:
    result = compile_behavior([_run(0, 3, [1], reads=reads)], name="cancel")
    text = _text(result)
    assert "for_each reservation_id in user.reservations[$reservation_indexes]" in text, text
    assert "-> reservation_indexes: list[int]" in text, text
    assert result.ok, result.report().text
    held = validate_package(result.package, normalize_all([_run(9, 7, [4, 2], reads=reads),
                                                           _run(8, 3, [0], reads=reads)]))  # fmt: skip
    assert [(r.served, r.matched) for r in held.rows] == [(True, True)] * 2, held.text


def test_the_same_family_compiled_as_a_fixed_count_diverges_on_a_run_cancelling_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # built wrong on purpose: without loops over the elements a write acts on, one cancel
    monkeypatch.setattr(loops, "_acting", lambda *a, **k: set())
    result = compile_behavior([_run(0, 3, [1])], name="cancel")
    assert "user.reservations[$reservation_indexes]" not in _text(result), _text(result)
    assert result.ok  # its own run cannot tell
    held = validate_package(result.package, normalize_all([_run(9, 7, [4, 2])]))
    (row,) = held.rows
    assert row.served and not row.matched, held.text
    assert row.execution is not None and row.execution.divergence is not None
    assert row.execution.divergence.kind == "missing", row.execution.divergence


def test_a_teachers_own_action_keeps_its_count() -> None:
    result = compile_behavior([_run(0, 3, [1], node_type="action")], name="cancel")
    assert "for_each" not in _text(result), _text(result)


def test_an_id_the_user_stated_stays_a_stated_input() -> None:
    runs = [_run(0, 3, [1], said=True), _run(1, 4, [2], said=True)]
    result = compile_behavior(runs, name="cancel")
    assert "for_each reservation_id in user.reservations[$" not in _text(result), _text(result)
