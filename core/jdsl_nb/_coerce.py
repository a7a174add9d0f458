"""Turn core objects into plain data: event dicts and JSON-able values.

The notebook layer reads core objects through their documented shapes (docs/ARCHITECTURE.md)
and duck-types everything else, so a view works on a live object, a loaded trace or a list of
event dicts alike. Trees become IR dicts through ``jdsl.drawing.as_ir``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["as_events", "jsonable"]


def jsonable(value: Any) -> Any:
    """A JSON-able copy of ``value`` (``to_dict()`` first when an object has one).

    Everything else follows ``jdsl.trace.jsonable``: pydantic models dumped, dataclasses as
    dicts, other objects as their ``repr``.
    """
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type) and not isinstance(value, Mapping):
        value = to_dict()
    from jdsl.trace import jsonable as core_jsonable

    return core_jsonable(value)


def _event_dict(event: Any) -> dict[str, Any]:
    if isinstance(event, Mapping):
        data = dict(event)
    else:
        data = jsonable(event)
        if not isinstance(data, dict):
            raise TypeError(f"not a trace event: {type(event).__name__}")
    data.setdefault("payload", {})
    return data


def as_events(obj: Any) -> list[dict[str, Any]]:
    """The events of a trace, an episode, a sink, a JSONL file's lines or a list, as dicts.

    Events keep their recorded order; ``sequence`` is kept as recorded.

    Raises:
        TypeError: when ``obj`` holds no events.
    """
    if obj is None:
        return []
    if isinstance(obj, str) and "\n" in obj:
        return [_event_dict(json.loads(line)) for line in obj.splitlines() if line.strip()]
    for attr in ("events", "trace"):
        inner = getattr(obj, attr, None)
        if inner is not None and not callable(inner) and inner is not obj:
            return as_events(inner)
    if isinstance(obj, Mapping) and "kind" in obj and "payload" in obj:
        return [_event_dict(obj)]
    if isinstance(obj, Iterable) and not isinstance(obj, str | bytes | Mapping):
        return [_event_dict(e) for e in obj]
    raise TypeError(f"{type(obj).__name__} holds no trace events")
