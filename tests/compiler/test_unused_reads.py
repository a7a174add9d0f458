"""Reads are free (issue 24): a read-only call whose result nothing after it depends on is not
compiled, and the report says so; a read an argument, a guard, a decision's inputs or a value a
model wrote depends on stays (compiler/noops.py, docs/design.md §6)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, *, extra: bool, summary: bool = False) -> dict[str, Any]:
    user, order = f"u{i}", f"#W{i}0"
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": user})
    b.call("get_user", {"id": user, "orders": [order]}, store="user", user_id=user)
    if extra:
        b.call("get_weather", {"city": f"Springfield{i}", "sky": "clear"}, store="weather",
               city="Springfield")  # fmt: skip
    b.call("cancel_order", {"ok": True}, store="cancelled", order_id=order)
    if summary:
        b.call("transfer_to_human_agents", {"ok": True}, node_id="agent", node_type="react",
               summary=f"user {user} asked about Springfield{i} weather")  # fmt: skip
    return b.done(True)


def _tools(node: Any) -> list[str]:
    if not isinstance(node, dict):
        return []
    found = [str(node["tool"])] if node.get("kind") == "action" else []
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _tools(child)
    return found


def test_a_read_nothing_depends_on_is_dropped_and_reported() -> None:
    result = compile_behavior([_run(i, extra=i % 2 == 0) for i in range(4)], name="cancel")
    report = result.report()
    assert "get_weather" not in _tools(result.compiled.ir["root"])
    assert report["skeleton"] == ["get_user", "cancel_order"]
    assert result.ok and report["verification"]["matched"] == 4, report.text
    assert any("read get_weather dropped in 2 call(s)" in n for n in report["notes"])


def test_a_read_a_model_written_value_mentions_stays() -> None:
    result = compile_behavior([_run(i, extra=True, summary=True) for i in range(3)], name="c")
    assert "get_weather" in _tools(result.compiled.ir["root"])
    assert not any("dropped" in n for n in result.report()["notes"])


def test_a_read_a_guard_reads_stays() -> None:
    runs = []
    for i in range(3):
        b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
        b.call("get_user", {"id": f"u{i}", "status": "active"}, store="user", user_id=f"u{i}")
        b.guard({"eq": [{"ref": "user.status"}, "active"]})
        b.call("reset_password", {"ok": True}, store="done", account="main")
        runs.append(b.done(True))
    result = compile_behavior(runs, name="reset")
    assert "get_user" in _tools(result.compiled.ir["root"])
