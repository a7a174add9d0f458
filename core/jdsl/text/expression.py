"""Guard expressions in text form, one-to-one with the IR expression operators.

Text grammar (docs/design.md §3), loosest binding first::

    expr    := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | atom
    atom    := "(" expr ")" | "exists" "(" path ")" | operand OP operand | "true" | "false"
    OP      := "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "prefix_of"
    operand := path | JSON literal

IR form (docs/ARCHITECTURE.md): one operator key per object; ``eq neq lt lte gt gte in
prefix_of`` take
two operands (``{"ref": path}`` or ``{"const": value}``), ``and``/``or`` a list, ``not`` one
expression, ``exists`` a ``{"ref": path}``; ``true`` / ``false`` alone (not compared) is the
literal ``{"const": true}`` / ``{"const": false}``. A chain ``a and b and c`` is one ``and`` with three
items; parentheses keep nesting, so ``a and (b and c)`` stays two levels and prints back the same.

Example:
    >>> parse_expression('orders[$i].status == "pending" and not exists(receipt)')
    {'and': [{'eq': [{'ref': 'orders[$i].status'}, {'const': 'pending'}]}, {'not': {'exists': {'ref': 'receipt'}}}]}
    >>> format_expression({"or": [{"exists": {"ref": "a"}}, {"lt": [{"ref": "n"}, {"const": 3}]}]})
    'exists(a) or n < 3'
"""

from __future__ import annotations

from typing import Any

from jdsl.errors import ValidationError
from jdsl.expr import MAX_EXPRESSION_DEPTH
from jdsl.text.scanner import Scanner, format_literal, format_path

__all__ = [
    "COMPARISONS",
    "format_expression",
    "parse_expression",
    "read_expression",
]

COMPARISONS: dict[str, str] = {
    "==": "eq",
    "!=": "neq",
    "<=": "lte",
    ">=": "gte",
    "<": "lt",
    ">": "gt",
    "in": "in",
    "prefix_of": "prefix_of",
}
"""Text operator -> IR operator (two-character operators first, so they match first)."""

_SYMBOLS = {op: text for text, op in COMPARISONS.items()}
_WORDS = ("in", "prefix_of")
_PRECEDENCE = {"or": 1, "and": 2, "not": 3}
_NEEDS_COMPARISON = (
    "a guard operand needs a comparison: write key == true, exists(key) or key in [..] "
    "(true and false alone are the literals)"
)


def parse_expression(text: str, *, line: int = 1) -> dict[str, Any]:
    """Parse a guard expression written as text into its IR dict.

    Args:
        text: e.g. ``'orders[$i].status == "pending"'``.
        line: the line number to report in errors.

    Returns:
        The IR expression dict.

    Raises:
        BehaviorSyntaxError: with line, column and a hint, when the text does not parse.
    """
    scanner = Scanner(text, line=line)
    expression = read_expression(scanner)
    scanner.expect_end("an expression ends here; join conditions with 'and' / 'or'")
    return expression


def read_expression(scanner: Scanner, depth: int = 0) -> dict[str, Any]:
    """Read one expression from ``scanner``, leaving the cursor after it.

    ``depth`` counts the parentheses and ``not`` already open around it; past
    :data:`jdsl.expr.MAX_EXPRESSION_DEPTH` the text is refused (not a RecursionError).
    """
    return _read_chain(scanner, "or", depth)


def _read_chain(scanner: Scanner, operator: str, depth: int) -> dict[str, Any]:
    def read_item() -> dict[str, Any]:
        return _read_chain(scanner, "and", depth) if operator == "or" else _read_not(scanner, depth)

    items = [read_item()]
    while scanner.accept_word(operator):
        items.append(read_item())
    return items[0] if len(items) == 1 else {operator: items}


def _nest(scanner: Scanner, depth: int, start: int) -> int:
    if depth >= MAX_EXPRESSION_DEPTH:
        scanner.fail(
            f"the expression nests deeper than {MAX_EXPRESSION_DEPTH} levels of '(' and 'not'",
            "split the condition over several guard nodes",
            pos=start,
        )
    return depth + 1


def _read_not(scanner: Scanner, depth: int) -> dict[str, Any]:
    start = scanner.pos
    if scanner.accept_word("not"):
        return {"not": _read_not(scanner, _nest(scanner, depth, start))}
    return _read_atom(scanner, depth)


