"""Names the compiler makes up: slugs, synthesized store keys, error classes."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

__all__ = ["error_class", "numbered", "slug", "synth_store"]

_ERROR_CLASSES = (
    ("not_found", ("not_found", "not found", "no such", "keyerror", "unknown")),
    ("unauthorized", ("unauthorized", "permission")),
    ("forbidden", ("forbidden",)),
    ("invalid", ("invalid", "valueerror")),
    ("timeout", ("timeout", "timed out")),
    ("rate", ("rate limit", "ratelimit")),
)


def slug(text: str) -> str:
    """Non-alphanumerics collapsed to ``_``, trimmed: ``"mcp__retail.get"`` -> ``"mcp_retail_get"``."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_") or "tool"


def numbered(base: str, taken: Collection[str]) -> str:
    """``base``, else ``base_2``, ``base_3``... whichever ``taken`` lacks first: a name that
    says what it holds, never the step position of one run (``reservation_id_2``)."""
    if base not in taken:
        return base
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def synth_store(tool: str, occurrence: int) -> str:
    """The key a result without an explicit store goes to: ``<tool>_out``, ``<tool>_out_2``..."""
    base = f"{slug(tool)}_out"
    return base if occurrence <= 1 else f"{base}_{occurrence}"


def error_class(error: Any) -> str:
    """A coarse class of an error text: not_found, unauthorized, invalid, timeout... or error."""
    text = str(error or "").lower()
    for name, needles in _ERROR_CLASSES:
        if any(needle in text for needle in needles):
            return name
    return "error"
