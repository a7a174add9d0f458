"""Matched means the same effects; a fallback takes over where the compiled program stops.

A teacher family with two writes (update an order's address, then cancel it) compiles to a
package that verification executes on every successful run. Packages made wrong on purpose (a
write argument changed, a write dropped, the two writes swapped) fail verification, each at its
first differing write; a run that leaves the compiled path is handed to the fallback, and the
trace says where and why.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jdsl.commands.package import fallback_note
from jdsl.compiler import compile_behavior, execute, normalize_all, validate_package
from jdsl.compiler.fallback import (
    FALLBACK_ID,
    WRAPPER_ID,
    split_fallback,
    takeover,
    takeover_note,
)
from jdsl.compiler.verify import verify
from jdsl.ir import from_ir
from jdsl.testing import ScriptedModel
from jdsl.trace import ListTraceSink
from jdsl.tree import Status

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, *, extra_read: bool = False, orders: int = 1) -> dict[str, Any]:
    user, order = f"u{i}", f"#W{i}0"
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": user, "zip": f"{i:02d}123"})
    b.call("get_user", {"id": user, "orders": [order] + [f"#X{i}{k}" for k in range(1, orders)]},
           store="user", user_id=user)  # fmt: skip
    b.call("get_order", {"id": order, "status": "pending"}, store="order", order_id=order)
    if extra_read:
        b.call("get_product", {"id": "P1"}, store="product", product_id="P1")
    b.call("update_address", {"ok": True}, store="updated", order_id=order, zip=f"{i:02d}123")
    b.call("cancel_order", {"ok": True}, store="cancelled", order_id=order,
           reason="no longer needed")  # fmt: skip
    return b.done(True)


@pytest.fixture(scope="module")
def family() -> Any:
    return compile_behavior([_run(i) for i in range(4)], name="update_then_cancel")


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _nodes(child) if isinstance(child, dict) else []
    return found


def _action(ir: dict[str, Any], tool: str) -> dict[str, Any]:
    return next(n for n in _nodes(ir["root"]) if n.get("kind") == "action" and n["tool"] == tool)


def _wrong(result: Any, edit: Callable[[dict[str, Any]], None]) -> Any:
    compiled = copy.deepcopy(result.compiled)
    edit(compiled.ir)
    return verify(compiled, result.normalized)


def test_the_family_verifies_by_its_writes(family: Any) -> None:
    assert family.ok, family.verification.problems
    v = family.verification
    assert (v.executed, v.matched, v.fallbacks) == (4, 4, 0)
    assert "fallback" in v.to_dict() and "4 matched, 0 fallback" in str(family.report())


def test_a_changed_write_argument_fails_verification(family: Any) -> None:
    def change(ir: dict[str, Any]) -> None:
        _action(ir, "cancel_order")["args"]["reason"] = {"const": "changed my mind"}

    report = _wrong(family, change)
    first = report.divergences[0]
    assert report.status == "failed" and report.matched == 0 and first.kind == "write"
    assert first.expected == "cancel_order(order_id='#W00', reason='no longer needed')"
    assert "different arguments" in first.reason


def test_a_dropped_write_fails_verification(family: Any) -> None:
    def drop(ir: dict[str, Any]) -> None:
        for node in _nodes(ir["root"]):
            kids = node.get("children") or []
            node_ids = [_action_of(k) for k in kids]
            if "update_address" in node_ids:
                del kids[node_ids.index("update_address")]

    report = _wrong(family, drop)
    first = report.divergences[0]
    assert report.status == "failed" and report.matched == 0
    assert first.expected is not None and first.expected.startswith("update_address(")
    assert first.actual is not None and first.actual.startswith("cancel_order(")


def _action_of(node: dict[str, Any]) -> str | None:
    """The tool of an action, or of the action a ref-guarded sequence wraps."""
    if node.get("kind") == "action":
        return str(node["tool"])
    kids = node.get("children") or []
    return _action_of(kids[-1]) if node.get("kind") == "sequence" and len(kids) == 2 else None


def test_two_swapped_writes_fail_verification(family: Any) -> None:
    def swap(ir: dict[str, Any]) -> None:
        update, cancel = _action(ir, "update_address"), _action(ir, "cancel_order")
        update_copy = dict(update)
        update.clear(), update.update(cancel)
        cancel.clear(), cancel.update(update_copy)

    report = _wrong(family, swap)
    first = report.divergences[0]
    assert report.status == "failed" and report.matched == 0 and first.kind == "write"
    assert first.expected.startswith("update_address(") and first.actual.startswith("cancel_order(")


def test_reads_may_differ_and_every_successful_run_is_executed() -> None:
    runs = [_run(i) for i in range(3)] + [_run(3, extra_read=True), _run(4, extra_read=True)]
    result = compile_behavior(runs + [_failed(9)], name="update_then_cancel")
    v = result.verification
    assert v.executed == 5 and v.matched + v.fallbacks == 5 and not v.divergences
    # the held-out run that looked up one more thing makes the same writes: matched
    report = validate_package(compile_behavior(runs[:3], name="u").package,
                              normalize_all([_run(7, extra_read=True)]))  # fmt: skip
    assert report.rows[0].outcome == "matched", report.text


def _failed(i: int) -> dict[str, Any]:
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}", "zip": "00000"})
    b.call("get_user", {"id": f"u{i}", "orders": []}, store="user", user_id=f"u{i}")
    return b.done(False)


# -- the fallback --------------------------------------------------------------------------------
def test_the_package_carries_a_react_fallback_with_the_family_tools(family: Any) -> None:
    root = family.package.ir["root"]
    wrapper = root["child"]
    assert wrapper["kind"] == "selector" and wrapper["id"] == WRAPPER_ID
    fallback = wrapper["children"][1]
    assert fallback["kind"] == "react" and fallback["id"] == FALLBACK_ID
    assert fallback["tools"] == ["cancel_order", "get_order", "get_user", "update_address"]
    inputs = fallback["signature"].split(" -> ")[0].split(", ")
    assert inputs[:2] == ["conversation", "failure"] and {"user", "order", "cancelled"} <= set(
        inputs
    )
    assert "update_address -> updated" in fallback["instructions"]
    assert set(fallback["tools"]) <= set(family.package.required_capabilities)
    bare, found = split_fallback(family.package.ir)
    assert found == fallback and bare["root"]["child"] == wrapper["children"][0]
    assert family.ir == family.compiled.ir or family.ir["root"]["child"]["kind"] == "sequence"


def _tools(calls: list[str], user_orders: list[str]) -> dict[str, Callable[..., Any]]:
    def get_user(user_id: str) -> dict[str, Any]:
        calls.append(f"get_user {user_id}")
        return {"id": user_id, "orders": user_orders}

    def get_order(order_id: str) -> dict[str, Any]:
        calls.append(f"get_order {order_id}")
        return {"id": order_id, "status": "pending"}

    def update_address(order_id: str, zip: str) -> dict[str, Any]:
        calls.append(f"update_address {order_id}")
        return {"ok": True}

    def cancel_order(order_id: str, reason: str) -> dict[str, Any]:
        calls.append(f"cancel_order {order_id}")
        return {"ok": True}

    return {f.__name__: f for f in (get_user, get_order, update_address, cancel_order)}


def test_a_missing_value_hands_over_to_the_fallback_and_the_trace_says_where(family: Any) -> None:
    root = from_ir(family.package.ir)
    calls: list[str] = []
    sink = ListTraceSink()
    ctx = root.run(tools=_tools(calls, []), model=ScriptedModel("You have no order to cancel."),
                   trace_sink=sink, user_id="u9", zip="99999", conversation=["cancel it"])  # fmt: skip
    assert ctx.status is Status.SUCCESS and ctx.blackboard["answer"].startswith("You have no")
    assert calls == ["get_user u9"]  # no write was made before the fallback took over
    fallback = [e for e in sink.events if e.kind == "react.started"][-1]
    taken = fallback.payload["after_failure"]  # the step that failed (no order to pick) and why
    assert taken["node_id"] and taken["reason"]
    assert fallback.payload["inputs"]["failure"] == f"{taken['node_id']}: {taken['reason']}"
    assert fallback.payload["inputs"]["user"] == {"id": "u9", "orders": []}


def test_replay_reports_where_the_fallback_takes_over(family: Any) -> None:
    b = EpisodeBuilder("held", inputs={"user_id": "u8", "zip": "08123"})
    b.call("get_user", {"id": "u8", "orders": ["#W80"]}, store="user", user_id="u8")
    b.call("get_order", {"status": "pending"}, store="order", order_id="#W80")  # no id field
    episode = normalize_all([b.done(True)])[0]
    run = execute(family.package.ir, episode)
    assert run.outcome == "fallback" and run.fallback is not None and run.divergence is None
    assert run.fallback.writes_done == 0 and "order.id" in run.fallback.reason
    report = validate_package(family.package, [episode])
    row = report.rows[0]
    assert row.outcome == "fallback" and not row.served and report.fallbacks == 1
    assert "fallback after 0 write(s)" in report.text and "1 fallback" in report.summary()


def test_without_a_fallback_the_compiled_failure_stands() -> None:
    result = compile_behavior([_run(i) for i in range(3)], name="u", fallback=False)
    assert split_fallback(result.package.ir)[1] is None
    ctx = from_ir(result.package.ir).run(tools=_tools([], []), user_id="u9", zip="1",
                                         raise_errors=False)  # fmt: skip
    assert ctx.status is not Status.SUCCESS


def test_the_trace_and_the_replay_say_the_same_takeover(family: Any) -> None:
    # a live run whose order has no id (the value the cancel needs is missing) ...
    tools = _tools([], ["#W80"])
    tools["get_order"] = lambda order_id: {"status": "pending"}
    sink = ListTraceSink()
    from_ir(family.package.ir).run(
        tools=tools, model=ScriptedModel("0", "I cannot find that order's id."),
        trace_sink=sink, user_id="u8", zip="08123", conversation=["cancel it"],
    )  # fmt: skip
    taken = takeover(sink.events)
    after = next(e for e in sink.events if e.kind == "react.started").payload["after_failure"]
    assert taken is not None and taken.fallback_id == FALLBACK_ID and taken.call_index == 2
    assert (taken.node_id, taken.reason) == (after["node_id"], after["reason"])
    note = fallback_note(sink.events)
    assert note is not None and f"stopped at {taken.node_id} ({taken.reason})" in note
    # ... and the replay of a recorded run that found the same stop at the same node, for the
    # same reason, after the same calls
    b = EpisodeBuilder("held", inputs={"user_id": "u8", "zip": "08123"})
    b.call("get_user", {"id": "u8", "orders": ["#W80"]}, store="user", user_id="u8")
    b.call("get_order", {"status": "pending"}, store="order", order_id="#W80")
    replayed = execute(family.package.ir, normalize_all([b.done(True)])[0]).fallback
    assert replayed is not None
    assert (replayed.node_id, replayed.reason, replayed.call_index) == (
        taken.node_id, taken.reason, taken.call_index)  # fmt: skip
    assert takeover([e for e in sink.events if e.kind != "node.enter"]) is None


def test_the_cli_and_the_notebook_say_the_takeover_in_one_wording(family: Any) -> None:
    """``jdsl package run``'s note and the notebook's package-run note are one text, kept next
    to :func:`takeover` (the notebook may not import command code)."""
    from jdsl_nb.binding import package_notes

    tools = _tools([], ["#W80"])
    tools["get_order"] = lambda order_id: {"status": "pending"}
    sink = ListTraceSink()
    seeds = {"user_id": "u8", "zip": "08123", "conversation": ["cancel it"]}
    from_ir(family.package.ir).run(tools=tools, model=ScriptedModel("0", "No id."),
                                   trace_sink=sink, **seeds)  # fmt: skip
    said = takeover_note(sink.events)
    assert said is not None and said.startswith("the compiled program stopped at ")
    assert fallback_note(sink.events) == f"note: {said}"
    assert package_notes(family.package, seeds, sink.events)[-1] == said
