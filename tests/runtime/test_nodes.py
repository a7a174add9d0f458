"""Composites, decorators and condition leaves: happy and failure paths."""

from __future__ import annotations

import threading

import pytest
from jdsl import (
    Status,
    act,
    check,
    guard,
    guard_call,
    invert,
    oneshot,
    optional,
    ref,
    repeat,
    root,
    sel,
    seq,
    timeout,
)
from jdsl.errors import ValidationError
from jdsl.tree import lenient_equal

S, F = Status.SUCCESS, Status.FAILURE


def ok() -> Status:
    return S


def no() -> Status:
    return F


def test_status_truthiness():
    assert S and not F
    assert S.value == "success" and F.value == "failure"


def test_sequence_and_selector(tick, counter):
    after = counter(S)
    assert tick(seq(act(ok), act(ok)))[0] is S
    assert (
        tick(
            seq(
                act(ok),
                act(no),
                act(
                    after,
                ),
            )
        )[0]
        is F
    )
    assert after.calls == []  # a sequence stops at the first failure
    assert tick(sel(act(no), act(ok)))[0] is S
    assert tick(sel(act(no), act(no)))[0] is F
    assert tick(sel(act(ok), act(after)))[0] is S
    assert after.calls == []  # a selector stops at the first success


def test_empty_composites(tick):
    assert tick(seq())[0] is S
    assert tick(sel())[0] is F


def test_invert_and_optional(tick):
    assert tick(invert(act(ok)))[0] is F
    assert tick(invert(act(no)))[0] is S
    assert tick(optional(act(no)))[0] is S
    assert tick(optional(act(ok)))[0] is S


def test_repeat_without_until_runs_max_times(tick, counter):
    step = counter(S)
    assert tick(repeat(act(step), max=4))[0] is S
    assert len(step.calls) == 4


def test_repeat_stops_when_until_succeeds(tick):
    def bump(n: int) -> int:
        return n + 1

    tree = repeat(act(bump, n=ref("n")) >> "n", until=check("n", 3), max=10)
    status, ctx = tick(tree, n=0)
    assert status is S and ctx.blackboard["n"] == 3


def test_repeat_until_never_satisfied_fails(tick, counter):
    step = counter(S)
    status, _ = tick(repeat(act(step), until=act(no), max=2))
    assert status is F and len(step.calls) == 2


def test_repeat_child_failure_aborts(tick, counter):
    step = counter(S, F, S)
    status, _ = tick(repeat(act(step), max=5))
    assert status is F and len(step.calls) == 2


def test_repeat_max_bounds():
    with pytest.raises(
        ValidationError, match=r"repeat\(\): max: .*greater than or equal to 1 \(got 0\)"
    ):
        repeat(act(ok), max=0)


def test_builders_report_refused_fields_as_jdsl_validation_errors():
    with pytest.raises(ValidationError, match=r"timeout\(\): seconds"):
        timeout(act(ok), seconds=float("inf"))
    with pytest.raises(ValidationError, match=r"root\(\): name"):
        root(5)  # type: ignore[arg-type]


def test_oneshot_runs_child_once_per_run(tick, counter):
    step = counter(S)
    status, _ = tick(repeat(oneshot(act(step)), max=3))
    assert status is S and len(step.calls) == 1
    tick(repeat(oneshot(act(step)), max=3))  # a new RunContext: fresh state
    assert len(step.calls) == 2


def test_oneshot_replays_failure(tick, counter):
    step = counter(F)
    status, _ = tick(sel(oneshot(act(step)), oneshot(act(step))))
    assert status is F and len(step.calls) == 2  # two different oneshot nodes


def test_timeout_success_and_overrun(tick):
    release = threading.Event()

    def slow() -> None:
        release.wait(5)

    try:
        assert tick(timeout(act(ok), seconds=1))[0] is S
        assert tick(timeout(act(slow), seconds=0.05))[0] is F
    finally:
        release.set()


def test_timeout_propagates_child_exception(tick):
    def boom() -> None:
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        tick(timeout(act(boom), seconds=1))


@pytest.mark.parametrize(
    ("value", "expected", "result"),
    [
        ("  Refund. ", "refund", True),
        ('"YES!"', "yes", True),
        ("refund please", "refund", False),
        (2, 2, True),
        (2, "2", False),
        (None, None, True),
    ],
)
def test_lenient_equal(value, expected, result):
    assert lenient_equal(value, expected) is result


def test_check(tick):
    assert tick(check("intent", "refund"), intent="Refund!")[0] is S
    assert tick(check("intent", "refund"), intent="exchange")[0] is F
    assert tick(check("intent", "refund"))[0] is F  # missing key reads None
    assert tick(check("missing", None))[0] is S
    assert tick(check("order.status", "pending"), order={"status": "pending"})[0] is S


def test_guard_dict_and_text(tick):
    board = {"orders": [{"status": "shipped"}, {"status": "pending"}], "i": 1}
    assert (
        tick(guard({"eq": [{"ref": "orders[$i].status"}, {"const": "pending"}]}), **board)[0] is S
    )
    assert tick(guard('orders[$i].status == "shipped"'), **board)[0] is F
    assert tick(guard("exists(receipt)"), **board)[0] is F


def test_guard_rejects_malformed_expression():
    with pytest.raises(ValidationError):
        guard({"nope": 1})


def test_guard_call(tick):
    def is_pending(order: dict) -> bool:
        return order["status"] == "pending"

    assert tick(guard_call(is_pending, order=ref("order")), order={"status": "pending"})[0] is S
    assert tick(guard_call(is_pending, ref("order")), order={"status": "shipped"})[0] is F


def test_guard_call_exception_propagates(tick):
    def broken(order: dict) -> bool:
        raise RuntimeError("predicate broke")

    with pytest.raises(RuntimeError, match="predicate broke"):
        tick(guard_call(broken, order=ref("order")), order={})


def test_routing_idiom(tick, counter):
    """predict writes a field, then sel(seq(check(...), act(...)), fallback) consumes it."""
    refund, escalate = counter("refunded"), counter("escalated")
    tree = sel(
        seq(check("intent", "refund"), act(refund) >> "result"),
        act(escalate) >> "result",
    )
    status, ctx = tick(tree, intent="refund.")
    assert status is S and ctx.blackboard["result"] == "refunded" and escalate.calls == []
    status, ctx = tick(tree, intent="other")
    assert status is S and ctx.blackboard["result"] == "escalated" and len(refund.calls) == 1


def test_labels():
    def lookup(email: str) -> dict:
        return {}

    assert (act(lookup, email=ref("e")) >> "customer").label == "act(lookup) -> customer"
    assert check("k", "v").label == "check(k == 'v')"
    assert repeat(act(ok), max=2).label == "repeat(max=2)"
    assert timeout(act(ok), seconds=3).label == "timeout(3.0s)"
    assert guard("exists(a) and exists(b)").label == "guard(and)"
    assert guard_call(lookup, email=ref("e")).label == "guard_call(lookup)"
    assert seq().label == "seq" and sel().label == "sel" and invert(seq()).label == "invert"
