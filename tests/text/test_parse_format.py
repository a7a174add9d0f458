"""Behavior text -> IR for every node kind, and canonical text back (docs/design.md §2-§3)."""

from __future__ import annotations

import pytest
from jdsl.errors import ValidationError
from jdsl.text.formatter import format_node
from jdsl.text.parser import parse_behavior_ir


def root_child(text: str) -> dict:
    return parse_behavior_ir(text)["root"]["child"]


def canonical(ir: dict) -> str:
    return "\n".join(format_node(ir["root"])) + "\n"


@pytest.mark.parametrize(
    ("line", "node"),
    [
        (
            'act cancel(order_id=orders[$i].id, reason="no longer needed") -> receipt',
            {
                "kind": "action",
                "tool": "cancel",
                "args": {
                    "order_id": {"ref": "orders[$i].id"},
                    "reason": {"const": "no longer needed"},
                },
                "store": "receipt",
            },
        ),
        ("act retail.ping()", {"kind": "action", "tool": "retail.ping", "args": {}}),
        (
            'predict "request, orders -> selected_index: int" id=resolve_target',
            {
                "kind": "predict",
                "signature": "request, orders -> selected_index: int",
                "id": "resolve_target",
            },
        ),
        (
            'react "q -> answer" tools=[t1, t2] max_steps=4',
            {"kind": "react", "signature": "q -> answer", "tools": ["t1", "t2"], "max_steps": 4},
        ),
        ('check status == "done"', {"kind": "check", "key": "status", "equals": "done"}),
        ("check n == 3", {"kind": "check", "key": "n", "equals": 3}),
        (
            'guard orders[$i].status == "pending"',
            {
                "kind": "guard",
                "expression": {"eq": [{"ref": "orders[$i].status"}, {"const": "pending"}]},
            },
        ),
        (
            "guard_call is_vip(customer=customer, min=3)",
            {
                "kind": "guard_call",
                "predicate": "is_vip",
                "args": {"customer": {"ref": "customer"}, "min": {"const": 3}},
            },
        ),
    ],
)
def test_each_leaf_kind(line: str, node: dict) -> None:
    assert root_child(line) == node
    assert canonical(parse_behavior_ir(line)) == f"root behavior\n  {line}\n"


@pytest.mark.parametrize(
    ("head", "node"),
    [
        ("seq", {"kind": "sequence"}),
        ("sel", {"kind": "selector"}),
        ("invert", {"kind": "invert"}),
        ("optional", {"kind": "optional"}),
        ("oneshot", {"kind": "oneshot"}),
        ("timeout seconds=2.5", {"kind": "timeout", "seconds": 2.5}),
        ("repeat max=5", {"kind": "repeat", "max": 5}),
    ],
)
def test_each_inner_kind(head: str, node: dict) -> None:
    parsed = root_child(f'{head} id=x context="be brief"\n  act a()\n')
    slot = "children" if node["kind"] in ("sequence", "selector") else "child"
    leaf = {"kind": "action", "tool": "a", "args": {}}
    expected = {
        **node,
        "id": "x",
        "context": "be brief",
        slot: [leaf] if slot == "children" else leaf,
    }
    assert parsed == expected


def test_root_line_with_model_and_system() -> None:
    ir = parse_behavior_ir('root cancel_order model="m-1" system="Be careful."\n  act a()\n')
    assert ir["format"] == "jdsl.behavior.v1"
    assert {k: v for k, v in ir["root"].items() if k != "child"} == {
        "kind": "root",
        "name": "cancel_order",
        "model_id": "m-1",
        "system": "Be careful.",
    }
    assert canonical(ir).startswith('root cancel_order model="m-1" system="Be careful."\n')


def test_missing_root_line_wraps_in_named_root_and_implicit_seq() -> None:
    one = parse_behavior_ir("act a()\n")
    assert one["root"]["name"] == "behavior"
    assert one["root"]["child"]["kind"] == "action"
    many = parse_behavior_ir("act a()\nact b()\n", name="lookup")
    assert many["root"]["name"] == "lookup"
    assert [c["tool"] for c in many["root"]["child"]["children"]] == ["a", "b"]
    assert many["root"]["child"]["kind"] == "sequence"


