"""One-line labels for IR nodes, in the behavior text form (``act lookup(email=email) -> c``).

``node_label(node)`` is the node's head line as ``jdsl.text`` prints it (children, ``until:``
and instruction lines left out); ``drawing_label(node)`` is what a drawing shows (quotes the text
form escapes inside strings shown plain, a root as ``root NAME`` only); ``shorten`` cuts it to a
drawing-friendly length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from jdsl.ir.walk import CHILD_SLOTS
from jdsl.text.formatter import format_node

__all__ = ["drawing_label", "node_label", "shorten", "unescape_quotes", "wrap_label"]

_LEFT_OUT = frozenset({"id", "instructions", *(s for slots in CHILD_SLOTS.values() for s in slots)})
"""What a label leaves out: the id, instruction lines and every child slot of any kind."""
_ESCAPED = re.compile(r'\\(["\\])')
_BREAK_AFTER = re.compile(r"[(,=_/]|(?=[.\[])")


def shorten(text: str, limit: int = 48) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 1)] + "…"


def wrap_label(text: str, width: int = 36, max_lines: int = 3) -> list[str]:
    """``text`` wrapped at word boundaries into at most ``max_lines`` lines of ``width`` chars.

    Lines break at spaces, after ``(`` ``,`` ``=`` ``_`` ``/`` and before ``.`` ``[`` (so a
    long call such as ``get_order_details(order_id=user.orders[0])`` breaks between its parts,
    and an id such as ``guard_retail_find_user_id_by_email_0`` between its words); a piece
    longer than ``width`` breaks at ``width``. Text beyond the last line ends in an ellipsis
    (drawings keep the full text in the node's tooltip).
    """
    lines: list[str] = []
    for word in " ".join(text.split()).split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        elif len(word) <= width:
            lines.append(word)
        else:  # a word longer than a line: fill from the current line, piece by piece
            for index, piece in enumerate(_word_pieces(word, width)):
                joiner = "" if index else " "
                if lines and len(lines[-1]) + len(joiner) + len(piece) <= width:
                    lines[-1] += joiner + piece
                else:
                    lines.append(piece)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [shorten(" ".join(lines[max_lines - 1 :]), width)]
    return lines or [""]


def _word_pieces(word: str, width: int) -> list[str]:
    """``word`` cut at every break point (:data:`_BREAK_AFTER`), pieces at most ``width``."""
    cuts = [0] + [m.end() for m in _BREAK_AFTER.finditer(word) if 0 < m.end() < len(word)]
    parts = [word[start:end] for start, end in zip(cuts, cuts[1:] + [len(word)], strict=True)]
    return [part[i : i + width] for part in parts if part for i in range(0, len(part), width)]


def node_label(node: Mapping[str, Any]) -> str:
    """The one-line text of an IR node without its ``id=`` (drawings show ids apart); never raises.

    A node the text form cannot print (an unknown kind, a name with spaces) gets its kind and
    its fields as compact JSON instead.
    """
    head = {k: v for k, v in node.items() if k not in _LEFT_OUT}
    try:
        return format_node(head)[0]
    except Exception:  # noqa: BLE001 - a label never breaks a drawing
        fields = {k: v for k, v in head.items() if k != "kind"}
        text = json.dumps(fields, sort_keys=True, default=str) if fields else ""
        return f"{head.get('kind', '?')} {text}".strip()


def unescape_quotes(text: str) -> str:
    """The text form's ``\\"`` and ``\\\\`` inside string literals as plain ``"`` and ``\\``.

    For display only: DOT escaping is applied afterwards (``jdsl.drawing.dot``), HTML escaping
    by the outline.
    """
    return _ESCAPED.sub(r"\1", text)


def drawing_label(node: Mapping[str, Any]) -> str:
    """The label a drawing shows: :func:`node_label` with string quotes unescaped.

    A root shows only ``root NAME``: its system prompt and model stay in the tooltip.
    """
    if node.get("kind") == "root":
        return f"root {node.get('name') or ''}".strip()
    return unescape_quotes(node_label(node))
