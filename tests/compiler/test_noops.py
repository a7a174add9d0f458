"""No-op tools are not compiled: a ``think`` scratchpad (read-only, answers nothing, its result
unused) between a lookup and a write leaves no step, no model decision, and a note in the
report (:mod:`jdsl.compiler.noops`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, *, think: bool) -> dict[str, Any]:
    user, order = f"u{i}", f"#W{i}0"
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": user})
    b.call("get_user", {"id": user, "orders": [order]}, store="user", user_id=user)
    if think:
        b.call("think", "", store="think_out", thought=f"the order is {order}, cancel it ({i})")
    b.call("cancel_order", {"ok": True}, store="cancelled", order_id=order)
    return b.done(True)


def _tools(node: Any) -> list[str]:
    if not isinstance(node, dict):
        return []
    found = [str(node["tool"])] if node.get("kind") == "action" else []
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _tools(child)
    return found


def test_think_is_not_compiled_and_the_report_says_so() -> None:
    runs = [_run(i, think=i % 2 == 0) for i in range(4)]
    result = compile_behavior(runs, name="cancel")
    report = result.report()
    assert "think" not in _tools(result.ir["root"])
    assert report["skeleton"] == ["get_user", "cancel_order"]
    assert result.ok, report.text
    assert report["verification"]["matched"] == 4
    assert not [d for d in report["model_decisions"] if "thought" in d]
    assert any("no-op tool think" in note for note in report["notes"])


def test_a_read_whose_result_is_used_stays() -> None:
    runs = [_run(i, think=False) for i in range(3)]
    result = compile_behavior(runs, name="cancel")
    assert _tools(result.ir["root"]) == ["get_user", "cancel_order"]
    assert not any("no-op" in note for note in result.report()["notes"])