def _read_atom(scanner: Scanner, depth: int) -> dict[str, Any]:
    start = scanner.pos
    if scanner.accept("("):
        inner = read_expression(scanner, _nest(scanner, depth, start))
        scanner.expect(")", "close the parenthesis opened earlier on this line")
        return inner
    if scanner.accept_word("exists"):
        scanner.expect("(", "write exists(path)")
        path = scanner.path()
        scanner.expect(")", "write exists(path)")
        return {"exists": {"ref": path}}
    left = _read_operand(scanner)
    if isinstance(left.get("const"), bool) and not _compared(scanner):
        return left  # the literal true / false
    operator = _read_comparison(scanner)
    return {operator: [left, _read_operand(scanner)]}


def _read_operand(scanner: Scanner) -> dict[str, Any]:
    if scanner.starts_literal() or scanner.peek("'"):
        return {"const": scanner.literal()}
    return {"ref": scanner.path()}


def _compared(scanner: Scanner) -> bool:
    """Whether a comparison (or a lone ``=``, reported by :func:`_read_comparison`) comes next;
    the cursor stays."""
    start = scanner.pos
    found = any(map(scanner.peek, ("=", "!=", "<", ">"))) or any(
        scanner.accept_word(word) for word in _WORDS
    )
    scanner.pos = start
    return found


def _read_comparison(scanner: Scanner) -> str:
    scanner.skip_ws()
    for text, operator in COMPARISONS.items():
        if text in _WORDS:
            if scanner.accept_word(text):
                return operator
        elif scanner.accept(text):
            return operator
    if scanner.peek("="):
        scanner.fail("'=' is not a comparison", "compare with '==' (or '!=')")
    scanner.fail(f"expected a comparison but found {scanner.describe_next()}", _NEEDS_COMPARISON)


def format_expression(expression: Any) -> str:
    """Print an IR expression as guard text, with parentheses only where they are needed.

    Args:
        expression: an IR expression dict.

    Returns:
        Text that :func:`parse_expression` reads back into the same dict (single-item
        ``and``/``or`` lists print as their item).

    Raises:
        ValidationError: when the dict is not a well-formed expression.
    """
    if not isinstance(expression, dict) or len(expression) != 1:
        raise ValidationError([f"expression {expression!r} must be an object with one operator"])
    ((operator, operand),) = expression.items()
    if operator in ("and", "or"):
        return _format_chain(operator, operand)
    if operator == "not":
        return "not " + _format_child(operand, "not")
    if operator == "exists":
        path = operand.get("ref") if isinstance(operand, dict) else operand
        if not isinstance(path, str):
            raise ValidationError([f"exists needs a path, got {operand!r}"])
        return f"exists({format_path(path)})"
    if operator == "const":
        if not isinstance(operand, bool):
            raise ValidationError([f"'const' is true or false, got {operand!r}; compare with =="])
        return format_literal(operand)
    if operator in _SYMBOLS:
        if not isinstance(operand, list) or len(operand) != 2:
            raise ValidationError([f"{operator!r} needs a list of two operands, got {operand!r}"])
        left, right = (_format_operand(item) for item in operand)
        return f"{left} {_SYMBOLS[operator]} {right}"
    raise ValidationError([f"unknown expression operator {operator!r}"])


def _format_chain(operator: str, items: Any) -> str:
    if not isinstance(items, list) or not items:
        raise ValidationError([f"{operator!r} needs a non-empty list of expressions"])
    if len(items) == 1:
        return format_expression(items[0])
    return f" {operator} ".join(_format_child(item, operator) for item in items)


def _format_child(child: Any, parent: str) -> str:
    """Parenthesize a child whose operator binds no tighter than its parent's."""
    child = _unwrap(child)
    text = format_expression(child)
    child_rank = _PRECEDENCE.get(next(iter(child), ""), 4) if isinstance(child, dict) else 4
    parent_rank = _PRECEDENCE[parent]
    if child_rank < parent_rank or (child_rank == parent_rank and parent != "not"):
        return f"({text})"
    return text


def _unwrap(expression: Any) -> Any:
    """A single-item ``and``/``or`` prints as its item."""
    while isinstance(expression, dict) and len(expression) == 1:
        ((operator, items),) = expression.items()
        if operator not in ("and", "or") or not isinstance(items, list) or len(items) != 1:
            break
        expression = items[0]
    return expression


def _format_operand(operand: Any) -> str:
    if isinstance(operand, dict) and set(operand) == {"ref"}:
        return format_path(operand["ref"])
    if isinstance(operand, dict) and set(operand) == {"const"}:
        return format_literal(operand["const"])
    return format_literal(operand)
