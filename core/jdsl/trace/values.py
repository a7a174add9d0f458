"""Turning arbitrary Python values into JSON data for trace payloads.

The runtime passes every payload value through :func:`jsonable` before it emits an event, so a
tool may return a pydantic model, a dataclass, a set or bytes and the trace still serialises
deterministically.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import math
from collections.abc import Mapping
from decimal import Decimal
from enum import Enum
from pathlib import PurePath
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from jdsl.trace.events import canonical_json
from jdsl.trace.shared import Filled, JsonText

__all__ = ["bytes_summary", "is_meaningful", "jsonable"]

_TRIVIAL_NUMBERS = (0, 1, -1)

_BYTES_PREVIEW = 64
_MAX_DEPTH = 64
_PLAIN = frozenset({str, int, bool, type(None)})  # exact types that are already JSON


def is_meaningful(value: Any) -> bool:
    """Whether a traced ``value`` may name something another value came from (an
    identifier-like scalar): the values lineage and provenance match, never ``None``, a bool,
    a one-character string, 0, 1, -1 or NaN.

    >>> [is_meaningful(v) for v in ("#W01", "x", 1, 2, True, None, 2.5, float("nan"), [1])]
    [True, False, False, True, False, False, True, False, False]
    """
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return len(value) >= 2
    if isinstance(value, int):
        return value not in _TRIVIAL_NUMBERS
    if isinstance(value, float):
        return not math.isnan(value) and value not in _TRIVIAL_NUMBERS
    return False


def jsonable(value: Any) -> Any:
    """A JSON-able copy of ``value`` (dicts with string keys, lists, str, int, float, bool, None).

    Conversion rules, in order:

    * JSON scalars stay; non-finite floats become ``"NaN"``, ``"Infinity"``, ``"-Infinity"``.
    * pydantic models are dumped (``model_dump(mode="json")``); dataclasses become dicts of
      their fields; Enums become their value; mappings get string keys.
    * lists and tuples become lists; sets and frozensets become lists sorted by their JSON text.
    * bytes become a summary (:func:`bytes_summary`): the size, the SHA-256 and a preview.
    * datetimes / dates / times become ISO-8601 text; paths, UUIDs and Decimals their text.
    * exceptions become ``{"type": name, "message": text}``.
    * a :class:`~jdsl.trace.canonical.JsonText` or ``Filled`` payload becomes its data.
    * anything else (and anything nested deeper than 64 levels, or a cycle) becomes ``repr``
      (``<TYPE>`` when the repr fails: too deep, a huge int, a raising ``__repr__``).

    Args:
        value: any Python value.

    Returns:
        JSON data; the input is never mutated.
    """
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:  # the common case: a flat dict of plain values, copied
        for key, item in value.items():
            if type(key) is not str or type(item) not in _PLAIN:
                return _convert(value, 0, set())
        return dict(value)
    return _convert(value, 0, set())


def bytes_summary(data: bytes | bytearray | memoryview) -> dict[str, Any]:
    """``{"$bytes": size, "sha256": "sha256:<hex>", "preview": <base64 of the first 64 bytes>}``."""
    raw = bytes(data)
    return {
        "$bytes": len(raw),
        "sha256": "sha256:" + hashlib.sha256(raw).hexdigest(),
        "preview": base64.b64encode(raw[:_BYTES_PREVIEW]).decode("ascii"),
    }


def _convert(value: Any, depth: int, active: set[int]) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value.value if isinstance(value, Enum) else value
    if isinstance(value, float):
        return value if math.isfinite(value) else _float_text(value)
    if isinstance(value, Enum):
        return _convert(value.value, depth + 1, active)
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    if depth > _MAX_DEPTH or id(value) in active:
        return _repr(value)
    active.add(id(value))
    try:
        return _container(value, depth + 1, active)
    finally:
        active.discard(id(value))


def _repr(value: Any) -> str:
    """``repr(value)``; a repr that fails (too deep to print, a huge int, a raising
    ``__repr__``) gives ``<TYPE>`` instead of failing the run."""
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - RecursionError, ValueError, anything a __repr__ raises
        return f"<{type(value).__name__}>"


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _scalar(value: Any) -> Any:
    if type(value) is JsonText or type(value) is Filled:
        return value.data()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes_summary(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, PurePath | UUID | Decimal):
        return str(value)
    if isinstance(value, BaseException):
        return {"type": type(value).__name__, "message": str(value)}
    return None


def _container(value: Any, depth: int, active: set[int]) -> Any:
    if isinstance(value, BaseModel):
        try:
            return _convert(value.model_dump(mode="json"), depth, active)
        except Exception:  # noqa: BLE001 - an unserialisable field: fall back to the repr
            return _repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return _convert(fields, depth, active)
    if isinstance(value, Mapping):
        return {
            k if type(k) is str else _key(k): v if type(v) in _PLAIN else _convert(v, depth, active)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [v if type(v) in _PLAIN else _convert(v, depth, active) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_convert(v, depth, active) for v in value), key=canonical_json)
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars
    if callable(tolist):
        try:
            return _convert(tolist(), depth, active)
        except Exception:  # noqa: BLE001
            return _repr(value)
    return _repr(value)


def _key(key: Any) -> str:
    if isinstance(key, Enum):
        key = key.value
    return key if isinstance(key, str) else str(key)
