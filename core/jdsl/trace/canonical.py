"""Canonical JSON: the one text form that event hashes are taken over.

``canonical_json(value)`` is ``json.dumps(value, sort_keys=True, separators=(",", ":"),
ensure_ascii=False, default=str)``. Events are written and hashed in :func:`event_json`, the
same form computed by orjson (ten times faster): identical text for JSON data except floats in
exponent form (``1e16``, not ``1e+16``) and NaN / infinity (``null``, valid JSON); values
orjson cannot encode as ``json`` would (non-string keys, huge integers, other types) go
through ``json``. Events hashed by earlier versions over ``canonical_json`` text still verify
(:meth:`jdsl.trace.TraceEvent.verify_hash` tries both). :func:`event_text` writes the canonical JSON of an event's
fields without parsing them into a dict first: the envelope fields are short strings written
directly, only the payload goes through the encoder, and the text is the same, character for
character, as ``canonical_json`` of the same fields.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import orjson

__all__ = [
    "canonical_json",
    "decoded",
    "encoded",
    "event_json",
    "event_text",
    "json_scalar",
    "long_number",
]


_ENCODE = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
).encode  # one encoder (json.dumps would build one per call); encoding never mutates it
_ESCAPED = re.compile(r'[\x00-\x1f"\\]')  # what json escapes when ensure_ascii=False
_SURROGATE = re.compile("[\ud800-\udfff]")  # code points with no UTF-8 encoding
MAX_INT_DIGITS = 4000
"""Ints with more decimal digits are written as ``{"$int": "0x..."}`` (see :func:`event_json`)."""
_INT_LIMIT = 10**MAX_INT_DIGITS  # compared, never printed
_DIGIT_RUNS = bytes(48 if 48 <= b <= 57 else 58 if b in b":,[- \t\r\n" else 120 for b in range(256))
"""Digits to ``0``, what may come before a number's digits to ``:``, the rest to ``x``."""
_LONG_RUN = b":" + b"0" * 19


def long_number(data: bytes) -> bool:
    """Whether JSON ``data`` may hold a number of 19 digits or more: maybe an int outside
    orjson's 64 bits, which orjson reads as a float (``json`` reads it exactly). One
    ``bytes.translate`` and one search, about a sixth of what orjson takes to parse the line."""
    return _LONG_RUN in data.translate(_DIGIT_RUNS)


_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)  # fmt: skip


def canonical_json(value: Any) -> str:
    """Deterministic compact JSON: sorted keys, no spaces, non-JSON values via ``str``."""
    return _ENCODE(value)


def event_json(value: Any) -> str:
    """:func:`canonical_json` as orjson writes it (see the module doc): the event form.

    A lone surrogate in a string (no UTF-8 encoding; e.g. from ``surrogateescape``) is
    written as U+FFFD, and an int of over :data:`MAX_INT_DIGITS` digits as ``{"$int":
    "0x..."}``, so every event can be hashed, written and read back.
    """
    return encoded(value)[0]


def encoded(value: Any) -> tuple[str, bool]:
    """``(event_json(value), whether orjson wrote it)``: orjson reads back exactly what it
    wrote, while text from the fallback may hold ints beyond 64 bits (``json`` reads them)."""
    try:
        return orjson.dumps(value, default=_refuse, option=_ORJSON_OPTIONS).decode(), True
    except TypeError:  # a type orjson leaves to ``default``, a non-str key, a huge int
        try:
            text = _ENCODE(value)
        except ValueError:  # an int too long to write in decimal (``sys.int_info``)
            text = _ENCODE(_long_ints(value))
    if text.isascii() or _SURROGATE.search(text) is None:
        return text, False
    # A lone surrogate (a str decoded with ``surrogateescape``, half an emoji) has no UTF-8:
    # the text could be neither hashed nor written. It becomes U+FFFD, which the text then
    # holds as orjson writes it, so the event re-read verifies.
    return _SURROGATE.sub("\ufffd", text), False


