"""compiler/fallback.py guards and unguards every child slot, a repeat's ``until`` included."""

from __future__ import annotations

import copy

from jdsl.compiler.fallback import WRAPPER_ID, compiled_program, guard_refs
from jdsl.ir.walk import walk_ir


def _lookup(node_id: str) -> dict:
    return {"kind": "action", "id": node_id, "tool": "lookup", "args": {"q": {"ref": "email"}}}


def _program() -> dict:
    """``repeat`` whose child and ``until`` each hold an action that passes a ref."""
    return {"kind": "repeat", "id": "poll", "max": 3, "child": _lookup("body"),
            "until": {"kind": "sequence", "id": "stop", "children": [_lookup("last")]}}  # fmt: skip


def test_guard_refs_guards_an_action_under_until() -> None:
    program = _program()
    before = copy.deepcopy(program)
    guarded = guard_refs(program, set())
    assert program == before
    guards = {n["id"] for n in walk_ir(guarded) if n.get("kind") == "guard"}
    assert guards == {"has_body", "has_last"}
    assert guarded["until"]["children"][0]["children"][0]["id"] == "has_last"


def test_guard_refs_leaves_run_inputs_unguarded() -> None:
    guarded = guard_refs(_program(), set(), inputs=("email",))
    assert guarded == _program()


def _checked(action: dict) -> dict:
    """``seq [guard exists(email), action]``, the shape :func:`guard_refs` gives an action."""
    guard = {"kind": "guard", "id": f"has_{action['id']}", "expression": {"exists": "email"}}
    return {"kind": "sequence", "id": f"refs_{action['id']}", "children": [guard, action]}


def test_compiled_program_unguards_under_until() -> None:
    guarded = {**_program(), "child": _checked(_lookup("body")),
               "until": {"kind": "sequence", "id": "stop",
                         "children": [_checked(_lookup("last"))]}}  # fmt: skip
    fallback = {"kind": "react", "id": "fallback", "signature": "conversation -> answer"}
    root = {"kind": "root", "name": "x", "child": {
        "kind": "selector", "id": WRAPPER_ID, "children": [guarded, fallback]}}  # fmt: skip
    document = {"format": "jdsl.behavior.v1", "root": root}
    assert compiled_program(document)["root"]["child"] == _program()
