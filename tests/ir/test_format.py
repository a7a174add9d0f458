"""to_ir / from_ir, the digest and the checked-in JSON Schema of the Behavior IR."""

from __future__ import annotations

import copy

import jsonschema
import pytest
from jdsl.errors import ValidationError
from jdsl.ir import (
    BEHAVIOR_FORMAT,
    from_ir,
    ir_digest,
    ir_json_schema,
    load_stored_schema,
    to_ir,
    validate_ir,
)
from jdsl.text import parse_behavior_ir
from jdsl.tree import Root

EVERY_KIND = """\
root every_kind model="m-1" system="sys"
  seq id=main context="ctx"
    act lookup(email=email, n=3) -> customer
    predict "request, orders -> selected_index: int" input_sources={"orders": "customer.orders"}
      | Pick one.
    react "q -> answer" tools=[search, lookup] max_steps=4
    check status == "done"
    guard orders[$selected_index].status == "pending" and not exists(receipt)
    guard_call is_vip(customer=customer)
    sel
      repeat max=4
        act poll() -> status
        until:
          check status == "done"
      timeout seconds=2.5
        invert
          optional
            oneshot
              act ping()
"""


def test_from_ir_then_to_ir_keeps_every_field() -> None:
    ir = parse_behavior_ir(EVERY_KIND)
    tree = from_ir(ir)
    assert isinstance(tree, Root)
    out = to_ir(tree)
    assert out["format"] == BEHAVIOR_FORMAT
    assert to_ir(from_ir(out)) == out
    assert validate_ir(out).ok, validate_ir(out).problems
    kinds = [n["kind"] for n in _walk(out["root"])]
    assert sorted(set(kinds)) == sorted(
        {
            "root",
            "sequence",
            "action",
            "predict",
            "react",
            "check",
            "guard",
            "guard_call",
            "selector",
            "repeat",
            "timeout",
            "invert",
            "optional",
            "oneshot",
        }
    )
    for node in _walk(ir["root"]):  # every field written in the text survives the classes
        match = next(
            n
            for n in _walk(out["root"])
            if n["kind"] == node["kind"]
            and n.get("tool") == node.get("tool")
            and n.get("key") == node.get("key")
        )
        for field, value in node.items():
            if field not in ("child", "children", "until"):
                assert match[field] == value, (node["kind"], field)


def _walk(node: dict) -> list[dict]:
    out = [node]
    for child in node.get("children", []) + [node[k] for k in ("child", "until") if k in node]:
        out += _walk(child)
    return out


def test_ir_is_json_and_has_no_nones() -> None:
    out = to_ir(from_ir(parse_behavior_ir("act a()\n")))
    assert all(v is not None for n in _walk(out["root"]) for v in n.values())


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"format": "jdsl.behavior.v9", "root": {}}, "format is 'jdsl.behavior.v9'"),
        ([], "must be a JSON object"),
        (
            {
                "format": BEHAVIOR_FORMAT,
                "root": {"kind": "root", "name": "x", "child": {"kind": "action"}},
            },
            "root/action.0': needs a tool name",  # validate_ir's words: the two agree
        ),
        (
            {
                "format": BEHAVIOR_FORMAT,
                "root": {"kind": "root", "name": "x", "child": {"kind": "teleport"}},
            },
            "unknown node kind 'teleport'",
        ),
    ],
)
def test_from_ir_rejects_bad_documents(data: object, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        from_ir(data)  # type: ignore[arg-type]
    assert any(fragment in p for p in info.value.problems), info.value.problems


def test_to_ir_needs_a_root() -> None:
    tree = from_ir(parse_behavior_ir("seq\n  act a()\n"))
    with pytest.raises(TypeError, match="needs a Root"):
        to_ir(tree.child)  # type: ignore[arg-type]


def test_digest_is_stable_and_content_addressed() -> None:
    ir = parse_behavior_ir(EVERY_KIND)
    reordered = dict(reversed(list(copy.deepcopy(ir).items())))
    assert ir_digest(ir) == ir_digest(reordered)
    assert len(ir_digest(ir)) == 64
    changed = copy.deepcopy(ir)
    changed["root"]["name"] = "other"
    assert ir_digest(changed) != ir_digest(ir)


def test_stored_schema_is_up_to_date() -> None:
    assert load_stored_schema() == ir_json_schema(), (
        "behavior.schema.json is stale; regenerate it with: "
        'python -c "from jdsl.ir import write_stored_schema; write_stored_schema()"'
    )


def test_schema_accepts_real_ir_and_rejects_unknown_kinds() -> None:
    validator = jsonschema.Draft202012Validator(load_stored_schema())
    ir = to_ir(from_ir(parse_behavior_ir(EVERY_KIND)))
    validator.validate(ir)
    bad = copy.deepcopy(ir)
    bad["root"]["child"]["children"][0]["kind"] = "teleport"
    assert list(validator.iter_errors(bad))
    assert list(validator.iter_errors({"format": "jdsl.behavior.v2", "root": ir["root"]}))
