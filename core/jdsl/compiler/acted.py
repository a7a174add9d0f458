"""The objects a call acts on, and equal values other objects only happen to hold (issue 24,
"lineage that means it").

A call acts on an object when one of its id arguments is that object's own id:
``update_reservation_flights(reservation_id="XEHM4B", ...)`` acts on the details read of
reservation XEHM4B (``reservation.reservation_id``), never on another reservation that merely
holds a field equal to another argument (every reservation of the user in economy). Among the
exact sources of an argument (:func:`jdsl.compiler.arguments.rank_sources`) a field of an
acted-on object wins, and a field of another object whose counterparts in the acted-on object
hold other values is a coincidence, never a ref: the new cabin of a basic-economy reservation
equal to another reservation's cabin is what the user asked for, not that reservation's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from jdsl.compiler.normalized import NormStep
from jdsl.errors import ValidationError
from jdsl.expr import parse_path

__all__ = ["acted_on", "coincides", "names_object"]


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def names_object(argument: str, field: str) -> bool:
    """Whether an argument equal to an object's ``field`` names that object: the field is the
    object's own id, spelled like the argument (``reservation_id``) or ``id``.

    >>> names_object("reservation_id", "reservation_id"), names_object("order_id", "id")
    (True, True)
    >>> names_object("cabin", "cabin"), names_object("payment_id", "amount")
    (False, False)
    """
    if not argument.endswith("id"):
        return False
    return field == argument or field == "id"


def acted_on(argument: str, step: NormStep) -> set[str]:
    """The objects the call acts on: the top-level keys whose own id another id argument of
    the call is (``reservation.reservation_id`` for ``reservation_id``); never a key that
    merely holds a field equal to another argument (two reservations both in economy)."""
    found: set[str] = set()
    for other, paths in step.arg_sources.items():
        if other == argument:
            continue
        for path in paths:
            top, _, field = path.partition(".")
            if field and "[" not in top and names_object(other, field):
                found.add(top)
    return found


def coincides(path: str, value: Any, acted: set[str], state: dict[str, Any]) -> bool:
    """Whether ``path`` is a field of an object the call does not act on whose counterparts in
    an object it acts on hold other values (``other.cabin`` is economy, the reservation
    updated is basic economy; a list position stands for any element: none of its payments
    was made with that card): an equal value another object happens to hold. A top-level
    key (a model output) is no object's field.

    >>> coincides("other.cabin", "economy", {"res"}, {"res": {"cabin": "basic_economy"}})
    True
    >>> coincides("other.cabin", "economy", {"res"}, {"res": {"cabin": "economy"}})
    False
    >>> coincides("other.paid[1].id", "c1", {"res"}, {"res": {"paid": [{"id": "c2"}]}})
    True
    >>> coincides("reason", "no longer needed", {"order"}, {"order": {"status": "pending"}})
    False
    """
    if not acted:
        return False
    try:
        steps = parse_path(path)
    except ValidationError:
        return False
    if steps[0][1] in acted:
        return False
    if any(kind == "var" for kind, _ in steps):
        return False
    rest = [arg for _, arg in steps[1:]]
    if not rest:
        return False  # a top-level key (a model output), no object's field
    for key in acted:
        held = [_key(v) for v in _values_at(state.get(key), rest)]
        if held and _key(value) not in held:
            return True
    return False


def _values_at(value: Any, steps: Sequence[Any]) -> list[Any]:
    """The values under ``steps`` in ``value``, any element of a list where a step is an index
    (``payment_history[0].payment_id``: the payment id of each payment).

    >>> _values_at({"h": [{"p": "a"}, {"p": "b"}, {}]}, ["h", 0, "p"])
    ['a', 'b']
    """
    found = [value]
    for step in steps:
        nxt: list[Any] = []
        for item in found:
            if isinstance(step, int) and isinstance(item, list):
                nxt.extend(item)
            elif isinstance(step, str) and isinstance(item, dict) and step in item:
                nxt.append(item[step])
        found = nxt
    return found
