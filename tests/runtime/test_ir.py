"""Nodes are the IR: dump, load, re-bind."""

from __future__ import annotations

import json

from jdsl import (
    act,
    check,
    for_each,
    guard,
    guard_call,
    invert,
    oneshot,
    optional,
    predict,
    react,
    ref,
    repeat,
    root,
    sel,
    seq,
    timeout,
)
from jdsl.tree import NODE_CLASSES, Root


def lookup(email: str) -> dict:
    return {"id": "U1"}


def is_ok(v: int) -> bool:
    return bool(v)


def build() -> Root:
    return (
        root("everything", system="S")
        .model("m")
        .do(
            seq(
                act(lookup, email=ref("email"), id="lk") >> "customer",
                predict(
                    "customer -> n: int",
                    instructions="Count.",
                    examples=[{"input": {}, "output": {"n": 1}}],
                ),
                react("q -> answer", tools=[lookup], max_steps=3, context="Be brief."),
                sel(check("n", 1), guard("exists(customer.id)"), guard_call(is_ok, v=ref("n"))),
                repeat(
                    invert(optional(act(lookup, email="x"))), until=oneshot(check("n", 1)), max=2
                ),
                timeout(act(lookup, email=None), seconds=1.5),
                for_each(
                    "e",
                    "emails",
                    act(lookup, email=ref("e")) >> "c",
                    collect="c",
                    store="cs",
                    max=5,
                ),
            )
        )
    )


def test_round_trip_through_json_is_lossless():
    tree = build()
    ir = tree.to_ir()
    text = json.dumps(ir, sort_keys=True)
    again = Root.model_validate(json.loads(text))
    assert again.to_ir() == ir
    assert {n.kind for n in again.walk()} == set(NODE_CLASSES)


def test_ir_has_no_callables_and_uses_contract_field_names():
    ir = build().to_ir()
    action = ir["child"]["children"][0]
    assert action == {
        "kind": "action",
        "id": "lk",
        "tool": "lookup",
        "args": {"email": {"ref": "email"}},
        "store": "customer",
    }
    react_node = ir["child"]["children"][2]
    assert react_node["tools"] == ["lookup"] and react_node["max_steps"] == 3
    assert ir["child"]["children"][4]["max"] == 2
    assert ir["child"]["children"][5]["child"]["args"] == {"email": {"const": None}}


def test_loaded_tree_runs_after_bind():
    loaded = Root.model_validate(
        root("r").do(act(lookup, email=ref("email")) >> "customer").to_ir()
    )
    assert loaded.bindings.tools == {}
    ctx = loaded.bind(tools=[lookup]).run(email="a")
    assert ctx.blackboard["customer"] == {"id": "U1"}


def test_dicts_validate_into_node_classes():
    node = Root.model_validate(
        {
            "kind": "root",
            "name": "r",
            "child": {"kind": "selector", "children": [{"kind": "check", "key": "a", "equals": 1}]},
        }
    )
    assert type(node.child).__name__ == "Selector"
