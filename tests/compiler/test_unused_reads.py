"""Unused reads (issue 24, "reads are free"): a read some runs make and others do not, whose
result nothing after it depends on, is not compiled and the report lists it with its support;
a read an argument, a guard, a model decision or the agent's message to the user depends on
stays, and so does a read every run makes (``core/jdsl/compiler/unused.py``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, *, extra: bool, told: bool = False, guarded: bool = False) -> dict[str, Any]:
    user, order = f"u{i}", f"#W{i}0"
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": user})
    b.emit("user.message", {"content": f"Hi, I am {user}: cancel my order please."})
    b.call("get_user", {"id": user, "orders": [order]}, store="user", user_id=user)
    if extra:
        b.call("get_weather", {"city": f"Springfield{i}", "sky": f"overcast {i}0 km"},
               store="weather", city="Springfield")  # fmt: skip
        if told:  # what the agent says next comes from the weather it read
            b.emit("assistant.message", {"content": f"It is overcast {i}0 km around you."})
        if guarded:
            b.guard({"ne": [{"ref": "weather.sky"}, "storm"]})
    b.call("cancel_order", {"ok": True}, store="cancelled", order_id=order)
    return b.done(True)


def _tools(node: Any) -> list[str]:
    if not isinstance(node, dict):
        return []
    found = [str(node["tool"])] if node.get("kind") == "action" else []
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _tools(child)
    return found


def test_a_read_nothing_depends_on_is_dropped_and_reported_with_its_support() -> None:
    result = compile_behavior([_run(i, extra=i % 2 == 0) for i in range(4)], name="cancel")
    report = result.report()
    assert "get_weather" not in _tools(result.compiled.ir["root"])
    assert report["skeleton"] == ["get_user", "cancel_order"]  # one path, not two
    assert result.ok and report["verification"]["matched"] == 4, report.text
    assert any(n.startswith("unused read get_weather not compiled: 2 call(s) in 2 of the 2 run(s)")
               for n in report["notes"]), report["notes"]  # fmt: skip


def test_a_read_the_agents_message_depends_on_stays() -> None:
    runs = [_run(i, extra=i % 2 == 0, told=True) for i in range(4)]
    result = compile_behavior(runs, name="cancel")
    assert "get_weather" in _tools(result.compiled.ir["root"])
    assert not any(n.startswith("unused read") for n in result.report()["notes"])


def test_a_read_a_guard_reads_stays() -> None:
    runs = [_run(i, extra=i % 2 == 0, guarded=True) for i in range(4)]
    result = compile_behavior(runs, name="cancel")
    assert "get_weather" in _tools(result.compiled.ir["root"])


def test_a_read_every_run_makes_stays_though_nothing_reads_it() -> None:
    result = compile_behavior([_run(i, extra=True) for i in range(3)], name="cancel")
    assert "get_weather" in _tools(result.compiled.ir["root"])
    assert not any(n.startswith("unused read") for n in result.report()["notes"])
