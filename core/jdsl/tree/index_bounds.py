"""The bounds of a predict's index answers: a key that a node of the tree uses as an index
into a list (``user.orders[$order_indexes]``, ``order.items[$item_index].item_id``) holds an
index of that list, so the schema a Predict asks a ``structured_outputs`` model for
(:func:`jdsl.tree.predict.response_schema`) holds it to the list's indexes as of the tick.

A compiled package's model-chosen selection (core/jdsl/compiler/staticize/calls.py and
looping.py) asks for the indexes of a list known only at run time; the signature does not name
the list, but the tree does: :func:`indexed_lists` finds, once per tree, the list each key
indexes (every path a node reads, :func:`jdsl.tree.node_keys.ref_paths`), and
:func:`index_sizes` reads each list's length off the blackboard when the predict ticks. A
``list[int]`` output gets ``maxItems`` (the length), ``uniqueItems`` and each item's
``minimum: 0`` / ``maximum: length - 1``; an ``int`` output gets the same ``minimum`` and
``maximum``. A list that is not readable at the tick (written later, a fan-out, not a list)
bounds nothing, nor does one the same answer writes (``q -> xs: list[str], k: int`` with
``xs[$k]``: the ``xs`` on the board is the one the answer replaces); a key indexing several
lists is held to the shortest.

The bound only narrows decoding: the answer is validated as before
(:meth:`jdsl.signature.Signature.parse_output`), and an index out of range is refused where a
node reads it (a ``MISSING`` path: the guard or the read fails, the fallback takes over). The
bounds are not part of the IR, the package or the trace (``model.requested`` records each
output's schema from the signature).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jdsl.errors import ValidationError
from jdsl.expr import MISSING, parse_path, resolve_path
from jdsl.tree.node_keys import ref_paths

if TYPE_CHECKING:
    from jdsl.tree.base import Node

__all__ = ["bounded_schema", "index_sizes", "indexed_lists"]

_TOKEN = re.compile(r"\[[^\]]*\]|[^.\[\]]+|\.")  # as jdsl.expr splits a path


def indexed_lists(nodes: Iterable[Node]) -> dict[str, tuple[str, ...]]:
    """``{key: (list path, ...)}``: the lists the paths ``nodes`` read index with ``[$key]``.

    >>> from jdsl import dsl
    >>> tree = dsl.seq(dsl.predict("q -> k: int"), dsl.act("f", x=dsl.ref("user.orders[$k].id")))
    >>> indexed_lists(tree.walk())
    {'k': ('user.orders',)}
    """
    found: dict[str, dict[str, None]] = {}
    for node in nodes:
        for path in ref_paths(node):
            for key, head in _indexes(path):
                found.setdefault(key, {})[head] = None
    return {key: tuple(heads) for key, heads in found.items()}


def _indexes(path: str) -> list[tuple[str, str]]:
    """``(key, the path before it)`` for each ``[$key]`` step of ``path``."""
    tokens = _TOKEN.findall(path)
    found = []
    for n, token in enumerate(tokens):
        inner = token[1:-1].strip() if token.startswith("[") else ""
        if len(inner) > 1 and inner.startswith("$") and n > 0:
            found.append((inner[1:], "".join(tokens[:n])))
    return found


def index_sizes(
    outputs: Iterable[str], lists: Mapping[str, Sequence[str]], board: Mapping[str, Any]
) -> dict[str, int]:
    """``{output: length}``: for each output that indexes a list readable on ``board`` now,
    the length of the shortest such list; a list under a key among ``outputs`` (the answer
    writes it anew) is not read.

    >>> lists = {"k": ("xs", "ys")}
    >>> index_sizes(["k"], lists, {"xs": [1, 2, 3], "ys": [1, 2]})
    {'k': 2}
    >>> index_sizes(["k", "ys"], lists, {"xs": [1, 2, 3], "ys": [1, 2]})
    {'k': 3}
    """
    names = list(outputs)
    written = set(names)
    sizes: dict[str, int] = {}
    for name in names:
        lengths = [
            n
            for head in lists.get(name, ())
            if _TOKEN.findall(head)[0] not in written and (n := _length(head, board)) is not None
        ]
        if lengths:
            sizes[name] = min(lengths)
    return sizes


def _length(head: str, board: Mapping[str, Any]) -> int | None:
    """The length of the list at ``head`` (read, not recorded), or None when it is not one
    list: absent, not a list, or a fan-out (``[*]``, a ``$key`` holding a list)."""
    if head in board:
        value = board[head]
    else:
        try:
            steps = parse_path(head)
        except ValidationError:
            return None
        if any(kind == "all" or (kind == "var" and isinstance(board.get(arg), list))
               for kind, arg in steps):  # fmt: skip
            return None
        value = resolve_path(head, board)
    if value is MISSING or not isinstance(value, list | tuple):
        return None
    return len(value)


def bounded_schema(schema: Mapping[str, Any], size: int) -> dict[str, Any]:
    """``schema`` (an ``int``'s or a ``list[int]``'s) held to the indexes of a list of ``size``
    elements; any other schema unchanged. An ``int`` of an empty list is left unbounded (no
    index is right: the node that reads it fails); a ``list[int]`` of one may only be ``[]``.

    >>> bounded_schema({"type": "array", "items": {"type": "integer"}}, 3)
    {'type': 'array', 'items': {'type': 'integer', 'minimum': 0, 'maximum': 2}, 'maxItems': 3, 'uniqueItems': True}
    >>> bounded_schema({"type": "integer"}, 2)
    {'type': 'integer', 'minimum': 0, 'maximum': 1}
    """
    out = dict(schema)
    if out.get("type") == "integer":
        if size > 0:
            out.update(minimum=0, maximum=size - 1)
        return out
    items = out.get("items")
    if out.get("type") == "array" and isinstance(items, Mapping) and items.get("type") == "integer":
        if size > 0:
            out["items"] = {**items, "minimum": 0, "maximum": size - 1}
        out.update(maxItems=size, uniqueItems=True)
    return out
