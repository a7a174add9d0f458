"""The retail read and generic tools, written from ``tau_retail/TOOLS.md`` (tau-bench v1).

Each retail tool (here and in :mod:`.writes`) is ``fn(db, **arguments) -> str`` over a :class:`~jdsl.envs.tau_retail.store.RetailState`
and runs inside one state transaction (see :meth:`RetailEnv.step`). A failed check raises
:class:`RetailFailure` whose message is the benchmark's text without the ``"Error: "`` prefix;
checks run in the order TOOLS.md lists them and every check runs before the first edit.
"""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from jdsl.envs.tau_retail.store import RetailState

__all__ = [
    "READ_TOOLS",
    "TERMINAL_TOOLS",
    "RetailFailure",
    "evaluate_arithmetic",
]

TERMINAL_TOOLS = frozenset({"transfer_to_human_agents"})
_ARITHMETIC_CHARS = frozenset("0123456789+-*/(). ")
_MAX_EXPONENT = 1000


class RetailFailure(Exception):
    """A tool check that failed; ``str(failure)`` is the text after ``"Error: "``."""


# -- arithmetic ----------------------------------------------------------------------------------

_BINARY: Mapping[type, Callable[[Any, Any], Any]] = MappingProxyType(
    {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod,
        ast.Pow: operator.pow,
    }
)
_UNARY: Mapping[type, Callable[[Any], Any]] = MappingProxyType(
    {ast.UAdd: operator.pos, ast.USub: operator.neg}
)


def evaluate_arithmetic(expression: str) -> float | int:
    """Evaluate ``+ - * / // % **`` arithmetic on number literals, as Python would.

    Raises:
        SyntaxError: text that is not one arithmetic expression.
        ZeroDivisionError / ArithmeticError: what Python raises for the same expression.
        ValueError: anything but numbers and arithmetic, or an exponent above 1000.
    """
    return _evaluate(ast.parse(expression.strip(), filename="<string>", mode="eval").body)


def _evaluate(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise ValueError(f"exponent {right} is too large (at most {_MAX_EXPONENT})")
        return _BINARY[type(node.op)](left, right)
    raise ValueError(f"unsupported expression element {type(node).__name__}")


# -- read tools ----------------------------------------------------------------------------------


def find_user_id_by_email(db: RetailState, email: str) -> str:
    wanted = email.lower()
    for user_id in db.ids("users"):
        if db.read("users", user_id)["email"].lower() == wanted:
            return user_id
    raise RetailFailure("user not found")


def find_user_id_by_name_zip(db: RetailState, first_name: str, last_name: str, zip: str) -> str:
    first, last = first_name.lower(), last_name.lower()
    for user_id in db.ids("users"):
        user = db.read("users", user_id)
        name = user["name"]
        if (name["first_name"].lower(), name["last_name"].lower()) == (first, last) and user[
            "address"
        ]["zip"] == zip:
            return user_id
    raise RetailFailure("user not found")


def _record_text(db: RetailState, table: str, key: str) -> str:
    if not db.has(table, key):
        raise RetailFailure(f"{table[:-1]} not found")
    return db.text(table, key)


def get_user_details(db: RetailState, user_id: str) -> str:
    return _record_text(db, "users", user_id)


def get_order_details(db: RetailState, order_id: str) -> str:
    return _record_text(db, "orders", order_id)


def get_product_details(db: RetailState, product_id: str) -> str:
    return _record_text(db, "products", product_id)


def list_all_product_types(db: RetailState) -> str:
    names = {db.read("products", key)["name"]: key for key in db.ids("products")}
    return json.dumps(dict(sorted(names.items())))


def calculate(db: RetailState, expression: str) -> str:
    if not set(expression) <= _ARITHMETIC_CHARS:
        raise RetailFailure("invalid characters in expression")
    return str(round(float(evaluate_arithmetic(expression)), 2))


def think(db: RetailState, thought: str) -> str:
    return ""


def transfer_to_human_agents(db: RetailState, summary: str) -> str:
    return "Transfer successful"


def tool_table(*tools: Callable[..., str]) -> Mapping[str, Callable[..., str]]:
    """The tools by name (read-only)."""
    return MappingProxyType({fn.__name__: fn for fn in tools})


READ_TOOLS = tool_table(
    calculate,
    find_user_id_by_email,
    find_user_id_by_name_zip,
    get_order_details,
    get_product_details,
    get_user_details,
    list_all_product_types,
    think,
    transfer_to_human_agents,
)
