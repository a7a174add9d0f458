"""A cursor over one line of behavior text, with the lexical rules every part shares.

The behavior text grammar (docs/design.md §3) is small enough that a hand-written scanner reads it
directly: each parser asks for the token it expects next, so every error knows its exact line
and column. Names, paths, JSON literals and the ``#`` comment rule live here.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from jdsl.errors import BehaviorSyntaxError
from jdsl.expr import MAX_INDEX_DIGITS
from jdsl.ir.nodes import (
    MAX_INT_DIGITS,
    MAX_IR_NESTING,
    finite_float,
    nesting_problem,
    refuse_constant,
)

__all__ = [
    "IDENTIFIER",
    "KEYWORDS",
    "MAX_INT_DIGITS",
    "MAX_LITERAL_DEPTH",
    "NAME_TEXT",
    "WORD",
    "Scanner",
    "format_literal",
    "format_path",
    "format_word",
    "is_path_text",
]

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NAME_TEXT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
"""Tool and predicate names: host names (``get_order``) and logical ids (``retail.get_order``)."""
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
"""Bare attribute values, node ids, root names and store keys (never mistaken for a literal)."""

KEYWORDS = frozenset({"and", "or", "not", "in", "exists", "true", "false", "null"})
"""Words that can never start a bare path (they are operators or JSON literals)."""

MAX_LITERAL_DEPTH = MAX_IR_NESTING
"""The deepest nesting of lists and objects a JSON literal in behavior text may have: the IR's
own limit, so every IR constant has a text form."""

_INT = re.compile(r"-?\d+")
_WS = re.compile(r"[ \t]*")
_LITERAL_START = re.compile(r'["\[{\-0-9]|true\b|false\b|null\b')


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"a whole number has more than {MAX_INT_DIGITS} digits")
    return int(text)


_DECODER = json.JSONDecoder(
    parse_float=finite_float, parse_int=_bounded_int, parse_constant=refuse_constant
)
"""Reads JSON literals; a number JSON cannot round-trip (inf, nan, 1e400, an int over
:data:`MAX_INT_DIGITS` digits) raises ValueError."""


_LITERAL_HINT = 'constants are JSON literals: "text", 3, 2.5, true, false, null, [..], {..}'


class Scanner:
    """Reads tokens from one source line, raising :class:`BehaviorSyntaxError` on mismatch.

    Args:
        text: the line's text (without its newline).
        line: the 1-based line number, for error messages.
        pos: the 0-based offset to start reading at.
    """

    def __init__(self, text: str, line: int = 1, pos: int = 0) -> None:
        self.text = text
        self.line = line
        self.pos = pos

    # -- errors -------------------------------------------------------------------------------
    def fail(self, message: str, hint: str = "", *, pos: int | None = None) -> NoReturn:
        """Raise a :class:`BehaviorSyntaxError` at ``pos`` (default: the cursor)."""
        col = (self.pos if pos is None else pos) + 1
        raise BehaviorSyntaxError(
            message, line=self.line, col=col, hint=hint, source_line=self.text
        )

    # -- cursor -------------------------------------------------------------------------------
    def skip_ws(self) -> None:
        """Skip blanks; a ``#`` outside a string ends the line (a comment)."""
        self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]
        if self.text.startswith("#", self.pos):
            self.pos = len(self.text)

    def at_end(self) -> bool:
        """True when only blanks or a comment remain."""
        self.skip_ws()
        return self.pos >= len(self.text)

    def peek(self, literal: str) -> bool:
        """True when the next token starts with ``literal`` (blanks skipped, nothing consumed)."""
        self.skip_ws()
        return self.text.startswith(literal, self.pos)

    def accept(self, literal: str) -> bool:
        """Consume ``literal`` when it comes next."""
        if self.peek(literal):
            self.pos += len(literal)
            return True
        return False

    def refuse(self, literal: str, message: str, hint: str) -> None:
        """Fail with ``message`` and ``hint`` when ``literal`` comes next (a common mistake)."""
        if self.peek(literal):
            self.fail(message, hint)

    def expect(self, literal: str, hint: str = "") -> None:
        """Consume ``literal`` or fail naming what was found instead."""
        if not self.accept(literal):
            self.fail(f"expected {literal!r} but found {self.describe_next()}", hint)

    def accept_word(self, word: str) -> bool:
        """Consume a keyword such as ``and`` only when it is a whole word."""
        self.skip_ws()
        match = IDENTIFIER.match(self.text, self.pos)
        if match and match.group() == word:
            self.pos = match.end()
            return True
        return False

    def match(self, pattern: re.Pattern[str]) -> str | None:
        """Consume and return the text matching ``pattern`` at the cursor, if any."""
        self.skip_ws()
        found = pattern.match(self.text, self.pos)
        if not found:
            return None
        self.pos = found.end()
        return found.group()

    def describe_next(self) -> str:
        """A short description of what comes next, for error messages."""
        self.skip_ws()
        if self.pos >= len(self.text):
            return "the end of the line"
        rest = self.text[self.pos :]
        word = re.match(r"\S+", rest)
        return repr(word.group()[:20] if word else rest[:20])

    def expect_end(self, hint: str = "") -> None:
        """Fail unless only blanks or a comment remain."""
        if not self.at_end():
            self.fail(f"unexpected {self.describe_next()}", hint)

    # -- tokens -------------------------------------------------------------------------------
    def name(self, what: str, hint: str = "", pattern: re.Pattern[str] = NAME_TEXT) -> str:
        """Read a name (tool, predicate, id); fail with ``what`` in the message."""
        found = self.match(pattern)
        if found is None:
            self.fail(f"expected {what} but found {self.describe_next()}", hint)
        return found

    def starts_literal(self) -> bool:
        """True when a JSON literal comes next (string, number, array, object, true/false/null)."""
        self.skip_ws()
        return bool(_LITERAL_START.match(self.text, self.pos))

    def literal(self) -> Any:
        """Read one JSON literal; strings are double-quoted JSON strings."""
        self.refuse(
            "'", "single-quoted strings are not allowed", 'use double quotes, as in JSON: "text"'
        )
        start = self.pos
        try:
            value, end = _DECODER.raw_decode(self.text, start)
        except json.JSONDecodeError as exc:
            self._literal_error(exc, start)
        except ValueError as exc:  # a number JSON cannot round-trip
            self.fail(f"malformed literal: {exc}", _LITERAL_HINT, pos=start)
        except RecursionError:
            value, end = None, -1
        if end < 0 or nesting_problem(value, MAX_LITERAL_DEPTH):
            self.fail(
                f"the literal nests deeper than {MAX_LITERAL_DEPTH} levels",
                "flatten the value, or pass it in as a run input",
                pos=start,
            )
        self.pos = end
        return value

    def _literal_error(self, exc: json.JSONDecodeError, start: int) -> NoReturn:
        if self.text.startswith('"', start) and "Unterminated string" in exc.msg:
            self.fail(
                "unterminated string",
                "close the string with a double quote on the same line; write a line break as \\n",
                pos=start,
            )
        self.fail(f"malformed literal: {exc.msg}", _LITERAL_HINT, pos=exc.pos)

    def string(self, what: str) -> str:
        """Read a double-quoted JSON string."""
        if not self.peek('"'):
            self.fail(
                f"expected {what} as a double-quoted string but found {self.describe_next()}",
                f'write {what} in double quotes, e.g. "..."',
            )
        value = self.literal()
        assert isinstance(value, str)
        return value

    def path(self) -> str:
        """Read a restricted path (``orders[$i].id``) and return its canonical text.

        Grammar: ``NAME ( .NAME | [INT] | [$NAME] | [*] | ["key"] | ['key'] )*``; ``$name`` only
        inside brackets; a quoted key is kept verbatim (no escapes), as ``jdsl.expr`` reads it.
        """
        self.refuse(
            "$",
            "'$name' may appear only inside brackets",
            "index with the value of a blackboard key as orders[$name]; a bare key needs no $",
        )
        start = self.pos
        head = self.match(IDENTIFIER)
        if head is None:
            self.fail(
                f"expected a path but found {self.describe_next()}",
                "a path looks like orders[$i].id",
            )
        if head in KEYWORDS:
            self.fail(
                f"{head!r} is a reserved word and cannot start a path",
                "rename the blackboard key; and or not in exists true false null are reserved",
                pos=start,
            )
        parts = [head]
        while True:
            if self.text.startswith(".", self.pos):
                self.pos += 1
                parts.append("." + self._segment_name())
            elif self.text.startswith("[", self.pos):
                self.pos += 1
                parts.append(self._bracket())
            elif self.text.startswith("$", self.pos):
                self.fail(
                    "'$name' may appear only inside brackets",
                    "write orders[$name], not orders$name",
                )
            else:
                return "".join(parts)

    def _segment_name(self, after: str = ".") -> str:
        found = IDENTIFIER.match(self.text, self.pos)
        if found is None:
            if after == "$":
                self.fail(
                    f"expected a blackboard key after '$' but found {self.describe_next()}",
                    "index with the value of a key as orders[$name]",
                )
            self.fail("expected a field name after '.'", "a path looks like customer.id")
        self.pos = found.end()
        return found.group()

    def _bracket(self) -> str:
        self.skip_ws()
        if self.text.startswith("$", self.pos):
            self.pos += 1
            inner = "$" + self._segment_name("$")
        elif self.text.startswith("*", self.pos):
            self.pos += 1
            inner = "*"
        elif self.text[self.pos : self.pos + 1] in ("'", '"'):
            inner = self._quoted_key()
        else:
            number = _INT.match(self.text, self.pos)
            if number is None:
                self.fail(
                    f"expected an index inside brackets but found {self.describe_next()}",
                    'write [0], [$name], [*] or ["key"]',
                )
            if len(number.group().lstrip("-")) > MAX_INDEX_DIGITS:
                self.fail(
                    f"an index has at most {MAX_INDEX_DIGITS} digits",
                    "a list index is a small whole number, e.g. [0] or [-1]",
                )
            self.pos = number.end()
            inner = str(int(number.group()))
        self.expect("]", "close the index with ']'")
        return f"[{inner}]"

    def _quoted_key(self) -> str:
        """A dict key in brackets, kept verbatim as :func:`jdsl.expr.parse_path` reads it."""
        quote = self.text[self.pos]
        end = self.text.find(quote, self.pos + 1)
        inner = self.text[self.pos + 1 : end] if end >= 0 else ""
        if end < 0 or "]" in inner or "\n" in inner:
            self.fail(
                "unterminated key in brackets",
                f"close the key with {quote}; a bracketed key cannot contain ']' or escapes",
            )
        self.pos = end + 1
        return quote + inner + quote


def is_path_text(path: str) -> bool:
    """True when ``path`` is written in the canonical text form that :meth:`Scanner.path` reads."""
    scanner = Scanner(path)
    try:
        return scanner.path() == path and scanner.pos == len(path)
    except BehaviorSyntaxError:
        return False


def format_path(path: str) -> str:
    """Print a ref path, failing when it has no text form (a key with spaces, say)."""
    if not is_path_text(path):
        from jdsl.errors import ValidationError

        raise ValidationError(
            [f"path {path!r} has no behavior-text form; paths look like orders[$i].id"]
        )
    return path


def format_literal(value: Any) -> str:
    """Print a JSON literal on one line (``ensure_ascii=False``, sorted keys)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def format_word(value: str) -> str:
    """Print a name bare when it reads back as a name, else as a JSON string."""
    if WORD.fullmatch(value) and value not in KEYWORDS:
        return value
    return format_literal(value)
