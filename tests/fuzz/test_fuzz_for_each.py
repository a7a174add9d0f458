"""Fuzz target: for_each nodes with arbitrary fields. validate_ir and from_ir agree on every
one, a valid one round-trips through IR and text, and running it never raises."""

from __future__ import annotations

from typing import Any

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.errors import ValidationError
from jdsl.ir import BEHAVIOR_FORMAT, from_ir, to_ir, validate_ir
from jdsl.text import format_behavior, parse_behavior
from jdsl.tree import Status
from strategies import json_values, path_texts

names = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.sampled_from(["in", "true", "order id", "1x", "a.b", "", "é"]),
    st.text(max_size=6),
)
paths = st.one_of(
    st.sampled_from(["xs", "u.orders", "xs[*].id", "xs[$i]", "by['k']", "a..b", "xs["]),
    path_texts,
)
absent = st.just(None)


@st.composite
def loops(draw: Any) -> dict[str, Any]:
    node: dict[str, Any] = {
        "kind": "for_each",
        "items": draw(st.one_of(paths, json_values)),
        "item": draw(st.one_of(names, json_values)),
        "child": {"kind": "action", "tool": "f", "args": {"a": {"ref": "e"}}, "store": "y"},
    }
    for field, values in (
        ("collect", st.one_of(absent, paths)),
        ("store", st.one_of(absent, names)),
        ("max", st.one_of(absent, st.integers(-2, 1100), st.sampled_from([True, 2.5, "3"]))),
        ("id", st.one_of(absent, names.filter(bool))),  # id "" is every kind's (validate only)
    ):
        value = draw(values)
        if value is not None:
            node[field] = value
    return node


def doc(node: dict[str, Any]) -> dict[str, Any]:
    return {"format": BEHAVIOR_FORMAT, "root": {"kind": "root", "name": "r", "child": node}}


def f(a: Any) -> Any:
    return a


@FUZZ
@given(loops(), st.dictionaries(st.sampled_from(["xs", "u", "i", "by", "e"]), json_values))
def test_validate_and_load_agree_and_valid_loops_round_trip_and_run(node: dict, board: dict):
    document = doc(node)
    report = validate_ir(document)
    try:
        tree = from_ir(document)
    except ValidationError:
        assert not report.ok
        return
    assert report.ok, report.problems
    assert to_ir(from_ir(to_ir(tree))) == to_ir(tree)
    try:
        text = format_behavior(tree)
    except ValidationError as exc:  # a valid IR without a text form (an id with spaces)
        assert "no behavior-text form" in str(exc)
    else:
        assert to_ir(parse_behavior(text)) == to_ir(tree)
    ctx = tree.run(tools={"f": f}, raise_errors=False, **board)
    assert ctx.error is None or isinstance(ctx.error, ValidationError | LookupError), ctx.error
    assert ctx.status in (Status.SUCCESS, Status.FAILURE)
