"""A position is a choice only when the list holds the value in every run (issue 24, "lineage
that means it"): two runs pay with the order's first payment, a third (a path of its own, too
thin to compile) with another payment method of the user's that the order was never paid with.
A selection ``order.payment_history[$k].payment_method_id`` cannot serve the third run: its
record holds no such position (handed over here; unreplayable, failing verification, on the
``small`` retail corpus's modify family). The payment method is a choice the model makes
instead, and every run is served."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all
from jdsl.compiler.support import unlisted

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder, compiled  # noqa: E402


def _run(i: int, paid_with: str) -> dict[str, Any]:
    """Read the order (and, paying with another method, the user's methods); change it."""
    order = {"order_id": f"#W{i}", "user_id": f"u{i}",
             "payment_history": [{"payment_method_id": f"card_{i}"}]}  # fmt: skip
    b = AgentBuilder(f"r{i}", inputs={"order_id": f"#W{i}"}, task=f"t{i}", user_id=f"u{i}")
    b.emit("user.message", {"content": f"please update order #W{i}"})
    b.call("get_order_details", order, store="order", order_id=f"#W{i}")
    if paid_with != f"card_{i}":
        methods = {paid_with: {"id": paid_with}, f"card_{i}": {"id": f"card_{i}"}}
        b.call("get_user_details", {"payment_methods": methods}, store="user", user_id=f"u{i}")
    b.call("modify_pending_order_payment", {"ok": True}, order_id=f"#W{i}",
           payment_method_id=paid_with)  # fmt: skip
    return b.done(True)


def test_a_value_no_element_holds_in_another_run_is_not_a_selection() -> None:
    runs = normalize_all([_run(1, "card_1"), _run(2, "card_2"), _run(3, "paypal_3")])  # 3: thin
    result = compiled(runs, name="pay")
    v = result.verification
    assert v.matched == v.executed == 3, result.report().text
    assert "payment_history[$" not in str(result.ir)


def test_unlisted_reads_the_list_where_it_is() -> None:
    runs = normalize_all([_run(1, "card_1"), _run(3, "paypal_3")])
    steps = [e.ok_steps()[-1] for e in runs]
    template = "order.payment_history[*].payment_method_id"
    assert not unlisted(template, "payment_method_id", steps[:1])
    assert unlisted(template, "payment_method_id", steps)
    assert not unlisted("user.payments[*].id", "payment_method_id", steps)  # no such list
