"""Read OTLP JSON: the OpenTelemetry protocol's JSON encoding of spans, as files hold it.

A file is one ``ExportTraceServiceRequest`` document (``{"resourceSpans": [...]}``) or one such
document per line (what the OpenTelemetry Collector's file exporter writes); a JSON list of
documents is read too. Per the OTLP JSON encoding, ids are hex strings (base64, the protobuf
JSON mapping that some tools write, is accepted), 64-bit integers may be strings, and attribute
values are ``AnyValue`` objects (``stringValue``, ``intValue``, ``doubleValue``, ``boolValue``,
``arrayValue``, ``kvlistValue``, ``bytesValue``).
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jdsl.importers import jsondata
from jdsl.importers.common import ImportFormatError

__all__ = ["OtlpSpan", "any_value", "read_otlp_json"]

_STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}


@dataclass(frozen=True)
class OtlpSpan:
    """One span as OTLP JSON gives it, with its attributes flattened to Python values.

    Attributes:
        trace_id / span_id / parent_id: lowercase hex ids (``parent_id`` "" for a root span).
        name: the span name.
        start_ns / end_ns: Unix nanoseconds.
        attributes: ``{key: value}`` (lists for array values, dicts for kvlists).
        status: ``"UNSET"``, ``"OK"`` or ``"ERROR"``; ``status_message`` its description.
        events: ``[{"name", "time_ns", "attributes"}]``.
        resource: the resource attributes (``service.name``, ...).
    """

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any] = field(default_factory=dict)
    status: str = "UNSET"
    status_message: str = ""
    events: tuple[Mapping[str, Any], ...] = ()
    resource: Mapping[str, Any] = field(default_factory=dict)


def any_value(value: Mapping[str, Any]) -> Any:
    """An OTLP ``AnyValue`` object as a Python value (``{"intValue": "3"}`` -> 3)."""
    if not isinstance(value, Mapping) or not value:
        return None
    kind, raw = next(iter(value.items()))
    if kind == "stringValue":
        return str(raw)
    if kind == "intValue":
        return int(raw)  # a ValueError for text that is not one
    if kind == "doubleValue":
        number = float(raw)
        if not math.isfinite(number):  # OTLP JSON may write "Infinity"; a trace cannot hold it
            return str(raw)
        return number
    if kind == "boolValue":
        return bool(raw)
    if kind == "arrayValue":
        return [any_value(v) for v in (raw or {}).get("values", [])]
    if kind == "kvlistValue":
        return _attributes((raw or {}).get("values", []))
    if kind == "bytesValue":
        return raw
    raise ValueError(f"unknown attribute value type {kind!r}")


def _attributes(items: Any) -> dict[str, Any]:
    if not isinstance(items, list):
        raise ValueError("attributes must be a list of {key, value}")
    return {str(item["key"]): any_value(item.get("value") or {}) for item in items}


def _hex_id(raw: Any, size: int, what: str) -> str:
    """A trace (16 bytes) or span (8 bytes) id as lowercase hex, from hex or base64 text."""
    if not raw:
        return ""
    text = str(raw)
    if len(text) == 2 * size:
        try:
            bytes.fromhex(text)
            return text.lower()
        except ValueError:
            pass
    try:
        decoded = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    if len(decoded) != size:
        raise ValueError(
            f"{what} {text!r} is neither {2 * size} hex digits nor base64 of {size} bytes"
        )
    return decoded.hex()


def _nanos(raw: Any, what: str) -> int:
    """A Unix-nanosecond time (an int, or its decimal text, as OTLP JSON writes uint64)."""
    if raw is None or raw == "":
        return 0
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"{what} must be a number of nanoseconds, not {type(raw).__name__}")
    try:
        value = int(raw)
    except (ValueError, OverflowError):  # "abc", NaN, Infinity
        raise ValueError(f"{what} {str(raw)[:40]!r} is not a number of nanoseconds") from None
    if not 0 <= value < 2**64:
        raise ValueError(f"{what} {value} is outside uint64 nanoseconds")
    return value


def _span(raw: Mapping[str, Any], resource: Mapping[str, Any]) -> OtlpSpan:
    status = raw.get("status") or {}
    code = status.get("code", 0)
    return OtlpSpan(
        trace_id=_hex_id(raw.get("traceId"), 16, "traceId"),
        span_id=_hex_id(raw.get("spanId"), 8, "spanId"),
        parent_id=_hex_id(raw.get("parentSpanId"), 8, "parentSpanId"),
        name=str(raw.get("name", "")),
        start_ns=_nanos(raw.get("startTimeUnixNano"), "startTimeUnixNano"),
        end_ns=_nanos(raw.get("endTimeUnixNano"), "endTimeUnixNano"),
        attributes=_attributes(raw.get("attributes") or []),
        status=_STATUS.get(code, str(code).removeprefix("STATUS_CODE_")),
        status_message=str(status.get("message") or ""),
        events=tuple(
            {
                "name": str(e.get("name", "")),
                "time_ns": _nanos(e.get("timeUnixNano"), "timeUnixNano"),
                "attributes": _attributes(e.get("attributes") or []),
            }
            for e in raw.get("events") or []
        ),
        resource=resource,
    )


def _document_spans(document: Any) -> Iterator[OtlpSpan]:
    if not isinstance(document, Mapping) or "resourceSpans" not in document:
        raise ValueError('expected an OTLP JSON document {"resourceSpans": [...]}')
    for resource_spans in document["resourceSpans"] or []:
        resource = _attributes((resource_spans.get("resource") or {}).get("attributes") or [])
        for scope_spans in resource_spans.get("scopeSpans") or []:
            for raw in scope_spans.get("spans") or []:
                yield _span(raw, resource)


def _documents(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    """``(where, document)`` for a whole-file document or list, else for each line."""
    try:
        whole = jsondata.loads(text)
    except jsondata.JsonDataError:
        whole = None
    if whole is not None:
        for index, document in enumerate(whole if isinstance(whole, list) else [whole]):
            yield (f"document {index}" if isinstance(whole, list) else ""), document
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"line {number}", jsondata.loads(line)
        except jsondata.JsonDataError as exc:
            raise ImportFormatError(
                f"not JSON ({exc}); pass OTLP JSON (one document, or one per line)",
                path=path,
                where=f"line {number}",
            ) from exc


def read_otlp_json(path: str | Path) -> list[OtlpSpan]:
    """Every span of an OTLP JSON file, in file order.

    Raises:
        ImportFormatError: the file cannot be read, is not UTF-8 JSON, or a document is not
            OTLP JSON (names the line or document and the problem).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ImportFormatError(f"cannot read the file ({exc.strerror})", path=path) from exc
    except UnicodeDecodeError as exc:
        raise ImportFormatError(
            f"not UTF-8 text ({exc.reason}); pass OTLP JSON", path=path, where=f"byte {exc.start}"
        ) from exc
    spans: list[OtlpSpan] = []
    for where, document in _documents(path, text):
        try:
            spans.extend(_document_spans(document))
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as exc:
            raise ImportFormatError(
                f"{exc}; pass OTLP JSON as the OpenTelemetry file exporter writes it",
                path=path,
                where=where,
            ) from exc
    return spans
