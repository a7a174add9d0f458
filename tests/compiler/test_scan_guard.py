"""A scan's selection is checked where it is bound (issue 24): ``for_each order_id in
user.orders[$order_indexes]`` stops only by its residual, so the answer must be the indexes
0, 1, ... of a prefix of the list, each in range. The compiled program guards it right after the
predict (``guard user.orders[$order_indexes] prefix_of user.orders``); an answer out of range
or not a prefix fails the guard and the package's fallback takes over with the reason, as for
any value the program did not expect (compiler/fallback.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, normalize_all
from jdsl.compiler.fallback import takeover
from jdsl.compiler.replay import execute
from jdsl.ir import from_ir
from jdsl.testing import FunctionModel
from jdsl.text import format_behavior
from jdsl.trace import ListTraceSink

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

_RUNS = [(0, 3, 1), (1, 4, 2), (2, 5, 3), (3, 3, 2), (4, 4, 1)]


def _ids(i: int, count: int) -> list[str]:
    return [f"#W{i}{k}0{k}" for k in range(count)]


def _run(i: int, count: int, scanned: int, first: int = 0) -> dict[str, Any]:
    """User ``u<i>`` with ``count`` orders; orders ``first`` .. ``scanned - 1`` are read and the
    last read one is cancelled."""
    ids = _ids(i, count)
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "cancel my pending order"})
    b.call("get_user_details", {"orders": ids}, store="user", node_id="agent",
           node_type="react", user_id=f"u{i}")  # fmt: skip
    for k in range(first, scanned):
        status = "pending" if k == scanned - 1 else "delivered"
        b.call("get_order_details", {"order_id": ids[k], "status": status}, store="order",
               node_id="agent", node_type="react", order_id=ids[k])  # fmt: skip
    b.call("cancel_pending_order", {"ok": True}, node_id="agent", node_type="react",
           order_id=ids[scanned - 1])  # fmt: skip
    return b.done(True)


@pytest.fixture(scope="module")
def package() -> Any:
    result = compile_behavior([_run(*r) for r in _RUNS], name="cancel")
    assert result.ok, result.report().text
    text = format_behavior(from_ir(result.compiled.ir))
    assert "guard user.orders[$order_indexes] prefix_of user.orders" in text, text
    return result.package


def test_a_scan_that_did_not_start_at_the_first_element_is_handed_to_the_fallback(
    package: Any,
) -> None:
    (episode,) = normalize_all([_run(9, 4, 3, first=1)])  # read orders 1 and 2 only
    run = execute(package.ir, episode)
    assert run.fallback is not None and run.divergence is None, run
    assert run.fallback.node_id == "check_order_indexes", run.fallback
    assert "order_indexes must be the indexes 0, 1, ..." in run.fallback.reason, run.fallback
    assert run.fallback.writes_done == 0


@pytest.mark.parametrize("answer", [[0, 1, 7], [1, 2], [-1], [0, 0]])
def test_an_answer_out_of_range_or_not_a_prefix_hands_over(package: Any, answer: list[int]) -> None:
    ids = _ids(5, 3)
    calls: list[str] = []

    def get_user_details(user_id: str) -> dict[str, Any]:
        calls.append("get_user_details")
        return {"orders": ids}

    def get_order_details(order_id: str) -> dict[str, Any]:
        calls.append(f"get_order_details {order_id}")
        return {"order_id": order_id, "status": "pending"}

    def cancel_pending_order(order_id: str) -> dict[str, Any]:
        calls.append(f"cancel {order_id}")
        return {"ok": True}

    def model(system: str, messages: list[Any], tools: list[Any], model_id: Any) -> str:
        asked = str(messages[-1].content)
        return json.dumps(answer) if "order_indexes" in asked and not tools else "I could not."

    sink = ListTraceSink()
    tools = {f.__name__: f for f in (get_user_details, get_order_details, cancel_pending_order)}
    from_ir(package.ir).run(model=FunctionModel(model), tools=tools, trace_sink=sink,
                            conversation="user: cancel my pending order", user_id="u5")  # fmt: skip
    taken = takeover(sink.events)
    assert taken is not None and taken.node_id == "check_order_indexes", taken
    assert calls == ["get_user_details"], calls  # no order read, nothing cancelled
