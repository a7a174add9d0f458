"""Runs that make a compiled path's writes and then write again, each its own way, too thin to
compile (issue 24, large families): the program ends with a route decision, done or hand the
rest to the fallback, so they are accounted for as fallbacks after matching writes
(``core/jdsl/compiler/staticize/again.py``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior, validate_package

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, orders: int, *, look: str = "get_order") -> dict[str, Any]:
    user = f"u{i}"
    ids = [f"#W{i}{k}" for k in range(orders)]
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": user})
    b.call("get_user", {"id": user, "orders": ids}, store="user", user_id=user)
    for k, order in enumerate(ids):
        tool = look if k else "get_order"
        b.call(tool, {"order_id": order, "status": "pending"}, store=f"order{k}", order_id=order)
        b.call("cancel_order", {"ok": True}, store=f"cancelled{k}", order_id=order)
    return b.done(True)


def test_runs_that_write_again_are_handed_to_the_fallback_after_the_first_write() -> None:
    runs = [_run(i, 1) for i in range(4)] + [_run(4, 2), _run(5, 2, look="find_order")]
    result = compile_behavior(runs, name="cancel")
    v = result.verification
    assert result.ok, result.report().text
    assert (v.executed, v.matched, v.fallbacks) == (6, 4, 2)
    assert any("write again" in n for n in result.report()["notes"])
    held = validate_package(result.package, [_run(9, 1), _run(8, 2)])
    assert [(r.served, r.matched) for r in held.rows] == [(True, True), (False, None)]
    assert held.rows[1].execution is not None and held.rows[1].execution.fallback is not None


def test_without_such_runs_the_program_just_ends() -> None:
    result = compile_behavior([_run(i, 1) for i in range(4)], name="cancel")
    assert result.ok and not any("write again" in n for n in result.report()["notes"])
    assert "more_to_do" not in str(result.ir)
