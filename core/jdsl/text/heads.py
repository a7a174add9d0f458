"""Node head lines -> IR fields: ``act TOOL(a=path, b="lit") -> key id=x`` and its kin.

Each reader consumes the part of the line after the head word and returns the node's own
fields as an IR dict (children are attached by :mod:`jdsl.text.parser`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any, NoReturn

from jdsl.errors import SignatureError
from jdsl.signature import Signature
from jdsl.text.expression import read_expression
from jdsl.text.scanner import IDENTIFIER, KEYWORDS, NAME_TEXT, WORD, Scanner
from jdsl.text.syntax import HEAD_WORDS, TEXT_WORDS, Attribute, attributes_for

__all__ = ["read_head"]


def read_head(scanner: Scanner) -> dict[str, Any]:
    """Read a node line (head word, operands, attributes) into an IR dict without children.

    Raises:
        BehaviorSyntaxError: unknown node kind, malformed operands or attributes.
    """
    start = scanner.pos
    word = scanner.match(IDENTIFIER)
    if word is None or word not in HEAD_WORDS:
        _unknown_kind(scanner, word, start)
    kind = HEAD_WORDS[word]
    node: dict[str, Any] = {"kind": kind}
    reader = _READERS.get(kind)
    if reader is not None:
        node.update(reader(scanner))
    node.update(_read_attributes(scanner, kind))
    return node


def _unknown_kind(scanner: Scanner, word: str | None, start: int) -> NoReturn:
    found = word if word is not None else scanner.describe_next()
    close = difflib.get_close_matches(word or "", HEAD_WORDS, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    hint += "a line starts with one of: " + ", ".join(sorted(TEXT_WORDS.values()))
    scanner.fail(f"unknown node kind {found!r}", hint, pos=start)


def _read_root(scanner: Scanner) -> dict[str, Any]:
    return {"name": _read_word(scanner, "the behavior's name", "root my_behavior")}


def _read_action(scanner: Scanner) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "tool": scanner.name("a tool name", 'write act TOOL(a=path, b="lit")'),
        "args": _read_args(scanner),
    }
    if scanner.accept("->"):
        fields["store"] = _read_word(scanner, "a blackboard key to store into", "-> key")
    return fields


def _read_guard_call(scanner: Scanner) -> dict[str, Any]:
    predicate = scanner.name("a predicate name", "write guard_call PRED(a=path)")
    return {"predicate": predicate, "args": _read_args(scanner)}


def _read_signature(scanner: Scanner) -> dict[str, Any]:
    scanner.skip_ws()
    start = scanner.pos
    text = scanner.string("the signature")
    if "->" not in text:
        scanner.fail(
            f"signature {text!r} has no '->'",
            'separate inputs from outputs with ->, e.g. "request, orders -> index: int"',
            pos=start,
        )
    try:
        Signature.parse(text)
    except SignatureError as exc:
        scanner.fail(str(exc), 'a signature looks like "a, b: list[str] -> c: int"', pos=start)
    return {"signature": text}


def _read_check(scanner: Scanner) -> dict[str, Any]:
    key = scanner.path()
    scanner.expect("==", 'write check key == "value"')
    if not scanner.starts_literal():
        scanner.fail(
            f"check compares with a constant but found {scanner.describe_next()}",
            'write a JSON literal after ==, e.g. check status == "done"; use guard for paths',
        )
    return {"key": key, "equals": scanner.literal()}


_FOR_EACH_FORM = "write for_each ITEM in PATH, e.g. for_each order_id in user.orders"


def _read_for_each(scanner: Scanner) -> dict[str, Any]:
    """``ITEM in PATH``: the loop variable (an identifier) and the list's path."""
    item = scanner.name("the loop's item name (a name such as order_id)", _FOR_EACH_FORM,
                        IDENTIFIER)  # fmt: skip
    if item in KEYWORDS:
        scanner.fail(
            f"{item!r} is a reserved word and cannot name the item",
            "name the item like a blackboard key, e.g. for_each order_id in user.orders",
            pos=scanner.pos - len(item),
        )
    if not scanner.accept_word("in"):
        scanner.fail(f"expected 'in' after the item {item!r} but found {scanner.describe_next()}",
                     _FOR_EACH_FORM)  # fmt: skip
    if scanner.at_end() or scanner.peek("collect=") or scanner.peek("max="):
        scanner.fail(f"expected the path of a list after 'in' but found {scanner.describe_next()}",
                     _FOR_EACH_FORM)  # fmt: skip
    return {"item": item, "items": scanner.path()}


def _read_collect(scanner: Scanner) -> tuple[str, str]:
    """``KEY -> STORE`` after ``collect=``."""
    hint = "write collect=KEY -> STORE, e.g. collect=order -> orders"
    if scanner.at_end():
        scanner.fail("collect= needs the key each pass writes", hint)
    collect = scanner.path()
    scanner.expect("->", hint)
    return collect, scanner.name("the key to store the collected list under", hint, IDENTIFIER)


def _read_guard(scanner: Scanner) -> dict[str, Any]:
    return {"expression": read_expression(scanner)}


