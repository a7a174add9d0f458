"""RunContext.failure: why a run returned FAILURE, traced or not, cleared when recovered."""

from __future__ import annotations

import jdsl
import pytest
from jdsl import (
    ListTraceSink,
    Status,
    act,
    check,
    guard,
    guard_call,
    invert,
    oneshot,
    optional,
    react,
    ref,
    repeat,
    root,
    sel,
    seq,
)
from jdsl.providers.messages import ModelTurn, ToolCall
from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior
from jdsl.tree import Failure, Node, RunContext, Selector
from jdsl.tree.status import Status as S


def refuse() -> Status:
    return Status.FAILURE


def ok() -> str:
    return "ok"


def is_big(n: int) -> bool:
    return n > 10


@pytest.mark.parametrize("traced", [False, True])
def test_an_invalid_model_output_is_the_failure(traced: bool) -> None:
    tree = parse_behavior('root a\n  predict "q -> n: int"\n')
    sink = ListTraceSink() if traced else None
    ctx = tree.run(model=ScriptedModel("banana"), trace_sink=sink, q="x")
    assert ctx.status is Status.FAILURE and ctx.error is None
    assert isinstance(ctx.failure, Failure)
    node_id, label, reason = ctx.failure
    assert (node_id, label) == ("root/predict.0", "predict(q -> n)")
    assert reason.startswith("output n: 'banana' is not a valid int")
    assert str(ctx.failure) == f"predict(q -> n) [root/predict.0]: {reason}"


def test_a_false_guard_names_the_expression_and_the_values_read() -> None:
    tree = root("g").do(guard('order.status == "pending"', id="pending"))
    ctx = tree.run(order={"status": "delivered"})
    assert ctx.failure == (
        "pending",
        "guard(eq)",
        "guard order.status == \"pending\" was false (order.status = 'delivered')",
    )


def test_a_false_guard_says_why_in_its_context() -> None:
    """A guard asks no model: its ``context`` is the words its failure gives; for ``guard
    false`` (whose "was false" says nothing) instead of the test's outcome."""
    said = parse_behavior('root g\n  guard false id=stop context="nothing past here"\n')
    assert said.run().failure.reason == "guard false: nothing past here"  # type: ignore[union-attr]
    tested = root("t").do(guard("n > 1", id="big", context="only big orders"))
    assert tested.run(n=0).failure.reason == (  # type: ignore[union-attr]
        "guard n > 1 was false (n = 0): only big orders"
    )


def test_check_guard_call_and_a_failing_tool_say_why() -> None:
    assert root("c").do(check("n", 1)).run(n=2).failure.reason == (  # type: ignore[union-attr]
        "check n == 1 was false (n = 2)"
    )
    assert "(n is None)" in root("c").do(check("n", 1)).run().failure.reason  # type: ignore[union-attr]
    called = root("g").do(guard_call(is_big, n=ref("n"))).run(n=3)
    assert called.failure.reason == "guard_call is_big(n=3) returned False"  # type: ignore[union-attr]
    refused = root("t").do(seq(act(ok), act(refuse))).run()
    assert refused.failure == (
        "root/sequence.0/action.1",
        "act(refuse)",
        "tool refuse returned Status.FAILURE",
    )


def test_a_react_that_runs_out_of_steps_or_answers_badly_says_so() -> None:
    calls = [ModelTurn(text="", tool_calls=[ToolCall(id=str(i), name="ok", arguments={})])
             for i in range(2)]  # fmt: skip
    tree = root("r").do(react("q -> answer", tools=[ok], max_steps=2))
    ctx = tree.run(model=ScriptedModel(turns=calls), q="x")
    assert ctx.status is Status.FAILURE and ctx.failure is not None
    assert ctx.failure.reason == "react stopped: max_steps"
    bad = root("r").do(react("q -> n: int", tools=[ok])).run(model=ScriptedModel("zz"), q="x")
    assert bad.failure is not None and bad.failure.reason.startswith(
        "react answer: output n: 'zz' is not a valid int"
    )


