"""jdsl.expr: restricted paths and IR expressions."""

from __future__ import annotations

import pytest
from jdsl.errors import ValidationError
from jdsl.expr import (
    MISSING,
    describe,
    evaluate,
    expression_paths,
    missing_step,
    parse_path,
    preview,
    resolve_path,
    validate_expr,
)

BOARD = {
    "customer": {"id": "U1", "tags": ["a", "b"]},
    "orders": [{"id": "#W0", "status": "shipped"}, {"id": "#W1", "status": "pending"}],
    "selected_index": 1,
    "as_text": "1",
    "flag": True,
    "a.b": "dotted key",
    "nothing": None,
    "items": {"sku-1": 3},
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("customer", {"id": "U1", "tags": ["a", "b"]}),
        ("customer.id", "U1"),
        ("customer.tags[1]", "b"),
        ("orders[0].id", "#W0"),
        ("orders[-1].status", "pending"),
        ("orders[$selected_index].id", "#W1"),
        ("orders[$as_text].id", "#W1"),
        ("a.b", "dotted key"),
        ('items["sku-1"]', 3),
        ("items['sku-1']", 3),
        ("nothing", None),
    ],
)
def test_resolve_path_finds_values(path, expected):
    assert resolve_path(path, BOARD) == expected


@pytest.mark.parametrize(
    "path",
    [
        "missing",
        "customer.name",
        "orders[5].id",
        "orders[$flag].id",
        "orders[$nope].id",
        "orders[x]",
    ],
)
def test_resolve_path_missing_is_the_sentinel(path):
    assert resolve_path(path, BOARD) is MISSING


def test_missing_is_falsy_and_distinct_from_none():
    assert not MISSING
    assert resolve_path("nothing", BOARD) is None
    assert repr(MISSING) == "MISSING"


def test_bools_are_never_indices():
    assert resolve_path("orders[$flag]", BOARD) is MISSING


def test_digit_strings_index_lists():
    assert resolve_path("orders[$as_text].status", BOARD) == "pending"


def test_parse_path_steps():
    assert parse_path("orders[$i].id") == (("key", "orders"), ("var", "i"), ("key", "id"))
    assert parse_path("x[0]") == (("key", "x"), ("index", 0))


@pytest.mark.parametrize("bad", ["", "a..b", "a.", "[0]", "a[]", "a[0", "a[$]", ".a"])
def test_parse_path_rejects_malformed(bad):
    with pytest.raises(ValidationError):
        parse_path(bad)


def test_missing_step_names_the_absent_part():
    assert "'selected'" in missing_step("orders[$selected].id", BOARD)
    assert "orders has no" in missing_step("orders[7]", BOARD)
    assert "'customer_x'" in missing_step("customer_x.id", BOARD)


def _ref(p):
    return {"ref": p}


def _const(v):
    return {"const": v}


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ({"eq": [_ref("orders[$selected_index].status"), _const("pending")]}, True),
        ({"neq": [_ref("customer.id"), _const("U1")]}, False),
        ({"lt": [_ref("selected_index"), _const(2)]}, True),
        ({"gte": [_ref("selected_index"), 2]}, False),
        ({"in": [_const("a"), _ref("customer.tags")]}, True),
        ({"exists": "customer.id"}, True),
        ({"exists": _ref("nothing")}, True),
        ({"exists": _ref("customer.name")}, False),
        ({"and": [{"exists": "customer"}, {"eq": [_ref("flag"), True]}]}, True),
        ({"or": [{"exists": "zzz"}, {"eq": [_ref("flag"), False]}]}, False),
        ({"not": {"exists": "zzz"}}, True),
        ({"lt": [_ref("customer.id"), _const(3)]}, False),  # TypeError -> False
        ({"eq": [_ref("absent"), _const(None)]}, True),  # absent ref reads as None
    ],
)
def test_evaluate(expr, expected):
    assert evaluate(expr, BOARD) is expected


def test_evaluate_records_reads():
    reads: dict = {}
    evaluate({"and": [{"exists": "zzz"}, {"eq": [_ref("flag"), True]}]}, BOARD, reads)
    assert reads == {"zzz": None}  # short-circuit: the second operand is never read


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {"eq": [1]},
        {"bogus": [1, 2]},
        {"and": []},
        {"exists": 3},
        {"eq": [1, 2], "neq": [1, 2]},
        "text",
    ],
)
def test_malformed_expressions_raise_and_validate(bad):
    with pytest.raises(ValidationError):
        evaluate(bad, BOARD)
    assert validate_expr(bad)


def test_validate_expr_accepts_good_and_flags_bad_paths():
    assert validate_expr({"and": [{"exists": "a"}, {"eq": [_ref("b[0]"), _const(1)]}]}) == []
    assert validate_expr({"eq": [_ref("b[0"), 1]})
    assert validate_expr({"eq": [{"what": 1}, 1]})


def test_expression_paths_in_order_without_repeats():
    expr = {
        "or": [{"exists": "a"}, {"eq": [_ref("b.c"), _ref("a")]}, {"not": {"exists": _ref("d")}}]
    }
    assert expression_paths(expr) == ["a", "b.c", "d"]


def test_true_and_false_literals_evaluate_describe_and_read_nothing():
    assert evaluate(_const(True), BOARD) is True and evaluate(_const(False), BOARD) is False
    assert evaluate({"and": [{"exists": "customer"}, {"not": _const(False)}]}, BOARD) is True
    assert describe(_const(False)) == "false" and validate_expr(_const(True)) == []
    assert expression_paths({"or": [_const(False), {"exists": "a"}]}) == ["a"]


@pytest.mark.parametrize("value", [3, None, "true", [True], {"ref": "flag"}])
def test_a_const_expression_that_is_not_a_bool_is_a_validation_error(value):
    with pytest.raises(ValidationError, match="true or false"):
        evaluate(_const(value), BOARD)
    assert validate_expr(_const(value)) == [
        f"expression: 'const' is true or false, got {preview(value)}; compare with =="
    ]
    assert describe(_const(value)) == repr(_const(value))  # a malformed part prints as its repr
