"""Hostile-input costs (issue #17): each must stay linear, well under its target.

Redacting ``"eyJ-" * 65536`` (256 KiB; the JWT pattern was quadratic: 1.3 s at 64 KiB, more than
20 s at 256 KiB), parsing a 50,000-field signature (21 s when names were counted in a loop),
validating an IR nested 5,000 deep (a RecursionError before) and parsing text with a
5,000-digit number (an OverflowError before).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.table import Row
from bench.timing import median_seconds

__all__ = ["measure"]

SECTION = "hardening"


def _cases() -> list[tuple[str, Callable[[], Any], float]]:
    from jdsl.errors import BehaviorSyntaxError
    from jdsl.ir import validate_ir
    from jdsl.signature import _parse
    from jdsl.text.parser import parse_behavior_ir
    from jdsl.trace import Redactor

    jwt_bait = "eyJ-" * 65536
    fields = ", ".join(f"f{i}" for i in range(50_000)) + " -> out"
    node: dict = {"kind": "action", "tool": "t"}
    for _ in range(5000):
        node = {"kind": "invert", "child": node}
    deep = {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "x", "child": node}}

    def parse_digits() -> None:
        try:
            parse_behavior_ir("act f(x=" + "9" * 5000 + ")")
        except BehaviorSyntaxError:
            pass

    return [
        ('redact `"eyJ-" * 65536` (256 KiB)', lambda: Redactor().redact_text(jwt_bait), 0.5),
        ("parse a 50,000-field signature", lambda: _parse.__wrapped__(fields), 1.0),
        ("validate_ir of nodes nested 5,000 deep", lambda: validate_ir(deep), 0.1),
        ("parse text with a 5,000-digit number", parse_digits, 0.05),
    ]


def measure(*, quick: bool) -> list[Row]:
    """One row per case, the median of 3 samples (7 in a full run)."""
    repeats = 3 if quick else 7
    rows = []
    for name, work, target in _cases():
        seconds = median_seconds(work, repeats=repeats)
        rows.append(Row(SECTION, name, seconds, "s", target=f"< {target} s",
                        met=seconds < target, note=f"median of {repeats}"))  # fmt: skip
    return rows