def test_comments_blank_lines_and_indent_width_are_free() -> None:
    text = '# a behavior\n\nseq   # the main line\n    act a()  # first\n\n    # aside\n    act b(x="#not a comment")\n'
    children = root_child(text)["children"]
    assert children[1]["args"] == {"x": {"const": "#not a comment"}}
    assert canonical(parse_behavior_ir(text)) == (
        'root behavior\n  seq\n    act a()\n    act b(x="#not a comment")\n'
    )


def test_instruction_lines_are_joined_verbatim() -> None:
    text = 'predict "a -> b"\n  | First line.\n  |\n  |   kept indent # and hash\n'
    node = root_child(text)
    assert node["instructions"] == "First line.\n\n  kept indent # and hash"
    assert canonical(parse_behavior_ir(text)).endswith(
        '  predict "a -> b"\n    | First line.\n    |\n    |   kept indent # and hash\n'
    )


def test_repeat_until_block_and_inline_forms_agree() -> None:
    block = root_child('repeat max=2\n  act poll() -> s\n  until:\n    check s == "done"\n')
    inline = root_child('repeat max=2\n  until: check s == "done"\n  act poll() -> s\n')
    assert block == inline
    assert block["until"] == {"kind": "check", "key": "s", "equals": "done"}
    assert "  until:\n" in canonical(
        parse_behavior_ir("repeat\n  act p()\n  until: guard exists(x)\n")
    )


def test_inline_until_node_can_have_children() -> None:
    node = root_child("repeat\n  act p()\n  until: seq\n    guard exists(x)\n    guard exists(y)\n")
    assert [c["kind"] for c in node["until"]["children"]] == ["guard", "guard"]


def test_long_head_words_and_quoted_names_are_accepted() -> None:
    node = root_child(
        'sequence id="two words"\n  action a(x=[1, {"k": null}])\n  selector\n    act b()\n'
    )
    assert node["id"] == "two words"
    assert node["children"][0]["args"]["x"] == {"const": [1, {"k": None}]}
    assert node["children"][1]["kind"] == "selector"


def test_defaults_are_left_out_when_printing() -> None:
    ir = {
        "kind": "react",
        "signature": "q -> a",
        "tools": ["t"],
        "max_steps": 6,
        "examples": [],
        "id": None,
    }
    assert format_node(ir) == ['react "q -> a" tools=[t]']


def test_predict_examples_and_input_sources_attributes() -> None:
    text = 'predict "request -> n: int" examples=[{"input": {"request": "x"}, "output": {"n": 1}}] input_sources={"request": "ticket.body"}\n'
    node = root_child(text)
    assert node["examples"] == [{"input": {"request": "x"}, "output": {"n": 1}}]
    assert node["input_sources"] == {"request": "ticket.body"}
    assert parse_behavior_ir(canonical(parse_behavior_ir(text))) == parse_behavior_ir(text)


@pytest.mark.parametrize(
    "node",
    [
        {"kind": "bogus"},
        {"kind": "action", "tool": "has space", "args": {}},
        {"kind": "action", "tool": "t", "args": {"x": {"path": "a"}}},
        {"kind": "check", "key": "a b", "equals": 1},
        {"kind": "action", "tool": "t", "args": {"x": {"ref": "not a path"}}},
    ],
)
def test_format_rejects_ir_without_a_text_form(node: dict) -> None:
    with pytest.raises(ValidationError):
        format_node(node)


DESIGN_EXAMPLE = """\
root cancel_order model="claude-sonnet-4-5" system="You are a careful retail agent."
  seq
    act lookup(email=email) -> customer
    act list_orders(customer_id=customer.id) -> orders
    predict "request, orders -> selected_index: int" id=resolve_target
      | Pick the order the customer means; answer with its 0-based index.
    sel
      seq
        guard orders[$selected_index].status == "pending"
        act cancel(order_id=orders[$selected_index].id, reason="no longer needed") -> receipt
      act escalate(summary=request)
"""


def test_the_design_example_is_canonical_text() -> None:
    """docs/design.md §3's example parses and prints back unchanged."""
    assert canonical(parse_behavior_ir(DESIGN_EXAMPLE)) == DESIGN_EXAMPLE
