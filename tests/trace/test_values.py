"""jsonable: arbitrary Python values become deterministic JSON data."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
from pathlib import Path

from jdsl.trace import canonical_json, jsonable
from pydantic import BaseModel


class Color(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: int
    tags: tuple[str, ...] = ()


@dataclasses.dataclass
class Box:
    point: Point
    when: dt.date
    raw: bytes


def test_models_dataclasses_enums_sets_and_bytes_become_json() -> None:
    value = {
        "box": Box(Point(x=1, tags=("a",)), dt.date(2024, 5, 1), b"\x00\x01"),
        Color.RED: {3, 1, 2},
        "pair": (1, "two"),
        "path": Path("/tmp/x"),
        "err": ValueError("bad"),
    }
    out = jsonable(value)
    assert out["box"]["point"] == {"x": 1, "tags": ["a"]}
    assert out["box"]["when"] == "2024-05-01"
    assert out["box"]["raw"]["$bytes"] == 2
    assert out["box"]["raw"]["sha256"].startswith("sha256:")
    assert out["red"] == [1, 2, 3]
    assert out["pair"] == [1, "two"]
    assert out["path"] == "/tmp/x"
    assert out["err"] == {"type": "ValueError", "message": "bad"}
    json.dumps(out, allow_nan=False)  # strictly JSON


def test_sets_are_sorted_so_the_json_is_deterministic() -> None:
    assert canonical_json(jsonable({"b", "a", "c"})) == canonical_json(jsonable({"c", "a", "b"}))


def test_non_finite_floats_and_unknown_objects_are_text() -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    out = jsonable([math.nan, math.inf, -math.inf, Opaque()])
    assert out == ["NaN", "Infinity", "-Infinity", "<opaque>"]


def test_cycles_do_not_recurse_forever() -> None:
    loop: list[object] = [1]
    loop.append(loop)
    out = jsonable(loop)
    assert out[0] == 1 and isinstance(out[1], str)


def test_input_is_not_mutated() -> None:
    value = {"a": (1, 2), "s": {1}}
    jsonable(value)
    assert value == {"a": (1, 2), "s": {1}}
