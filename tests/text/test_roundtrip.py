"""Round trips checked with hypothesis: random trees -> text -> tree give equal IR."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jdsl.ir import from_ir, load_stored_schema, to_ir
from jdsl.text import format_behavior, format_expression, parse_behavior, parse_expression
from jdsl.text.formatter import format_node
from jdsl.text.parser import parse_behavior_ir
from jdsl.text.scanner import KEYWORDS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

names = st.from_regex(r"[a-z_][a-z0-9_]{0,7}", fullmatch=True).filter(lambda s: s not in KEYWORDS)
tool_names = st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,6})?", fullmatch=True)
# any text but carriage returns (instruction lines end at a newline; '\r' would be eaten)
texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=12)
segments = st.one_of(
    names.map(lambda n: "." + n),
    st.integers(-3, 20).map(lambda i: f"[{i}]"),
    names.map(lambda n: f"[${n}]"),
    texts.filter(lambda t: not set(t) & set('"]\n')).map(lambda t: f'["{t}"]'),
)
paths = st.builds(lambda head, rest: head + "".join(rest), names, st.lists(segments, max_size=3))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
literals = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)),
    max_leaves=6,
)
operands = st.one_of(paths.map(lambda p: {"ref": p}), literals.map(lambda v: {"const": v}))
comparisons = st.builds(
    lambda op, left, right: {op: [left, right]},
    st.sampled_from(["eq", "neq", "lt", "lte", "gt", "gte", "in"]),
    operands,
    operands,
)
expressions = st.recursive(
    st.one_of(comparisons, paths.map(lambda p: {"exists": {"ref": p}})),
    lambda inner: st.one_of(
        inner.map(lambda e: {"not": e}),
        st.builds(
            lambda op, items: {op: items},
            st.sampled_from(["and", "or"]),
            st.lists(inner, min_size=2, max_size=3),
        ),
    ),
    max_leaves=6,
)
args = st.dictionaries(names, operands, max_size=3)
examples = st.builds(
    lambda i, o: {"input": i, "output": o},
    st.dictionaries(names, literals, max_size=2),
    st.dictionaries(names, literals, max_size=2),
)
signatures = st.sampled_from(
    [
        "q -> answer",
        "request, orders -> selected_index: int",
        "-> x",
        "a -> b: list[str]",
        'x -> y: Literal["a", "b"]',
    ]
)


def _common(node: dict[str, Any], draw: Any) -> dict[str, Any]:
    if draw(st.booleans()):
        node["id"] = draw(st.one_of(names, texts.filter(bool)))
    if draw(st.booleans()):
        node["context"] = draw(texts)
    return node


@st.composite
def leaves(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["action", "predict", "react", "check", "guard", "guard_call"]))
    node: dict[str, Any] = {"kind": kind}
    if kind == "action":
        node.update(tool=draw(tool_names), args=draw(args))
        if draw(st.booleans()):
            node["store"] = draw(st.one_of(names, texts.filter(bool)))
    elif kind == "guard_call":
        node.update(predicate=draw(tool_names), args=draw(args))
    elif kind in ("predict", "react"):
        node["signature"] = draw(signatures)
        if draw(st.booleans()):
            node["instructions"] = "\n".join(draw(st.lists(texts, min_size=1, max_size=3)))
        if kind == "react":
            node["tools"] = draw(st.lists(tool_names, min_size=1, max_size=3))
            steps = draw(st.integers(1, 20))
            if steps != 6:
                node["max_steps"] = steps
        else:
            if draw(st.booleans()):
                node["input_sources"] = draw(st.dictionaries(names, paths, min_size=1, max_size=2))
            if draw(st.booleans()):
                node["examples"] = draw(st.lists(examples, min_size=1, max_size=2))
    elif kind == "check":
        node.update(key=draw(paths), equals=draw(literals))
    else:
        node["expression"] = draw(expressions)
    return _common(node, draw)


def _inner(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: Any) -> dict[str, Any]:
        kind = draw(
            st.sampled_from(
                ["sequence", "selector", "invert", "optional", "oneshot", "timeout", "repeat"]
            )
        )
        node: dict[str, Any] = {"kind": kind}
        if kind in ("sequence", "selector"):
            node["children"] = draw(st.lists(children, min_size=1, max_size=3))
            return _common(node, draw)
        node["child"] = draw(children)
        if kind == "timeout":
            node["seconds"] = draw(st.one_of(st.integers(1, 600), st.floats(0.01, 600)))
        if kind == "repeat":
            node["max"] = draw(st.integers(1, 1000))
            if draw(st.booleans()):
                node["until"] = draw(children)
        return _common(node, draw)

    return build()


nodes = st.recursive(leaves(), _inner, max_leaves=8)


def _unique_ids(node: dict[str, Any], seen: set[str]) -> dict[str, Any]:
    """Drop repeated ids (ids are unique in a behavior), pre-order like the parser."""
    if "id" in node:
        if node["id"] in seen:
            del node["id"]
        else:
            seen.add(node["id"])
    for child in node.get("children", []) + [node[k] for k in ("child", "until") if k in node]:
        _unique_ids(child, seen)
    return node


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    root: dict[str, Any] = {"kind": "root", "name": draw(st.one_of(names, texts.filter(bool)))}
    if draw(st.booleans()):
        root["model_id"] = draw(st.one_of(names, texts))
    if draw(st.booleans()):
        root["system"] = draw(texts)
    root["child"] = draw(nodes)
    return {"format": "jdsl.behavior.v1", "root": _unique_ids(_common(root, draw), set())}


def to_text(document: dict[str, Any]) -> str:
    return "\n".join(format_node(document["root"])) + "\n"


@SETTINGS
@given(expressions)
def test_expression_text_round_trip(expression: dict[str, Any]) -> None:
    assert parse_expression(format_expression(expression)) == expression


@SETTINGS
@given(documents())
def test_random_ir_to_text_and_back_is_equal(document: dict[str, Any]) -> None:
    text = to_text(document)
    assert parse_behavior_ir(text) == document
    assert to_text(parse_behavior_ir(text)) == text, "format output is canonical"


@SETTINGS
@given(documents())
def test_random_trees_to_ir_and_from_ir_are_equal(document: dict[str, Any]) -> None:
    tree = from_ir(document)
    ir = to_ir(tree)
    assert from_ir(ir) == tree
    assert to_ir(from_ir(ir)) == ir


@SETTINGS
@given(documents())
def test_random_trees_to_text_and_back_give_equal_ir(document: dict[str, Any]) -> None:
    tree = from_ir(document)
    text = format_behavior(tree)
    assert to_ir(parse_behavior(text)) == to_ir(tree)
    assert format_behavior(to_ir(tree)) == text


@SETTINGS
@given(documents())
def test_random_trees_match_the_json_schema(document: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(load_stored_schema()).validate(to_ir(from_ir(document)))
