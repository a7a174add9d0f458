"""Guard expressions: text <-> IR operators, precedence, parentheses, errors."""

from __future__ import annotations

import pytest
from jdsl.errors import BehaviorSyntaxError, ValidationError
from jdsl.text import format_expression, parse_expression


def ref(path: str) -> dict:
    return {"ref": path}


def const(value: object) -> dict:
    return {"const": value}


@pytest.mark.parametrize(
    ("text", "operator"),
    [
        ("a == 1", "eq"),
        ("a != 1", "neq"),
        ("a < 1", "lt"),
        ("a <= 1", "lte"),
        ("a > 1", "gt"),
        ("a >= 1", "gte"),
        ("a in [1, 2]", "in"),
    ],
)
def test_each_comparison_maps_to_its_ir_operator(text: str, operator: str) -> None:
    expression = parse_expression(text)
    assert list(expression) == [operator]
    assert expression[operator][0] == ref("a")
    assert format_expression(expression) == text


def test_paths_literals_and_exists() -> None:
    expression = parse_expression('orders[$i].status == "pending" and not exists(receipt)')
    assert expression == {
        "and": [
            {"eq": [ref("orders[$i].status"), const("pending")]},
            {"not": {"exists": ref("receipt")}},
        ]
    }


def test_literal_on_the_left_and_json_literals() -> None:
    expression = parse_expression('"x" in tags and n >= -2.5 and flag == true and v == null')
    assert expression["and"][0] == {"in": [const("x"), ref("tags")]}
    assert expression["and"][1] == {"gte": [ref("n"), const(-2.5)]}
    assert expression["and"][2] == {"eq": [ref("flag"), const(True)]}
    assert expression["and"][3] == {"eq": [ref("v"), const(None)]}


def test_not_binds_tighter_than_and_which_binds_tighter_than_or() -> None:
    expression = parse_expression("not a == 1 and b == 2 or c == 3")
    assert expression == {
        "or": [
            {"and": [{"not": {"eq": [ref("a"), const(1)]}}, {"eq": [ref("b"), const(2)]}]},
            {"eq": [ref("c"), const(3)]},
        ]
    }
    assert format_expression(expression) == "not a == 1 and b == 2 or c == 3"


@pytest.mark.parametrize(
    "text",
    [
        "(a == 1 or b == 2) and c == 3",
        "a == 1 and (b == 2 and c == 3)",
        "a == 1 or (b == 2 or c == 3)",
        "not (a == 1 and b == 2)",
        "not not exists(x)",
        'x["k y"][-1].z >= 0',
    ],
)
def test_format_adds_parentheses_only_where_needed(text: str) -> None:
    assert format_expression(parse_expression(text)) == text


def test_redundant_parentheses_are_dropped() -> None:
    assert format_expression(parse_expression("((a == 1)) and (not b == 2)")) == (
        "a == 1 and not b == 2"
    )


def test_single_item_chain_prints_as_its_item() -> None:
    assert format_expression({"and": [{"exists": "a"}]}) == "exists(a)"


@pytest.mark.parametrize(
    ("text", "col", "fragment"),
    [
        ("a", 2, "expected a comparison"),
        ("a = 1", 3, "'=' is not a comparison"),
        ("$a == 1", 1, "only inside brackets"),
        ('a == "x', 6, "unterminated string"),
        ("a == 1 b", 8, "unexpected 'b'"),
        ("a == 'x'", 6, "single-quoted"),
        ("(a == 1", 8, "expected ')'"),
        ("exists a", 8, "expected '('"),
        ("and == 1", 1, "reserved word"),
    ],
)
def test_malformed_expressions_raise_with_column(text: str, col: int, fragment: str) -> None:
    with pytest.raises(BehaviorSyntaxError) as info:
        parse_expression(text, line=7)
    assert (info.value.line, info.value.col) == (7, col)
    assert fragment in info.value.message
    assert info.value.hint


@pytest.mark.parametrize(
    "expression",
    [{"xor": [1, 2]}, {"eq": [1]}, {"and": []}, {"a": 1, "b": 2}, "a == 1", {"exists": 3}],
)
def test_format_rejects_malformed_ir(expression: object) -> None:
    with pytest.raises(ValidationError):
        format_expression(expression)


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("false", const(False)),
        ("true", const(True)),
        ("not false", {"not": const(False)}),
        ("exists(a) and true", {"and": [{"exists": ref("a")}, const(True)]}),
        ("false or a == 1", {"or": [const(False), {"eq": [ref("a"), const(1)]}]}),
        ("true == a", {"eq": [const(True), ref("a")]}),  # compared: an operand, as before
        ("a != false", {"neq": [ref("a"), const(False)]}),
        ("true in a", {"in": [const(True), ref("a")]}),
    ],
)
def test_true_and_false_alone_are_literals_and_round_trip(text: str, expression: dict) -> None:
    assert parse_expression(text) == expression
    assert format_expression(expression) == text
    assert parse_expression(format_expression(expression)) == expression


def test_a_literal_guard_round_trips_in_behavior_text_and_draws_as_written() -> None:
    from jdsl.drawing.labels import drawing_label
    from jdsl.text import format_behavior, parse_behavior_ir

    ir = parse_behavior_ir("guard false id=hand_over_1\n")
    guard = ir["root"]["child"]
    assert guard == {"kind": "guard", "expression": const(False), "id": "hand_over_1"}
    assert "guard false id=hand_over_1" in format_behavior(ir)
    assert drawing_label(guard) == "guard false"


@pytest.mark.parametrize(
    ("text", "col", "fragment"),
    [("null", 5, "expected a comparison"), ('"x"', 4, "expected a comparison"),
     ("3", 2, "expected a comparison"), ("true 3", 6, "unexpected '3'"),
     ("true = a", 6, "'=' is not a comparison")],
)  # fmt: skip
def test_other_literals_alone_still_need_a_comparison(text: str, col: int, fragment: str) -> None:
    with pytest.raises(BehaviorSyntaxError) as info:
        parse_expression(text)
    assert info.value.col == col and fragment in info.value.message and info.value.hint


@pytest.mark.parametrize("value", [3, None, "false", [False]])
def test_a_const_expression_that_is_not_a_bool_is_refused(value: object) -> None:
    with pytest.raises(ValidationError, match="true or false"):
        format_expression(const(value))
