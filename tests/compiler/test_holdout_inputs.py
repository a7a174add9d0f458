"""``package validate``'s input pre-check asks a held-out run only for the inputs the route it
takes reads (h24y left-over: terse run tau_retail_train_188_2 took the ``get_order_details``
route, the order stated, and went to the fallback with "run inputs missing: one of: email |
first_name, last_name, zip", the identity the *other* route reads)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all
from jdsl.compiler.holdout import validate_package

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder  # noqa: E402

_BY_EMAIL = {"kind": "sequence", "id": "by_email", "children": [
    {"kind": "check", "id": "by_email_when", "key": "route", "equals": "by_email"},
    {"kind": "action", "id": "find", "tool": "find_user_id_by_email", "args": {"email": {"ref": "email"}}, "store": "user_id"},
    {"kind": "action", "id": "user", "tool": "get_user_details", "args": {"user_id": {"ref": "user_id"}}, "store": "user"},
]}  # fmt: skip
_BY_ORDER = {"kind": "sequence", "id": "by_order", "children": [
    {"kind": "check", "id": "by_order_when", "key": "route", "equals": "by_order"},
    {"kind": "action", "id": "order", "tool": "get_order_details", "args": {"order_id": {"ref": "order_id"}}, "store": "order"},
]}  # fmt: skip
_IR = {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "lookup", "child": {
    "kind": "selector", "id": "compiled_or_fallback", "children": [
        {"kind": "sequence", "id": "flow", "children": [
            {"kind": "predict", "id": "choose_route",
             "signature": 'conversation -> route: Literal["by_email", "by_order"]'},
            {"kind": "selector", "id": "branch", "children": [_BY_EMAIL, _BY_ORDER]},
        ]},
        {"kind": "react", "id": "fallback", "signature": "conversation, failure -> answer",
         "tools": ["get_order_details"]},
    ]}}}  # fmt: skip


class _Package:
    """What validate_package reads of a package: a route by email, a route by order id (as
    ``jdsl package inspect`` lists the terse modify package's: ``one of: email | first_name,
    last_name, zip; optional: order_id``)."""

    name = "lookup"
    ir = _IR
    tools: dict[str, Any] = {}
    manifest = {"name": "lookup", "source": {
        "inputs": [], "input_alternatives": [[["email"], ["first_name", "last_name", "zip"]]],
        "stated_inputs": {"email": {"tool": "find_user_id_by_email", "argument": "email"},
                          "order_id": {"tool": "get_order_details", "argument": "order_id"}}}}  # fmt: skip

    def missing_inputs(self, provided: Any) -> list[str]:
        given = set(provided)
        if any(set(alt) <= given for alt in self.manifest["source"]["input_alternatives"][0]):
            return []
        return ["one of: email | first_name, last_name, zip"]


def _by_order() -> dict[str, Any]:
    b = AgentBuilder("stated_order", inputs={"conversation": "what is in order #W7678072?"})
    b.emit("user.message", {"content": "What is in order #W7678072?"})
    b.call("get_order_details", {"order_id": "#W7678072", "items": []}, order_id="#W7678072")
    return b.done(True)


def test_a_run_on_the_order_route_is_not_asked_for_the_identity_the_other_route_reads() -> None:
    report = validate_package(_Package(), normalize_all([_by_order()]))
    (row,) = report.rows
    assert row.served and row.outcome == "matched", (row.outcome, row.reason, row.execution)


def test_a_run_whose_route_reads_an_input_it_never_stated_still_goes_to_the_fallback() -> None:
    b = AgentBuilder("unstated_email", inputs={"conversation": "what are my orders?"})
    b.emit("user.message", {"content": "What are my orders?"})
    b.call("find_user_id_by_email", "noah_7", email="noah@example.com")
    b.call("get_user_details", {"orders": []}, user_id="noah_7")
    report = validate_package(_Package(), normalize_all([b.done(True)]))
    (row,) = report.rows
    assert row.outcome == "fallback" and row.execution is not None
    assert (
        row.execution.fallback.reason
        == "run inputs missing: one of: email | first_name, last_name, zip"
    )
