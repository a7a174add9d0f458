"""Hostile behaviors (issue #26): huge numbers and deep guards are typed errors, and the static
check of a guard with many ``exists`` terms is linear."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from jdsl.errors import ValidationError
from jdsl.ir import from_ir, validate_ir
from jdsl.tree import Action, Guard, Root, Sequence
from jdsl.tree.check import check_tree


def _doc(child: dict[str, Any]) -> dict[str, Any]:
    return {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "x", "child": child}}


def test_a_timeout_of_10_to_the_400_seconds_is_a_problem_not_an_overflow() -> None:
    doc = _doc({"kind": "timeout", "seconds": 10**400, "child": {"kind": "action", "tool": "t"}})
    assert any("seconds must be a number" in p for p in validate_ir(doc).problems)
    with pytest.raises(ValidationError):
        from_ir(doc)


def _nested_not(depth: int) -> dict[str, Any]:
    expression: dict[str, Any] = {"exists": "x"}
    for _ in range(depth):
        expression = {"not": expression}
    return expression


def test_5000_nested_not_in_a_guard_is_a_validation_error_when_built() -> None:
    with pytest.raises(ValidationError, match="nests deeper than 32 levels"):
        Guard(expression=_nested_not(5_000))
    Guard(expression=_nested_not(31))  # the limit validate_ir applies too


def test_a_guard_with_deeply_nested_constants_is_a_validation_error() -> None:
    constant: Any = 1
    for _ in range(1_000):
        constant = [constant]
    with pytest.raises(ValidationError, match="nests deeper than 256"):
        Guard(expression={"eq": [{"ref": "x"}, {"const": constant}]})


@pytest.mark.slow
def test_the_static_check_of_many_exists_terms_grows_linearly(growth: Callable[..., float]) -> None:
    trees: dict[int, Root] = {}

    def tree(n: int) -> Root:
        guard = Guard(expression={"and": [{"exists": f"x{i}"} for i in range(n)]})
        return Root(name="r", child=Sequence(children=[guard, Action(tool="t")])).bind(
            tools={"t": lambda: 1}
        )

    def check(n: int) -> None:
        check_tree(trees.setdefault(n, tree(n)))

    assert growth(check, 5_000) < 10  # quadratic before: 5,000 terms 1.3 s, 20,000 21 s
