"""What replay answers a compiled tree's residuals with, from one recorded run (issue 24): the
route a run took when an alternative starts by choosing how (identity by email, or by name:
a selector of its own), and a selection ``list[int]`` the run's call took one element of.

Found on the terse retail corpus at scale (``tests/compiler/test_terse_scale.py``): runs the
program was compiled from were sent down another route, or answered ``item_indexes: 0``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all
from jdsl.compiler.replay import execute

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder  # noqa: E402


def _program(*children: dict[str, Any]) -> dict[str, Any]:
    return {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "t", "child": {
        "kind": "sequence", "id": "flow", "children": list(children)}}}  # fmt: skip


def _act(node_id: str, tool: str, store: str | None = None, **args: str) -> dict[str, Any]:
    node = {"kind": "action", "id": node_id, "tool": tool,
            "args": {k: {"ref": v} for k, v in args.items()}}  # fmt: skip
    return {**node, "store": store} if store else node


def _seq(node_id: str, *children: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "sequence", "id": node_id, "children": list(children)}


def _check(node_id: str, key: str, equals: str) -> dict[str, Any]:
    return {"kind": "check", "id": node_id, "key": key, "equals": equals}


def _guard(node_id: str, key: str) -> dict[str, Any]:
    return {"kind": "guard", "id": node_id, "expression": {"exists": {"ref": key}}}


def _route_program() -> dict[str, Any]:
    """Route ``user``: find the user by email or by name (a selector of its own), read them,
    update their order; route ``order``: read the order given, cancel it."""
    identity = {"kind": "selector", "id": "identity", "children": [
        _seq("by_name", _guard("has_name", "name"),
             _act("find_by_name", "find_user_id_by_name", "user_id", name="name")),
        _seq("by_email", _guard("has_email", "email"),
             _act("find_by_email", "find_user_id_by_email", "user_id", email="email")),
    ]}  # fmt: skip
    routes = {"kind": "selector", "id": "routes", "children": [
        _seq("user", _check("user_when", "route", "user"), identity,
             _act("get_user", "get_user_details", "user", user_id="user_id"),
             _act("update", "update_order", order_id="user.orders[0]")),
        _seq("order", _check("order_when", "route", "order"),
             _act("get_order", "get_order_details", "order", order_id="order_id"),
             _act("cancel", "cancel_pending_order", order_id="order.order_id")),
    ]}  # fmt: skip
    decide = {"kind": "predict", "id": "choose_route",
              "signature": 'conversation -> route: Literal["user", "order"]'}  # fmt: skip
    return _program(decide, routes)


def test_a_run_takes_the_route_whose_inner_alternative_it_called_first() -> None:
    b = AgentBuilder("e1", inputs={"email": "a@b.c"})
    b.emit("user.message", {"content": "update my order"})
    b.call("find_user_id_by_email", "u1", email="a@b.c")
    b.call("get_user_details", {"orders": ["#W1"]}, user_id="u1")
    b.call("get_order_details", {"order_id": "#W1"}, order_id="#W1")  # a read the route skips
    b.call("update_order", {"ok": True}, order_id="#W1")
    (episode,) = normalize_all([b.done(True)])
    run = execute(_route_program(), episode)
    assert run.matched, run


def _scan_or_one_program() -> dict[str, Any]:
    """Route ``scan``: read the user's orders 0, 1, ... (a scan, its answer guarded a prefix),
    cancel the last one read; route ``one``: read the order at an index, cancel it."""
    orders = "user.orders"
    scan = _seq("scan", _check("scan_when", "route", "scan"),
                {"kind": "predict", "id": "choose_order_indexes",
                 "signature": "conversation, user -> order_indexes: list[int]"},
                {"kind": "guard", "id": "check_order_indexes", "expression": {"prefix_of": [
                    {"ref": f"{orders}[$order_indexes]"}, {"ref": orders}]}},
                {"kind": "for_each", "id": "each_order", "item": "order_id",
                 "items": f"{orders}[$order_indexes]",
                 "child": _act("get_order", "get_order_details", "order", order_id="order_id")},
                _act("cancel", "cancel_pending_order", order_id="order.order_id"))  # fmt: skip
    one = _seq("one", _check("one_when", "route", "one"),
               {"kind": "predict", "id": "choose_order_index",
                "signature": "conversation, user -> order_index: int"},
               _act("get_one", "get_order_details", "order", order_id=f"{orders}[$order_index]"),
               _act("cancel_one", "cancel_pending_order", order_id="order.order_id"))  # fmt: skip
    decide = {"kind": "predict", "id": "choose_route",
              "signature": 'conversation, user -> route: Literal["scan", "one"]'}  # fmt: skip
    return _program(_act("get_user", "get_user_details", "user", user_id="user_id"), decide,
                    {"kind": "selector", "id": "routes", "children": [scan, one]})  # fmt: skip


def _orders_run(episode_id: str, read: list[int]) -> Any:
    orders = ["#W0", "#W1", "#W2"]
    b = AgentBuilder(episode_id, inputs={"user_id": "u1"})
    b.emit("user.message", {"content": "cancel my order"})
    b.call("get_user_details", {"orders": orders}, store="user", user_id="u1")
    for k in read:
        b.call("get_order_details", {"order_id": orders[k]}, store="order", order_id=orders[k])
    b.call("cancel_pending_order", {"ok": True}, order_id=orders[read[-1]])
    (episode,) = normalize_all([b.done(True)])
    return episode


def test_a_run_that_read_one_element_directly_is_not_a_scan() -> None:
    """Both routes start with the same call: a run that read ``orders[1]`` without reading
    ``orders[0]`` took the route that reads one order, not the scan (whose prefix guard would
    hand it to the fallback); a run that read orders 0 and 1 took the scan."""
    assert execute(_scan_or_one_program(), _orders_run("one", [1])).matched
    assert execute(_scan_or_one_program(), _orders_run("scan", [0, 1])).matched