def decoded(text: str) -> Any:
    """The data of JSON ``text`` that :func:`event_json` wrote, ints beyond 64 bits exact."""
    if not long_number(text.encode("utf-8", "surrogatepass")):
        return orjson.loads(text)
    return json.loads(text)


def _long_ints(value: Any) -> Any:
    """``value`` with each int of over :data:`MAX_INT_DIGITS` digits as ``{"$int": hex}``
    (no decimal text: Python refuses to make it, and no reader could parse it back)."""
    if type(value) is dict:
        return {k: _long_ints(v) for k, v in value.items()}
    if type(value) is list or type(value) is tuple:
        return [_long_ints(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _INT_LIMIT:
        return {"$int": hex(value)}
    return value


def _refuse(value: Any) -> Any:
    raise TypeError("left to json")


def json_scalar(value: Any) -> str:
    """``canonical_json(value)``, quicker for None and strings that need no escaping."""
    if type(value) is str:
        return f'"{value}"' if _ESCAPED.search(value) is None else _ENCODE(value)
    if value is None:
        return "null"
    return _ENCODE(value)


def event_text(
    fields: Mapping[str, Any],
    payload_text: str | None = None,
    source_text: str | None = None,
    *,
    encode: Callable[[Any], str] = event_json,
) -> str:
    """The canonical JSON of an event's fields but ``event_hash`` (what its hash covers).

    Args:
        fields: the :class:`~jdsl.trace.TraceEvent` fields by name (``event_hash`` ignored);
            ``source`` may be the model or its dict.
        payload_text: ``encode(fields["payload"])`` when the caller has it already.
        source_text: ``encode`` of the source's dict, likewise.
        encode: :func:`event_json` (how events are written), or :func:`canonical_json` (how
            earlier versions hashed them).
    """
    f = fields
    actor, capture, episode, event_id = f["actor"], f["capture_id"], f["episode_id"], f["event_id"]
    kind, schema, stamp, seq = f["kind"], f["schema_version"], f["timestamp"], f["sequence"]
    parent, prev, after, before = (
        f["parent_event_id"], f["prev_event_hash"], f["state_after_ref"], f["state_before_ref"]
    )  # fmt: skip
    try:  # one check for every text field: none needs escaping
        joined = "".join((
            actor, capture, episode, event_id, kind, schema, stamp,
            parent or "", prev or "", after or "", before or "",
        ))  # fmt: skip
        plain = (
            type(seq) is int and joined.isprintable() and '"' not in joined
            and "\\" not in joined
        )  # fmt: skip
    except TypeError:  # a field that is not text
        plain = False
    if not plain:  # the general encoder, over the whole event (the given texts decoded)
        body = {k: getattr(v, "__dict__", v) for k, v in f.items() if k != "event_hash"}
        if payload_text is not None:
            body["payload"] = decoded(payload_text)
        if source_text is not None:
            body["source"] = decoded(source_text)
        return encode(body)
    refs = f["blob_refs"]
    if source_text is None:
        source = f["source"]
        source_text = encode(getattr(source, "__dict__", source))
    parent = "null" if parent is None else f'"{parent}"'
    prev = "null" if prev is None else f'"{prev}"'
    after = "null" if after is None else f'"{after}"'
    before = "null" if before is None else f'"{before}"'
    return (
        f'{{"actor":"{actor}","blob_refs":{encode(refs) if refs else "[]"},'
        f'"capture_id":"{capture}","episode_id":"{episode}","event_id":"{event_id}",'
        f'"kind":"{kind}","parent_event_id":{parent},'
        f'"payload":{encode(f["payload"]) if payload_text is None else payload_text},'
        f'"prev_event_hash":{prev},"schema_version":"{schema}","sequence":{seq},'
        f'"source":{source_text},"state_after_ref":{after},"state_before_ref":{before},'
        f'"timestamp":"{stamp}"}}'
    )
