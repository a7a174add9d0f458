"""Issue #17: paths read only mappings, sequences and declared model fields (S2); bounded
indexes; a model answering a 5000-digit index is a RefError, not a ValueError."""

from __future__ import annotations

import dataclasses
import os

import pytest
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.errors import JdslError, RefError, ValidationError
from jdsl.expr import MISSING, evaluate, parse_path, resolve_path, validate_expr
from jdsl.testing import ScriptedModel
from pydantic import BaseModel


def _generator():
    yield 1


class Account(BaseModel):
    name: str
    owner: dict

    @property
    def computed(self) -> str:
        raise AssertionError("a property getter ran during path evaluation")


@dataclasses.dataclass
class Order:
    id: str
    items: list

    @property
    def total(self) -> int:
        raise AssertionError("a property getter ran during path evaluation")


def test_a_path_cannot_walk_from_an_object_to_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-from-env")
    data = {"g": _generator(), "f": test_a_path_cannot_walk_from_an_object_to_the_environment,
            "m": os}  # fmt: skip
    for path in ("g.gi_frame.f_globals.os.environ.OPENAI_API_KEY", "f.__globals__",
                 "f.func_globals", "m.environ.OPENAI_API_KEY", "g.gi_code", "m.sep"):  # fmt: skip
        assert resolve_path(path, data) is MISSING, path


def test_paths_read_declared_fields_but_never_run_properties_or_methods():
    data = {"a": Account(name="x", owner={"id": 7}), "o": Order("o1", [{"sku": "s"}])}
    assert resolve_path("a.name", data) == "x"
    assert resolve_path("a.owner.id", data) == 7
    assert resolve_path("o.items[0].sku", data) == "s"
    for path in ("a.computed", "o.total", "a.model_dump", "a.model_fields", "o.__dict__",
                 "a.__class__", "o.__dataclass_fields__"):  # fmt: skip
        assert resolve_path(path, data) is MISSING, path


def test_huge_and_odd_index_values_are_absent_not_errors():
    data = {"xs": [1, 2], "d": {"k": 1}, "i": "9" * 5000, "big": 10**5000, "lst": [1]}
    for path in ("xs[$i]", "xs[$big]", "d[$big]", "d[$lst]", "d[$i]"):
        assert resolve_path(path, data) is MISSING, path
    assert resolve_path("xs[$lst]", data) == [2]  # a list of indexes is a selection (#13)
    with pytest.raises(ValidationError, match="at most 18 digits"):
        parse_path("xs[" + "9" * 5000 + "]")
    with pytest.raises(ValidationError, match="non-empty string"):
        parse_path(["a"])  # type: ignore[arg-type]  # was a TypeError from the cache


def test_an_unhashable_ref_in_an_expression_is_a_validation_error():
    assert validate_expr({"eq": [{"ref": ["a"]}, {"const": 1}]})
    with pytest.raises(ValidationError):
        evaluate({"eq": [{"ref": ["a"]}, {"const": 1}]}, {"a": 1})


def test_deep_expressions_are_refused_not_a_recursion_error():
    deep: dict = {"exists": "a"}
    for _ in range(5000):
        deep = {"not": deep}
    assert validate_expr(deep)
    with pytest.raises(ValidationError, match="nests deeper"):
        evaluate(deep, {"a": 1})


def test_a_model_answering_a_5000_digit_index_is_a_ref_error():
    def get_order(order: dict) -> dict:
        """Fetch an order."""
        return order

    tree = root("pick").do(seq(
        predict("request, orders -> idx"),
        act(get_order, order=ref("orders[$idx]")) >> "order",
    ))  # fmt: skip
    with pytest.raises(RefError):
        tree.run(model=ScriptedModel("9" * 5000), request="r", orders=[{"id": 1}])
    ctx = tree.run(model=ScriptedModel("9" * 5000), request="r", orders=[{"id": 1}],
                   raise_errors=False)  # fmt: skip
    assert isinstance(ctx.error, JdslError)
