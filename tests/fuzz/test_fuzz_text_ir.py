"""Fuzz targets: the behavior text parser, IR validation, paths and guard expressions."""

from __future__ import annotations

from typing import Any

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.errors import BehaviorSyntaxError, ValidationError
from jdsl.expr import evaluate, parse_path, resolve_path, validate_expr
from jdsl.ir import from_ir, to_ir, validate_ir
from jdsl.text import format_behavior, format_expression, parse_behavior, parse_expression
from jdsl.text.parser import parse_behavior_ir
from strategies import SEED_TEXTS, behavior_texts, blackboards, ir_documents, path_texts

SEED_IR = [parse_behavior_ir(text) for text in SEED_TEXTS]


def _round_trips(tree: Any) -> None:
    """IR -> tree -> IR is the identity; the printed text parses and prints back the same (the
    printer writes a bare IR literal operand as its ``{"const": ...}`` form, so text -> IR is
    compared as text)."""
    ir = to_ir(tree)
    assert to_ir(from_ir(ir)) == ir
    try:
        text = format_behavior(tree)
    except ValidationError as exc:  # valid IR with no text form (a tool named "a[0]")
        assert "no behavior-text form" in str(exc)
        return
    assert format_behavior(parse_behavior(text)) == text


@FUZZ
@given(behavior_texts)
def test_text_parser_raises_only_syntax_errors_and_round_trips(text: str) -> None:
    try:
        ir = parse_behavior_ir(text)
    except BehaviorSyntaxError as exc:
        assert exc.line >= 1 and exc.col >= 1
        return
    report = validate_ir(ir)
    try:
        tree = from_ir(ir)
    except ValidationError:
        assert not report.ok
        return
    if report.ok:
        _round_trips(tree)


@FUZZ
@given(ir_documents(SEED_IR))
def test_validate_ir_reports_and_valid_documents_round_trip(document: dict) -> None:
    report = validate_ir(document)  # never raises, whatever the document
    assert all(isinstance(p, str) and len(p) < 5000 for p in report.problems)
    try:
        tree = from_ir(document)
    except ValidationError:
        return
    if report.ok:
        _round_trips(tree)


@FUZZ
@given(path_texts, blackboards)
def test_paths_raise_only_validation_errors(path: str, data: dict) -> None:
    try:
        parse_path(path)
        parsed = True
    except ValidationError:
        parsed = False
    try:
        resolve_path(path, data)
    except ValidationError:
        assert not parsed


EXPRESSION_TOKENS = st.sampled_from([
    "a", "b.c", "x[0]", "x[$i]", 'd["k"]', "==", "!=", "<", "<=", ">", ">=", "in", "and", "or",
    "not", "exists(", "(", ")", "1", "-2.5", '"s"', "true", "null", "[1, 2]", "{}", "9" * 30,
    "9" * 5000, "1e999", "'q'", "$",
])  # fmt: skip


@FUZZ
@given(st.lists(EXPRESSION_TOKENS, max_size=12).map(" ".join), blackboards)
def test_guard_expressions_parse_print_and_evaluate(text: str, data: dict) -> None:
    try:
        expression = parse_expression(text)
    except BehaviorSyntaxError:
        return
    assert validate_expr(expression) == []
    assert parse_expression(format_expression(expression)) == expression
    try:
        assert isinstance(evaluate(expression, data), bool)
    except ValidationError:
        pass  # a ref the text allows but the path grammar refuses is reported, not raised raw
