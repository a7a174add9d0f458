"""What each node kind looks like in behavior text: head words, attributes, child rules.

One table, shared by the parser and the formatter, so the two cannot drift apart
(docs/design.md §2 table, "text form" column).
"""

from __future__ import annotations

from dataclasses import dataclass

from jdsl.ir.nodes import MAX_REPEAT
from jdsl.tree.decorators import MAX_TIMEOUT_SECONDS

__all__ = [
    "ATTRIBUTES",
    "COMPOSITES",
    "DECORATORS",
    "FORMS",
    "HEAD_WORDS",
    "INSTRUCTED",
    "LEAVES",
    "TEXT_WORDS",
    "Attribute",
    "attributes_for",
]

HEAD_WORDS: dict[str, str] = {
    "root": "root",
    "seq": "sequence",
    "sequence": "sequence",
    "sel": "selector",
    "selector": "selector",
    "act": "action",
    "action": "action",
    "predict": "predict",
    "react": "react",
    "check": "check",
    "guard": "guard",
    "guard_call": "guard_call",
    "repeat": "repeat",
    "for_each": "for_each",
    "invert": "invert",
    "optional": "optional",
    "oneshot": "oneshot",
    "timeout": "timeout",
}
"""Head word -> node kind; long forms (``sequence``, ``action``) are accepted too."""

TEXT_WORDS: dict[str, str] = {
    kind: min((w for w, k in HEAD_WORDS.items() if k == kind), key=len)
    for kind in dict.fromkeys(HEAD_WORDS.values())
}
"""Node kind -> the canonical head word that ``format_behavior`` prints."""

FORMS: dict[str, str] = {
    "root": 'root NAME [model="id"] [system="..."]',
    "sequence": "seq (one or more children indented under it)",
    "selector": "sel (one or more children indented under it)",
    "action": 'act TOOL(a=path, b="lit") [-> key] [on_error=fail]',
    "predict": 'predict "a, b -> c: int" [examples=[{"input": {...}, "output": {...}}]] '
    '[input_sources={"a": "path"}]',
    "react": 'react "q -> answer" tools=[t1, t2] [max_steps=6]',
    "check": 'check key == "value"',
    "guard": 'guard orders[$i].status == "pending"',
    "guard_call": "guard_call PRED(a=path)",
    "repeat": "repeat max=3 (one child, then an optional until:)",
    "for_each": "for_each ITEM in PATH [collect=KEY -> STORE] [max=N] (one child)",
    "invert": "invert (one child)",
    "optional": "optional (one child)",
    "oneshot": "oneshot (one child)",
    "timeout": "timeout seconds=30 (one child)",
}
"""Node kind -> how its line is written (every kind also takes ``id=`` and ``context=``)."""

COMPOSITES = frozenset({"sequence", "selector"})
DECORATORS = frozenset({"root", "invert", "optional", "oneshot", "timeout", "repeat", "for_each"})
LEAVES = frozenset({"action", "predict", "react", "check", "guard", "guard_call"})
INSTRUCTED = frozenset({"predict", "react"})
"""Kinds that take ``| `` instruction lines."""


@dataclass(frozen=True)
class Attribute:
    """One ``name=value`` attribute.

    Attributes:
        name: the text name (``model``).
        field: the node field it sets (``model_id``).
        value: how the value is written: ``word`` (bare name or string), ``text`` (the
            same, printed as a string), ``string``,
            ``int``, ``number``, ``names`` (``[a, b]``), ``json`` (any JSON literal) or
            ``collect`` (for_each's ``collect=KEY -> STORE``, which sets ``collect`` and
            ``store``).
        default: a value ``format_behavior`` leaves out (None: always printed when set).
        low: numbers must be greater than this.
        high: numbers must be at most this.
    """

    name: str
    field: str
    value: str
    default: object = None
    low: float = 0
    high: float = float("inf")


_COMMON = (Attribute("id", "id", "word"), Attribute("context", "context", "string"))

ATTRIBUTES: dict[str, tuple[Attribute, ...]] = {
    "root": (Attribute("model", "model_id", "text"), Attribute("system", "system", "string")),
    "action": (Attribute("on_error", "on_error", "word"),),
    "predict": (
        Attribute("examples", "examples", "json", default=[]),
        Attribute("input_sources", "input_sources", "json", default={}),
    ),
    "react": (
        Attribute("tools", "tools", "names"),
        Attribute("max_steps", "max_steps", "int", default=6),
    ),
    "repeat": (Attribute("max", "max", "int", high=MAX_REPEAT),),
    "for_each": (
        Attribute("collect", "collect", "collect"),
        Attribute("max", "max", "int", default=MAX_REPEAT, high=MAX_REPEAT),
    ),
    "timeout": (Attribute("seconds", "seconds", "number", high=MAX_TIMEOUT_SECONDS),),
}
"""Kind-specific attributes in canonical print order; every kind also takes id= and context=."""


def attributes_for(kind: str) -> tuple[Attribute, ...]:
    """The attributes a node kind accepts, in canonical print order."""
    return ATTRIBUTES.get(kind, ()) + _COMMON