_READERS: dict[str, Callable[[Scanner], dict[str, Any]]] = {
    "root": _read_root,
    "action": _read_action,
    "guard_call": _read_guard_call,
    "predict": _read_signature,
    "react": _read_signature,
    "check": _read_check,
    "guard": _read_guard,
    "for_each": _read_for_each,
}


def _read_args(scanner: Scanner) -> dict[str, Any]:
    """Read ``(a=path, b="lit")``: a bare path is a ref, a JSON literal a constant."""
    scanner.expect("(", 'arguments follow the name in parentheses: NAME(a=path, b="lit")')
    args: dict[str, Any] = {}
    while not scanner.accept(")"):
        if scanner.at_end():
            scanner.fail("unclosed argument list", "close the arguments with ')'")
        if args:
            scanner.expect(",", "separate arguments with commas")
        scanner.skip_ws()
        start = scanner.pos
        name = scanner.match(IDENTIFIER)
        if name is None or not scanner.accept("="):
            scanner.fail(
                "arguments are keyword only",
                "write name=value, where value is a path (customer.id) or a JSON literal",
                pos=start if name else None,
            )
        if name in args:
            scanner.fail(f"argument {name!r} is given twice", "keep one of them", pos=start)
        if scanner.starts_literal() or scanner.peek("'"):
            args[name] = {"const": scanner.literal()}
        else:
            args[name] = {"ref": scanner.path()}
    return args


def _read_attributes(scanner: Scanner, kind: str) -> dict[str, Any]:
    allowed = {attribute.name: attribute for attribute in attributes_for(kind)}
    fields: dict[str, Any] = {}
    seen: set[str] = set()
    while not scanner.at_end():
        start = scanner.pos
        name = scanner.match(IDENTIFIER)
        if name is None or not scanner.peek("=") or scanner.peek("=="):
            scanner.pos = start  # describe the stray word itself, not what follows it
            scanner.fail(
                f"unexpected {scanner.describe_next()}", _attribute_hint(kind, allowed), pos=start
            )
        if name not in allowed:
            scanner.fail(
                f"unknown attribute {name!r} for {TEXT_WORDS[kind]}",
                _attribute_hint(kind, allowed),
                pos=start,
            )
        if name in seen:
            scanner.fail(f"attribute {name!r} is given twice", "keep one of them", pos=start)
        seen.add(name)
        scanner.expect("=")
        attribute = allowed[name]
        if attribute.value == "collect":
            fields["collect"], fields["store"] = _read_collect(scanner)
            continue
        fields[attribute.field] = _read_value(scanner, attribute)
    return fields


def _attribute_hint(kind: str, allowed: dict[str, Attribute]) -> str:
    names = ", ".join(f"{name}=" for name in allowed)
    return f"after the head, {TEXT_WORDS[kind]} takes only the attributes {names}"


def _read_value(scanner: Scanner, attribute: Attribute) -> Any:
    scanner.skip_ws()
    start = scanner.pos
    if attribute.value in ("word", "text"):
        return _read_word(scanner, f"a value for {attribute.name}=", f"{attribute.name}=name")
    if attribute.value == "string":
        return scanner.string(f"the {attribute.name}")
    if attribute.value == "names":
        return _read_names(scanner, attribute.name)
    value: Any = scanner.literal() if scanner.starts_literal() else None
    if attribute.value in ("int", "number"):
        numeric = int if attribute.value == "int" else (int, float)
        ok = isinstance(value, numeric) and not isinstance(value, bool)
        ok = ok and attribute.low < value <= attribute.high  # exact: no float() of a huge int
    else:
        ok = isinstance(value, list if attribute.name == "examples" else dict)
    if not ok:
        scanner.fail(
            f"{attribute.name}= needs {_value_words(attribute)}",
            f"write e.g. {attribute.name}={_VALUE_EXAMPLES[attribute.name]}",
            pos=start,
        )
    return value


def _value_words(attribute: Attribute) -> str:
    if attribute.value == "json":
        return "a JSON list" if attribute.name == "examples" else "a JSON object"
    noun = "a whole number" if attribute.value == "int" else "a number"
    upper = "" if attribute.high == float("inf") else f" and <= {attribute.high:g}"
    return f"{noun} > {attribute.low:g}{upper}"


_VALUE_EXAMPLES = {
    "max": "3",
    "max_steps": "6",
    "seconds": "30",
    "examples": '[{"input": {"q": "..."}, "output": {"a": "..."}}]',
    "input_sources": '{"orders": "customer.orders"}',
}


def _read_word(scanner: Scanner, what: str, example: str) -> str:
    if scanner.peek('"'):
        return scanner.string(what)
    return scanner.name(what, f"write {example}", WORD)


def _read_names(scanner: Scanner, attribute: str) -> list[str]:
    hint = f"write {attribute}=[name1, name2]"
    scanner.expect("[", hint)
    names: list[str] = []
    while not scanner.accept("]"):
        if names:
            scanner.expect(",", hint)
        if scanner.peek('"'):
            names.append(scanner.string("a name"))
        else:
            names.append(scanner.name("a name", hint, NAME_TEXT))
    return names
