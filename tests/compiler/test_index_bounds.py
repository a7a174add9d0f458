"""A compiled package's model-chosen selection asks for indexes into a list known only at run
time (``user.reservations[$reservation_indexes]``, ``order.items[$item_indexes].item_id``,
``user.orders[$order_index]``). A model that decodes under the schema (``structured_outputs``:
``local:`` models) is held to that list's indexes: ``maxItems``, ``uniqueItems`` and each index
in ``0 .. len - 1`` of the list's value at the tick (tree/index_bounds.py), so a small model
cannot count ``1, 2, 3, ...`` to the token limit. An index out of the bound from a model that
ignores the schema is refused as before, where the program reads it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior
from jdsl.ir import from_ir
from jdsl.testing import ScriptedModel
from jdsl.trace import ListTraceSink

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402
from test_acting_loops import _run as _cancels  # noqa: E402


def _refund(i: int, items: int, picks: list[int]) -> dict[str, Any]:
    order = {"id": f"#O{i}", "items": [{"item_id": f"I{i}{k}", "price": 10} for k in range(items)]}
    b = EpisodeBuilder(f"r{i}", inputs={"order_id": f"#O{i}"})
    b.emit("user.message", {"content": "refund some items"})
    b.call("get_order", order, store="order", order_id=f"#O{i}")
    b.call("refund_items", {"ok": True}, node_id="agent", node_type="react", order_id=f"#O{i}",
           item_ids=[f"I{i}{k}" for k in picks])  # fmt: skip
    return b.done(True)


def _status(i: int, count: int, pick: int) -> dict[str, Any]:
    ids = [f"#X{i}{k}" for k in range(count)]
    b = EpisodeBuilder(f"s{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "what is the status of my order"})
    b.call("get_user", {"orders": ids}, store="user", node_id="agent", node_type="react",
           user_id=f"u{i}")  # fmt: skip
    b.call("get_order", {"order_id": ids[pick], "status": "ok"}, store="order", node_id="agent",
           node_type="react", order_id=ids[pick])  # fmt: skip
    return b.done(True)


@pytest.fixture(scope="module")
def packages() -> dict[str, Any]:
    made = {
        "cancel": compile_behavior([_cancels(0, 3, [1])], name="cancel"),
        "refund": compile_behavior(
            [_refund(0, 3, [0, 2]), _refund(1, 4, [1]), _refund(2, 2, [1, 0])], name="refund"
        ),  # fmt: skip
        "status": compile_behavior(
            [_status(0, 3, 1), _status(1, 2, 0), _status(2, 4, 3)], name="status"
        ),  # fmt: skip
    }
    assert all(r.ok for r in made.values()), {k: r.report().text for k, r in made.items()}
    return {k: r.package.ir for k, r in made.items()}


RESERVATIONS = [f"R9S{k}T" for k in range(5)]  # the compiled runs had 3
ITEMS = [{"item_id": f"J{k}", "price": 5} for k in range(4)]  # the compiled runs had 2 to 4
ORDERS = [f"#Y{k}" for k in range(6)]  # the compiled runs had 2 to 4


def _serve(ir: dict[str, Any], name: str, answer: Any, *, structured: bool = True) -> Any:
    """Run package ``name`` on a run-time list longer than any compiled run's, the model
    answering ``answer`` for the selection (then ``done`` for a fallback)."""
    done: list[tuple[str, Any]] = []
    tools: dict[str, Any] = {
        "get_user": lambda user_id: {"reservations": RESERVATIONS, "orders": ORDERS},
        "get_reservation": lambda reservation_id: {"reservation_id": reservation_id},
        "cancel_reservation": lambda reservation_id: done.append(("cancel", reservation_id)),
        "get_order": lambda order_id: (done.append(("get_order", order_id))
                                       or {"id": order_id, "items": ITEMS, "status": "ok"}),
        "refund_items": lambda order_id, item_ids: done.append(("refund", item_ids)) or "ok",
    }  # fmt: skip
    key = {"cancel": "reservation_indexes", "refund": "item_indexes", "status": "order_index"}
    model = ScriptedModel(json.dumps({key[name]: answer}), "done",
                          structured_outputs=structured)  # fmt: skip
    sink = ListTraceSink()
    ctx = from_ir(ir).run(tools=tools, model=model, trace_sink=sink, user_id="u9",
                          order_id="#Y0", conversation="please help", raise_errors=False)  # fmt: skip
    return model, done, ctx, sink


def _asked(model: ScriptedModel, key: str) -> dict[str, Any]:
    schemas = [c["response_schema"] for c in model.calls if "response_schema" in c]
    (schema,) = schemas  # only the selection's predict asks with a schema
    assert schema["required"] == [key]
    return dict(schema["properties"][key])


def test_a_selection_for_a_loop_is_bounded_by_the_list_at_run_time(packages) -> None:
    model, done, _, _ = _serve(packages["cancel"], "cancel", [4, 0])
    assert _asked(model, "reservation_indexes") == {
        "type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 4},
        "maxItems": 5, "uniqueItems": True,
    }  # fmt: skip
    assert done == [("cancel", "R9S4T"), ("cancel", "R9S0T")]


def test_a_selection_of_list_argument_elements_is_bounded(packages) -> None:
    model, done, _, _ = _serve(packages["refund"], "refund", [3, 1])
    assert _asked(model, "item_indexes") == {
        "type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 3},
        "maxItems": 4, "uniqueItems": True,
    }  # fmt: skip
    assert done[-1] == ("refund", ["J3", "J1"])


def test_a_position_in_a_list_is_bounded(packages) -> None:
    model, done, _, _ = _serve(packages["status"], "status", 5)
    assert _asked(model, "order_index") == {"type": "integer", "minimum": 0, "maximum": 5}
    assert done == [("get_order", "#Y5")]


def test_a_model_without_structured_outputs_is_sent_no_schema(packages) -> None:
    model, done, _, _ = _serve(packages["status"], "status", 2, structured=False)
    assert all("response_schema" not in c for c in model.calls)
    assert done == [("get_order", "#Y2")]


@pytest.mark.parametrize(
    ("name", "answer"),
    [("cancel", [5]), ("cancel", [1, 1]), ("refund", [0, 4]), ("status", 6)],
)
def test_an_index_out_of_the_bound_is_still_refused_as_before(packages, name, answer) -> None:
    """The schema binds decoding only: an answer out of it (a model that ignores the schema,
    or none sent) is refused where the program reads it, the same way with or without it."""
    reasons = []
    for structured in (True, False):
        _, done, ctx, sink = _serve(packages[name], name, answer, structured=structured)
        assert [d for d in done if d[0] != "get_order" or name == "status"] == [], done
        started = [e.payload for e in sink.events if e.kind == "react.started"]
        assert started, [e.kind for e in sink.events]  # the fallback took over, with the reason
        reasons.append(started[0]["inputs"]["failure"])
    assert reasons[0] == reasons[1], reasons
