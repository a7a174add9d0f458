"""Timeout: a child that overruns is abandoned and nothing it does afterwards reaches the run."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from jdsl import (
    ListTraceSink,
    RunContext,
    Status,
    act,
    check,
    optional,
    predict,
    root,
    seq,
    timeout,
)
from jdsl.testing import ScriptedModel
from jdsl.tree import ScopedContext

WAIT = 5.0  # generous upper bound; the tests release their tools explicitly


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """An event the blocking tools wait on; set at teardown so no worker outlives a test."""
    release = threading.Event()
    yield release
    release.set()
    _join_workers()


def _join_workers() -> None:
    for thread in threading.enumerate():
        if thread.name.startswith("jdsl-timeout"):
            thread.join(WAIT)


def _blocking(release: threading.Event, started: threading.Event | None = None):  # type: ignore[no-untyped-def]
    def slow() -> int:
        if started is not None:
            started.set()
        release.wait(WAIT)
        return 1

    return slow


def test_output_of_an_abandoned_child_is_discarded(gate: threading.Event) -> None:
    sink = ListTraceSink()
    tree = root("t").do(timeout(act(_blocking(gate)) >> "v", seconds=0.05))
    ctx = tree.run(trace_sink=sink)
    kinds = [e.kind for e in sink.events]
    assert ctx.status is Status.FAILURE and kinds[-1] == "episode.finished"
    gate.set()
    _join_workers()
    assert "v" not in ctx.blackboard and ctx.blackboard.writes() == []
    assert [e.kind for e in sink.events] == kinds  # nothing after episode.finished
    assert ctx.failure is not None and ctx.failure.label == "timeout(0.05s)"
    assert "did not finish within 0.05s" in ctx.failure.reason


def test_an_abandoned_child_makes_no_further_tool_calls(gate: threading.Event) -> None:
    calls: list[str] = []

    def after() -> str:
        calls.append("after")
        return "x"

    ctx = root("t").do(timeout(seq(act(_blocking(gate)), act(after) >> "a"), seconds=0.05)).run()
    gate.set()
    _join_workers()
    assert ctx.status is Status.FAILURE and calls == [] and "a" not in ctx.blackboard


def test_the_abandoned_childs_context_does_not_leak_into_later_nodes(
    gate: threading.Event,
) -> None:
    model = ScriptedModel("done")
    blocked = timeout(seq(act(_blocking(gate)), context="inner policy"), seconds=0.05)
    tree = root("t", system="outer").do(seq(optional(blocked), predict("-> a")))
    ctx = tree.run(model=model)
    assert ctx.status is Status.SUCCESS and model.calls[0]["system"] == "outer"


def seven() -> int:
    return 7


def test_a_child_that_finishes_in_time_keeps_its_writes_events_and_failure() -> None:
    sink = ListTraceSink()
    ok = root("t").do(timeout(act(seven) >> "v", seconds=WAIT))
    ctx = ok.run(trace_sink=sink)
    assert ctx.status is Status.SUCCESS and ctx.blackboard["v"] == 7 and ctx.failure is None
    kinds = [e.kind for e in sink.events]
    assert kinds.index("blackboard.write") < kinds.index("episode.finished") == len(kinds) - 1
    failing = root("t").do(timeout(check("n", 2), seconds=WAIT)).run(n=1)
    assert failing.failure is not None and failing.failure.label == "check(n == 2)"


def test_an_exception_from_a_child_in_time_propagates() -> None:
    def boom() -> None:
        raise LookupError("gone")

    with pytest.raises(LookupError, match="gone"):
        root("t").do(timeout(act(boom), seconds=WAIT)).run()


def test_a_scope_inside_an_abandoned_scope_is_abandoned() -> None:
    ctx = RunContext({"k": 1})
    outer = ScopedContext(ctx)
    inner = ScopedContext(outer)
    assert not inner.abandoned and not inner.cancel.cancelled
    outer.abandon()
    assert inner.abandoned and inner.cancel.cancelled and not ctx.abandoned
    node = check("k", 1)
    inner.write("z", 2, node)
    assert inner.read("k", node) == 1  # the value, without a record
    assert "z" not in ctx.blackboard and ctx.blackboard.reads() == []
    assert inner.emit("annotation", {}) is None and inner.trace("annotation", {}) is None
