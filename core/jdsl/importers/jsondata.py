"""The one way importers read JSON text: strict, bounded, and failing only with ``ValueError``.

Python's ``json`` reads more than jdsl can carry, so every foreign document is checked as it is
read: ``NaN`` / ``Infinity`` and numbers that overflow a double (``1e400``) are refused, as are
lone surrogates (``"\\ud800"``: no UTF-8 file or trace line can hold one), an int over Python's
digit limit, and nesting deeper than :data:`MAX_DEPTH` (every later step of an import, from the
pydantic models to the trace writer, walks values recursively). Ints keep every digit.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jdsl.ir.nodes import finite_float, refuse_constant

__all__ = ["MAX_DEPTH", "JsonDataError", "check_value", "loads"]

MAX_DEPTH = 100
"""The deepest nesting of lists and objects an imported value may have."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonDataError(ValueError):
    """JSON text an importer cannot read (the message says why: syntax, depth, a surrogate).

    Attributes:
        where: ``"line 3 col 7"`` for a syntax error, else "".
    """

    def __init__(self, message: str, where: str = "") -> None:
        self.where = where
        super().__init__(message)


def loads(text: str | bytes) -> Any:
    """The value of JSON ``text``.

    Raises:
        JsonDataError: not JSON (names the line and column), or a value jdsl cannot carry (see
            the module doc).
    """
    try:
        value = json.loads(text, parse_constant=refuse_constant, parse_float=finite_float)
    except json.JSONDecodeError as exc:
        raise JsonDataError(exc.msg, f"line {exc.lineno} col {exc.colno}") from None
    except RecursionError:
        raise JsonDataError(_too_deep(MAX_DEPTH)) from None
    except ValueError as exc:  # a refused number, an int over Python's digit limit
        raise JsonDataError(str(exc).split("; use sys.")[0]) from None
    check_value(value)
    return value


def _too_deep(limit: int) -> str:
    return f"nested more than {limit} lists or objects deep; flatten the data"


def check_value(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`JsonDataError` when ``value`` nests lists or dicts deeper than ``limit``
    or holds a string (or key) with a lone surrogate; iterative, so any depth is reported,
    never a ``RecursionError``."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                raise JsonDataError(
                    "a string holds a lone surrogate (half of a UTF-16 pair, e.g. \\ud800); "
                    "write the whole character or drop it"
                )
            continue
        if isinstance(item, dict):
            children: list[Any] = [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        if depth >= limit:
            raise JsonDataError(_too_deep(limit))
        stack.extend((child, depth + 1) for child in children)
