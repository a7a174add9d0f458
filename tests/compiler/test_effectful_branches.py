"""Branches on effectful alternatives (issue 12, teacher 3) and packages made wrong by hand."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from jdsl.compiler import compile_behavior
from jdsl.compiler.verify import verify
from jdsl.ir import from_ir
from jdsl.testing import FunctionModel
from jdsl.text import parse_behavior
from jdsl.trace import ListTraceSink, segment_episodes
from jdsl.tree import Status

TEACHER = """\
root handle
  seq
    act get_orders(user=user) -> orders
    predict "request, orders -> i: int" id=pick
      | The index of the order the request is about.
    sel
      seq
        guard orders[$i].status == "pending"
        act cancel(order_id=orders[$i].id) -> receipt
      act escalate(summary=request)
"""
PENDING = {"n": 0, "status": "pending"}


class Shop:
    """Fake tools recording every call; user ``u<n>`` has two orders."""

    def __init__(self, statuses: dict[str, tuple[str, str]]) -> None:
        self.calls: list[str] = []
        self.statuses = statuses

        def get_orders(user: str) -> list[dict[str, Any]]:
            self.calls.append(f"get_orders {user}")
            return [{"id": f"#{user}-{k}", "status": s} for k, s in enumerate(statuses[user])]

        def cancel(order_id: str) -> dict[str, Any]:
            self.calls.append(f"cancel {order_id}")
            return {"cancelled": order_id}

        def escalate(summary: str) -> str:
            self.calls.append(f"escalate {summary}")
            return "ticket-1"

        self.tools = {f.__name__: f for f in (get_orders, cancel, escalate)}


def _picker(system: str, messages: list[Any], tools: list[Any], model_id: str | None) -> str:
    """Answers ``i``: the order index named in the request (``... order 1 ...``)."""
    return re.search(r"order (\d)", messages[-1].content).group(1)  # type: ignore[union-attr]


def _case(n: int, pending: bool, index: int) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    other = "pending" if index else "delivered"
    chosen = "pending" if pending else "shipped"
    statuses = (chosen, other) if index == 0 else (other, chosen)
    user = f"u{n}"
    return {user: statuses}, {"user": user, "request": f"please cancel order {index} ref {n}x"}


def _episodes() -> list[Any]:
    sink = ListTraceSink()
    tree = parse_behavior(TEACHER)
    for n in range(6):
        statuses, inputs = _case(n, pending=n % 2 == 0, index=n % 2)
        tree.run(model=FunctionModel(_picker), tools=Shop(statuses).tools, trace_sink=sink,
                 episode_id=f"ep{n}", **inputs)  # fmt: skip
    return segment_episodes(sink.events)


@pytest.fixture(scope="module")
def compiled() -> Any:
    return compile_behavior(_episodes(), name="handle", fallback=False)  # edited by hand below


def test_both_effectful_paths_compile_selected_by_the_teachers_condition(compiled) -> None:
    assert compiled.ok, compiled.report().text
    v = compiled.verification
    assert v.executed == v.matched == 6 and compiled.compiled.aligned == tuple(
        f"ep{n}" for n in range(6)
    )
    (branch,) = compiled.compiled.branches
    assert branch.selection == "conditions" and branch.tail == ()
    cancel, escalate = branch.alternatives
    assert cancel.tools == ("cancel",) and escalate.tools == ("escalate",)
    assert cancel.selected_by == ('orders[$i].status == "pending"',)
    assert escalate.selected_by == ('not orders[$i].status == "pending"',)
    text = str(compiled.report())
    assert "cancel (3 episodes, when orders[$i].status" in text


def test_no_effectful_alternative_is_reachable_without_its_guard(compiled) -> None:
    selector = compiled.ir["root"]["child"]["children"][-1]
    assert selector["kind"] == "selector"
    for alternative in selector["children"]:
        body = alternative["children"]
        selecting = [i for i, n in enumerate(body) if "status" in str(n.get("expression"))]
        assert selecting and selecting[0] < len(body) - 1 and body[-1]["kind"] == "action"
    # the negated condition prints and parses back
    from jdsl.text import format_behavior

    root = from_ir(compiled.ir)
    assert parse_behavior(format_behavior(root)).to_ir() == root.to_ir()


def test_the_package_behaves_like_the_teacher_on_20_fresh_inputs(compiled) -> None:
    package, teacher = from_ir(compiled.ir), parse_behavior(TEACHER)
    for n in range(100, 120):
        statuses, inputs = _case(n, pending=n % 2 == 0, index=(n // 2) % 2)
        ran = []
        for tree in (teacher, package):
            shop = Shop(statuses)
            ctx = tree.run(model=FunctionModel(_picker), tools=shop.tools, **inputs)
            assert ctx.status is Status.SUCCESS, ctx.failure
            ran.append(shop.calls)
        assert ran[0] == ran[1]
        side = "cancel" if n % 2 == 0 else "escalate"
        assert ran[1][-1].startswith(side)  # a shipped order escalates


# -- packages made wrong by hand ---------------------------------------------------------------
def _broken(compiled: Any, edit: Any) -> Any:
    wrong = copy.deepcopy(compiled.compiled)
    edit(wrong.ir["root"]["child"]["children"][-1]["children"])
    return verify(wrong, compiled.normalized)


def test_a_swapped_branch_fails_verification_naming_the_first_divergence(compiled) -> None:
    def swap(alternatives: list[dict[str, Any]]) -> None:
        first, second = (a["children"] for a in alternatives)
        first[-1], second[-1] = second[-1], first[-1]

    report = _broken(compiled, swap)
    assert report.status == "failed" and report.matched == 0
    first = report.divergences[0]
    assert (first.episode_id, first.call_index) == ("ep0", 1)
    assert first.expected == "cancel(order_id='#u0-0')"
    assert first.actual == "escalate(summary='please cancel order 0 ref 0x')"


def test_a_missing_guard_fails_verification_on_the_other_side(compiled) -> None:
    def drop(alternatives: list[dict[str, Any]]) -> None:
        body = alternatives[0]["children"]
        body[:] = [n for n in body if "status" not in str(n.get("expression"))]

    report = _broken(compiled, drop)
    assert report.status == "failed" and report.matched == 3
    first = report.divergences[0]
    assert first.episode_id == "ep1" and first.expected.startswith("escalate(")
    assert first.actual == "cancel(order_id='#u1-1')"
    assert "execution episode 'ep1'" in report.problems[-3]


def test_a_path_with_one_episode_is_reported_unless_min_support_is_lowered() -> None:
    two = [e for e in _episodes() if e.episode_id not in ("ep3", "ep5")]  # escalate: ep1 only
    default = compile_behavior(two, name="handle")
    assert default.compiled.branches == ()
    assert any("fewer than 2 episodes" in n for n in default.compiled.notes)
    lowered = compile_behavior(two, name="handle", min_support=1)
    assert len(lowered.compiled.branches) == 1 and lowered.ok
    with pytest.raises(ValueError, match="min_support"):
        compile_behavior(two, name="handle", min_support=0)


def test_jdsl_compile_min_support_lowers_the_support_an_alternative_needs(tmp_path) -> None:
    from jdsl.cli import app
    from jdsl.trace import JsonlTraceSink
    from typer.testing import CliRunner

    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path) as sink:
        tree = parse_behavior(TEACHER)
        for n in (0, 1, 2, 4):  # escalate: ep1 only
            statuses, inputs = _case(n, pending=n % 2 == 0, index=n % 2)
            tree.run(model=FunctionModel(_picker), tools=Shop(statuses).tools, trace_sink=sink,
                     episode_id=f"ep{n}", **inputs)  # fmt: skip
    runner = CliRunner()
    plain = runner.invoke(app, ["compile", str(path), "-o", str(tmp_path / "a.jdsl")])
    assert plain.exit_code == 0 and "branch " not in plain.output
    assert "fewer than 2 episodes each" in plain.output
    low = runner.invoke(app, ["compile", str(path), "-o", str(tmp_path / "b.jdsl"),
                              "--min-support", "1"])  # fmt: skip
    assert low.exit_code == 0, low.output
    assert "branch        branch_1: cancel (3 episodes" in low.output
    assert "executed 4 episode(s), 4 matched" in low.output
    bad = runner.invoke(app, ["compile", str(path), "-o", str(tmp_path / "c.jdsl"),
                              "--min-support", "0"])  # fmt: skip
    assert bad.exit_code != 0
