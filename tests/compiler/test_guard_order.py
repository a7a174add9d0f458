"""Guards keep the teacher's place (before the decision that followed them) and id; no guard
is emitted twice in one sequence."""

from __future__ import annotations

from jdsl.compiler import compile_behavior
from jdsl.dsl import act, guard, predict, ref, root, seq
from jdsl.testing import ScriptedModel
from jdsl.trace import ListTraceSink
from jdsl.tree import Status


def _teacher():
    orders = [{"id": "#A", "status": "pending"}, {"id": "#B", "status": "pending"}]

    def list_orders(user: str) -> list:
        return orders

    def get_order(order_id: str) -> dict:
        return next(o for o in orders if o["id"] == order_id)

    def cancel(order_id: str, reason: str) -> str:
        return f"cancelled {order_id}"

    return root("cancel").do(seq(
        act(list_orders, user=ref("user")) >> "orders",
        predict("request, orders -> index: int", id="choose_order"),
        act(get_order, order_id=ref("orders[$index].id")) >> "order",
        guard('order.status == "pending"', id="order_is_pending"),
        predict("request, order -> reason: str", id="choose_reason"),
        act(cancel, order_id=ref("orders[$index].id"), reason=ref("reason")) >> "receipt",
    ))  # fmt: skip


def _episodes(n: int = 3):
    sink = ListTraceSink()
    for i in range(n):
        ctx = _teacher().run(
            model=ScriptedModel(str(i % 2), "no longer needed"), trace_sink=sink,
            episode_id=f"ep_{i}", user="u", request="cancel",
        )  # fmt: skip
        assert ctx.status is Status.SUCCESS
    return sink.events


def _children():
    from jdsl.trace import Trace

    episodes = Trace(_episodes()).episodes
    result = compile_behavior(episodes, name="cancel")
    assert result.ok, result.report()
    return result.ir["root"]["child"]["children"]


def test_a_teacher_guard_stays_before_the_following_decision_with_its_id() -> None:
    order = [n.get("id") for n in _children()]
    assert "order_is_pending" in order
    assert order.index("order_is_pending") < order.index("choose_reason")


def test_the_same_guard_is_not_emitted_twice_in_a_sequence() -> None:
    guards = [str(n["expression"]) for n in _children() if n["kind"] == "guard"]
    assert len(guards) == len(set(guards)), guards
