"""A predict whose ``int`` / ``list[int]`` output another node uses as an index (``xs[$k]``)
asks a ``structured_outputs`` model for the indexes of that list as it is when the predict
ticks (tree/index_bounds.py); nothing else changes: other outputs, other models, the trace."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jdsl import dsl
from jdsl.testing import ScriptedModel
from jdsl.tree.index_bounds import bounded_schema, index_sizes, indexed_lists


def _asked(model: ScriptedModel) -> dict[str, Any]:
    (schema,) = [c["response_schema"] for c in model.calls if "response_schema" in c]
    return dict(schema["properties"])


def _run(*nodes: Any, answer: dict[str, Any], **inputs: Any) -> ScriptedModel:
    model = ScriptedModel(json.dumps(answer), structured_outputs=True)
    dsl.root("t").do(dsl.seq(*nodes)).run(model=model, tools={"f": lambda x: x}, **inputs)
    return model


def test_a_position_is_held_to_the_list_read_after_it() -> None:
    model = _run(dsl.predict("q, xs -> k: int, why: str"), dsl.act("f", x=dsl.ref("xs[$k]")),
                 answer={"k": 2, "why": "third"}, q="?", xs=["a", "b", "c"])  # fmt: skip
    assert _asked(model) == {"k": {"type": "integer", "minimum": 0, "maximum": 2},
                             "why": {"type": "string"}}  # fmt: skip


def test_a_selection_is_held_to_the_indexes_of_the_list() -> None:
    model = _run(dsl.predict("q, user -> ks: list[int]"),
                 dsl.act("f", x=dsl.ref("user.orders[$ks].id")), answer={"ks": [1]}, q="?",
                 user={"orders": [{"id": "a"}, {"id": "b"}]})  # fmt: skip
    assert _asked(model)["ks"] == {"type": "array", "maxItems": 2, "uniqueItems": True,
                                   "items": {"type": "integer", "minimum": 0, "maximum": 1}}  # fmt: skip


def test_the_list_is_read_at_the_tick_inside_a_loop() -> None:
    """Inside ``for_each`` over users, ``users[$u].orders`` is the list of the user ``$u``."""
    model = ScriptedModel('{"k": 0}', structured_outputs=True)
    tree = dsl.root("t").do(dsl.for_each("user", dsl.ref("users"), dsl.seq(
        dsl.predict("user -> k: int"), dsl.act("f", x=dsl.ref("user.orders[$k]")))))  # fmt: skip
    tree.run(model=model, tools={"f": lambda x: x},
             users=[{"orders": [1, 2, 3]}, {"orders": [4]}])  # fmt: skip
    maxima = [c["response_schema"]["properties"]["k"].get("maximum") for c in model.calls]
    assert maxima == [2, 0]


def test_a_key_indexing_two_lists_is_held_to_the_shorter() -> None:
    model = _run(dsl.predict("q -> k: int"), dsl.act("f", x=dsl.ref("xs[$k]")),
                 dsl.guard("exists(ys[$k])"), answer={"k": 0}, q="?", xs=[1, 2, 3],
                 ys=[1, 2])  # fmt: skip
    assert _asked(model)["k"] == {"type": "integer", "minimum": 0, "maximum": 1}


@pytest.mark.parametrize(
    ("path", "inputs"),
    [
        ("later[$k]", {}),  # written after the predict: not readable at its tick
        ("xs[*].ys[$k]", {"xs": [{"ys": [1]}]}),  # a fan-out: no one list
        ("d[$k]", {"d": {"0": "a"}}),  # a dict: $k is a key, not an index
    ],
)
def test_a_list_not_readable_at_the_tick_bounds_nothing(path: str, inputs: Any) -> None:
    nodes = [dsl.predict("q -> k: int"), dsl.act("f", x=dsl.ref("q")) >> "later",
             dsl.act("f", x=dsl.ref(path))]  # fmt: skip
    model = ScriptedModel('{"k": 0}', structured_outputs=True)
    dsl.root("t").do(dsl.seq(*nodes)).run(model=model, tools={"f": lambda x: x}, q=[1, 2],
                                          raise_errors=False, **inputs)  # fmt: skip
    assert _asked(model)["k"] == {"type": "integer"}


def test_a_list_the_same_answer_writes_bounds_nothing() -> None:
    """``q -> xs, k`` with ``xs[$k]``: the ``xs`` on the board (one item) is the one the answer
    replaces (three items), so ``k`` may be 2; held to the old list it could only be 0."""
    model = _run(dsl.predict("q -> xs: list[str], k: int"), dsl.act("f", x=dsl.ref("xs[$k]")),
                 answer={"xs": ["a", "b", "c"], "k": 2}, q="?", xs=["old"])  # fmt: skip
    assert _asked(model)["k"] == {"type": "integer"}


def test_an_output_used_as_no_index_is_not_bounded() -> None:
    model = _run(dsl.predict("q -> k: int"), dsl.act("f", x=dsl.ref("k")), answer={"k": 7}, q="?")
    assert _asked(model)["k"] == {"type": "integer"}


def test_indexed_lists_and_sizes() -> None:
    tree = dsl.seq(dsl.act("f", x=dsl.ref("users[$u].orders[$k].id")),
                   dsl.guard("exists(user.items[$k])"))  # fmt: skip
    lists = indexed_lists(tree.walk())
    assert lists == {"u": ("users",), "k": ("users[$u].orders", "user.items")}
    board = {"users": [{"orders": [1, 2, 3]}, {"orders": [1]}], "u": 0,
             "user": {"items": [1, 2, 3, 4]}}  # fmt: skip
    assert index_sizes(["k", "u", "other"], lists, board) == {"k": 3, "u": 2}
    assert index_sizes(["k"], lists, {**board, "u": 1}) == {"k": 1}
    assert index_sizes(["k"], lists, {**board, "u": [0, 1]}) == {"k": 4}  # a fan-out: skipped


def test_an_empty_list_leaves_only_the_empty_selection() -> None:
    ints = {"type": "array", "items": {"type": "integer"}}
    assert bounded_schema(ints, 0) == {**ints, "maxItems": 0, "uniqueItems": True}
    assert bounded_schema({"type": "integer"}, 0) == {"type": "integer"}  # no right index
    assert bounded_schema({"type": "string"}, 3) == {"type": "string"}
    strings = {"type": "array", "items": {"type": "string"}}
    assert bounded_schema(strings, 3) == strings