def test_a_recovered_failure_is_cleared_and_success_means_none() -> None:
    assert root("s").do(sel(check("n", 1), check("n", 2))).run(n=2).failure is None
    assert root("o").do(optional(check("n", 1))).run(n=2).failure is None
    assert root("i").do(invert(check("n", 1))).run(n=2).failure is None
    done = repeat(act(ok), until=check("n", 2), max=2)
    assert root("r").do(done).run(n=2).failure is None


def test_the_last_unrecovered_failure_is_kept() -> None:
    ctx = root("s").do(sel(check("n", 1, id="first"), check("n", 2, id="second"))).run(n=3)
    assert ctx.failure is not None and ctx.failure.node_id == "second"
    ctx = root("s").do(seq(sel(check("n", 1), check("n", 3)), check("m", 1, id="m"))).run(n=3)
    assert ctx.failure is not None and ctx.failure.node_id == "m"


def test_a_selector_keeps_the_failure_of_the_alternative_that_was_under_way() -> None:
    """Alternatives selected by a check each: the one taken fails deep inside (a nested
    alternative's guard), the next fails at its selecting check. The run's failure is the
    deep one (what a fallback must be told), not the next alternative's check."""
    inner = sel(seq(check("r2", "x", id="inner_when"), guard("never == true", id="hand_over_2")))
    tree = sel(seq(check("route", "a", id="a_when"), inner),
               seq(check("route", "b", id="b_when"), act(ok)))  # fmt: skip
    ctx = root("s").do(tree).run(route="a", r2="x", never=False)
    assert ctx.failure is not None and ctx.failure.node_id == "hand_over_2"
    ctx = root("s").do(tree).run(route="c", r2="x", never=False)  # none under way: the last
    assert ctx.failure is not None and ctx.failure.node_id == "b_when"


def test_nodes_that_fail_without_a_failing_leaf_give_their_own_reason() -> None:
    inverted = root("i").do(invert(act(ok))).run()
    assert inverted.failure is not None and inverted.failure.label == "invert"
    assert "child succeeded" in inverted.failure.reason
    empty = root("e").do(Selector()).run()
    assert empty.failure is not None and "no children" in empty.failure.reason
    never = root("r").do(repeat(act(ok), until=check("n", 2), max=2)).run(n=1)
    assert never.failure is not None and never.failure.reason == "check n == 2 was false (n = 1)"


def test_oneshot_replays_its_failure() -> None:
    once = oneshot(check("n", 1, id="c"))
    ctx = RunContext({"n": 2})
    assert once.tick(ctx) is Status.FAILURE and ctx.failure is not None
    ctx.failure = None
    assert once.tick(ctx) is Status.FAILURE and ctx.failure is not None
    assert ctx.failure.node_id == "c"


class Silent(Node):
    """A user node that fails without saying why."""

    kind: str = "silent"

    def _tick(self, ctx: RunContext) -> S:
        return S.FAILURE


def test_a_failure_without_a_reason_still_names_the_tree() -> None:
    tree = root("u")
    tree.child = Silent()  # type: ignore[assignment]
    ctx = tree.run()
    assert ctx.failure is not None and ctx.failure.node_id == "root"
    assert "without a reason" in ctx.failure.reason


def test_a_tool_exception_is_the_failure_of_the_innermost_node() -> None:
    def boom() -> None:
        raise RuntimeError("database down")

    ctx = jdsl.root("t").do(jdsl.seq(jdsl.act(boom))).run(raise_errors=False)
    assert isinstance(ctx.error, RuntimeError) and ctx.failure is not None
    assert ctx.failure.node_id == "root/sequence.0/action.0"
    assert ctx.failure.reason == "raised RuntimeError: database down"


def test_a_successful_run_has_no_failure_even_after_a_recovered_exception_free_fallback() -> None:
    ctx = jdsl.root("t").do(jdsl.sel(jdsl.check("x", 1), jdsl.check("x", 2))).run(x=2)
    assert ctx.status and ctx.failure is None
