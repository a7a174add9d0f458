"""A compiled write that raises a tool's error hands the rest of the run to the package's
fallback (issue 24 deliver 3, fresh8 finding 8: a cancel of a delivered order, refused by the
tool, ended the run ``failure`` instead): the reason is the run's takeover."""

from __future__ import annotations

import pytest
from jdsl.dsl import act, react, ref, root, sel, seq
from jdsl.errors import ToolError
from jdsl.package import package_from_root
from jdsl.testing import ScriptedModel
from jdsl.tree import Status


def get_order(order_id: str) -> dict:
    return {"order_id": order_id, "status": "delivered"}


def cancel_pending_order(order_id: str) -> dict:
    raise ToolError("non-pending order cannot be cancelled", tool="cancel_pending_order")


def _package():
    tree = root("cancel").do(sel(
        seq(act(get_order, order_id=ref("order_id")) >> "order",
            act(cancel_pending_order, order_id=ref("order.order_id")) >> "cancelled"),
        react("conversation, failure -> answer", tools=[get_order, cancel_pending_order],
              id="fallback"),
        id="compiled_or_fallback",
    ))  # fmt: skip
    return package_from_root(tree)


def test_a_write_refused_by_its_tool_hands_over_to_the_fallback() -> None:
    tools = {"get_order": get_order, "cancel_pending_order": cancel_pending_order}
    tree = _package().bind(tools)
    ctx = tree.run(model=ScriptedModel("The order was delivered; it cannot be cancelled."),
                   order_id="W1", conversation="cancel W1")  # fmt: skip
    assert ctx.error is None and ctx.status is Status.SUCCESS
    assert ctx.takeover is not None and ctx.takeover.by == "fallback"
    assert "non-pending order cannot be cancelled" in ctx.takeover.failure.reason


def test_a_read_that_raises_still_stops_the_run() -> None:
    """Only writes hand over: a read's error is not known work gone wrong."""

    def broken(order_id: str) -> dict:
        raise ToolError("database down", tool="get_order")

    tree = _package().bind({"get_order": broken, "cancel_pending_order": cancel_pending_order})
    with pytest.raises(ToolError, match="database down"):
        tree.run(model=ScriptedModel("x"), order_id="W1", conversation="cancel W1")
