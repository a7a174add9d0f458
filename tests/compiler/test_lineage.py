"""Exact typed lineage (docs/design.md appendix B, "2. Exact Lineage")."""

from __future__ import annotations

import math

import pytest
from jdsl.compiler.lineage import MAX_DEPTH, StateIndex, find_source, find_sources, is_meaningful


@pytest.mark.parametrize(
    ("value", "expected"),
    [("#W01", True), ("ab", True), ("x", False), ("", False), (None, False), (True, False),
     (False, False), (0, False), (1, False), (-1, False), (1.0, False), (2, True), (-7, True),
     (2.5, True), (math.nan, False), ([1, 2], False), ({"a": 1}, False)],
)  # fmt: skip
def test_is_meaningful(value: object, expected: bool) -> None:
    assert is_meaningful(value) is expected


def test_exact_typed_equality() -> None:
    state = {"customer": {"id": "U12", "age": 42, "vip": True}, "n": "42"}
    assert find_source("U12", state) == "customer.id"
    assert find_sources(42, state) == ("customer.age",)  # the string "42" never equals 42
    assert find_sources(42.0, state) == ("customer.age",)  # numbers compare numerically
    assert find_source(True, state) is None  # bools never count
    assert find_source("U1", state) is None  # no substring matching
    assert find_source("x", {"a": "x"}) is None


def test_containers_are_never_targets() -> None:
    state = {"orders": [{"id": "#W1"}]}
    assert find_source([{"id": "#W1"}], state) is None
    assert find_source({"id": "#W1"}, state) is None


def test_symbolic_index_is_preferred_and_decisions_name_it() -> None:
    index = StateIndex()
    index.set("orders", [{"id": "#W0"}, {"id": "#W1"}])
    index.set("page", 1)
    index.set("selected_index", 1, decision=True)
    assert index.sources("#W1")[0] == "orders[$selected_index].id"
    assert "orders[1].id" in index.sources("#W1")


def test_digit_string_index_variable() -> None:
    index = StateIndex()
    index.set("orders", [{"id": "#W0"}, {"id": "#W1"}])
    index.set("pick", "1", decision=True)
    assert index.sources("#W1")[0] == "orders[$pick].id"


def test_bool_is_never_an_index_variable() -> None:
    index = StateIndex()
    index.set("orders", [{"id": "#W0"}, {"id": "#W1"}])
    index.set("flag", True, decision=True)
    assert index.sources("#W1") == ("orders[1].id",)


def test_overwrite_forgets_old_paths() -> None:
    index = StateIndex()
    index.set("customer", {"id": "U1"})
    index.set("customer", {"id": "U2"})
    assert index.sources("U1") == ()
    assert index.sources("U2") == ("customer.id",)


def test_depth_is_bounded() -> None:
    deep: object = "needle"
    for _ in range(MAX_DEPTH + 1):
        deep = {"k": deep}
    assert find_source("needle", {"top": deep}) is None
    shallow: object = "needle"
    for _ in range(MAX_DEPTH):
        shallow = {"k": shallow}
    assert find_source("needle", {"top": shallow}) == "top" + ".k" * MAX_DEPTH


def test_odd_keys_render_as_quoted_paths() -> None:
    from jdsl.expr import resolve_path

    state = {"result": {"order id": "#W9", "a.b": "xy"}}
    for value in ("#W9", "xy"):
        path = find_source(value, state)
        assert path is not None and resolve_path(path, state) == value


def test_shorter_paths_first() -> None:
    assert find_sources("U1", {"a": {"b": {"c": "U1"}}, "z": "U1"}) == ("z", "a.b.c")
