"""Payloads the runtime makes once per tree and gives to the events of every run.

Most of what a traced run records is the same run after run: a node's ``node.enter``, the
node id and tool name of a call, the tree's IR in ``episode.started``. The runtime keeps these
with the tree, encoded as canonical JSON (:func:`~jdsl.trace.canonical.event_json`), and
passes them to a sink's recorder as

* a :class:`JsonText` (the whole payload), or
* a :class:`Filled` :class:`PayloadTemplate` (a fixed part plus one varying value, such as a
  call's ``arguments``).

A trace file writes the text as it is and screens the fixed part for secrets once per
redactor (:attr:`JsonText.screened`); a list sink keeps the object and makes plain data when
its events are read. :func:`thaw` turns any recorded payload into JSON data the event owns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from jdsl.trace.canonical import encoded, event_json

__all__ = ["Filled", "JsonText", "PayloadTemplate", "thaw"]


class JsonText:
    """JSON data held as its canonical text; immutable. Make one with :meth:`of`.

    Attributes:
        text: the canonical JSON (``event_json`` of the data).
        screened: ``{screen fingerprint: may redact}``, filled by
            :meth:`jdsl.trace.screen.RedactionScreen.may_redact_text`.
    """

    __slots__ = ("_loads", "screened", "text")
    text: str
    screened: dict[str, bool]
    _loads: Callable[[str], Any]

    def __init__(self, text: str, *, exact: bool = False) -> None:
        """``exact``: orjson wrote ``text`` (so it reads it back exactly; else ``json``
        reads it, keeping ints beyond 64 bits)."""
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "screened", {})
        object.__setattr__(self, "_loads", orjson.loads if exact else json.loads)

    @classmethod
    def of(cls, value: Any) -> JsonText:
        """The JsonText of JSON data ``value``."""
        text, exact = encoded(value)
        return cls(text, exact=exact)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("JsonText is immutable")

    def __copy__(self) -> JsonText:
        return self  # immutable: a copy of a traced tree shares its texts

    def __deepcopy__(self, memo: dict[int, Any]) -> JsonText:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_json_text, (self.text, self._loads is orjson.loads))

    def data(self) -> Any:
        """A fresh copy of the data."""
        return self._loads(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonText) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"JsonText({len(self.text)} chars)"


def _json_text(text: str, exact: bool) -> JsonText:
    """Unpickles a :class:`JsonText` (its screen answers are not kept)."""
    return JsonText(text, exact=exact)


class PayloadTemplate:
    """Payloads ``{**fixed, slot: value}`` whose fixed part is encoded once.

    Args:
        fixed: JSON data without ``slot`` (not mutated afterwards).
        slot: the key of the varying value.
        empty: the slot's most common value (a call without arguments: ``{}``).

    Attributes:
        slot: as given.
        empty: the payload with ``empty`` in the slot, as a :class:`JsonText`.
        stand_in: the payload with ``slot`` null: what is screened for the fixed part, and
            what :meth:`Filled.data` copies.
    """

    __slots__ = ("_exact", "_head", "_tail", "empty", "slot", "stand_in")

    def __init__(self, fixed: dict[str, Any], slot: str, empty: Any = None) -> None:
        self.slot = slot
        self.empty = JsonText.of({**fixed, slot: empty})
        self.stand_in = JsonText.of({**fixed, slot: None})
        # Keys are written sorted, so the payload is the keys before ``slot``, the slot and
        # the keys after it: each half encoded as an object of its own, braces trimmed.
        before, exact = encoded({k: v for k, v in fixed.items() if k < slot})
        after, exact_after = encoded({k: v for k, v in fixed.items() if k > slot})
        self._head = (before[:-1] + "," if len(before) > 2 else "{") + event_json(slot) + ":"
        self._tail = "," + after[1:] if len(after) > 2 else "}"
        self._exact = exact if exact == exact_after else None

    def fill(self, value: Any) -> Filled:
        """The payload with ``slot`` set to ``value`` (JSON data the payload now owns)."""
        return Filled(self, value)

    def text(self, value: Any) -> tuple[str, str]:
        """``(event_json of the payload, event_json of value)`` for ``value`` in the slot.

        The parts are joined only when orjson wrote both or neither (their number formats
        differ), so the text is always what ``event_json`` of the whole payload gives.
        """
        value_text, exact = encoded(value)
        if exact is self._exact:
            return self._head + value_text + self._tail, value_text
        return event_json({**self.stand_in.data(), self.slot: value}), value_text


class Filled:
    """A :class:`PayloadTemplate` with its slot filled: ``template``, ``value``."""

    __slots__ = ("template", "value")

    def __init__(self, template: PayloadTemplate, value: Any) -> None:
        self.template, self.value = template, value

    def data(self) -> dict[str, Any]:
        """The payload as JSON data (a fresh fixed part; ``value`` itself)."""
        data: dict[str, Any] = self.template.stand_in.data()
        data[self.template.slot] = self.value
        return data


def thaw(payload: Any) -> Any:
    """A recorded payload as JSON data: a :class:`JsonText` or :class:`Filled` made into
    fresh data, a dict as it is."""
    kind = type(payload)
    return payload.data() if kind is JsonText or kind is Filled else payload
