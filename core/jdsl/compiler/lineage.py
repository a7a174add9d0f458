"""Exact lineage: which earlier trusted state value a tool argument is an exact copy of.

Rules (docs/design.md appendix B §2):

* only scalars are targets; containers never are;
* a bool never counts and never equals a number; ``0``, ``1``, ``-1`` and NaN never count;
* a string needs two or more characters; ``None`` never counts;
* ints and floats compare numerically, strings exactly (no fuzzy or substring matching);
* paths reach at most :data:`MAX_DEPTH` steps below a top-level key;
* a list index equal to the value of a top-level key ``k`` (an int 0..999 or a digit string)
  also gives the symbolic path ``xs[$k]``; symbolic paths are preferred, then shorter, then
  lexicographically smaller ones.

List arguments get element-wise lineage (docs/design.md §6): each element of a list of scalars has
its own exact sources (:meth:`StateIndex.sources` per element, e.g. ``order.items[2].item_id``),
and when every element is the same field of the elements of *one* list in state, the argument
has a :class:`ListSource` (``order.items[*].item_id`` with the indexes taken, ``(0, 2)``).

:class:`StateIndex` keeps a dict from ``(type, value)`` to the paths holding it, updated once
per write, so a lookup costs one dict access however large the state is.

Example:
    >>> index = StateIndex()
    >>> index.set("orders", [{"id": "#W0"}, {"id": "#W1"}])
    >>> index.set("selected_index", 1, decision=True)
    >>> index.sources("#W1")
    ('orders[$selected_index].id', 'orders[1].id')
    >>> index.sources(1)
    ()
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from jdsl.trace.values import is_meaningful

__all__ = [
    "MAX_DEPTH",
    "ListSource",
    "StateIndex",
    "find_source",
    "find_sources",
    "element_index",
    "is_meaningful",
    "mentioned_keys",
    "render_path",
    "selected_indexes",
    "stated_in",
]

MAX_DEPTH: Final = 6
"""How many steps below a top-level key lineage looks."""

_MAX_INDEX_VAR: Final = 999
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

PathSteps = tuple[Any, ...]
"""A path as steps: the top-level key (str), then dict keys (str) and list indexes (int)."""


def value_key(value: Any) -> tuple[str, Any] | None:
    """The typed equality key of a meaningful scalar, else None (numbers share one type)."""
    if not is_meaningful(value):
        return None
    return ("s", value) if isinstance(value, str) else ("n", value)


def render_path(steps: PathSteps, index_vars: dict[int, str] | None = None) -> str:
    """Path text for ``steps``; list indexes in ``index_vars`` become ``[$name]``.

    >>> render_path(("orders", 1, "id"), {1: "selected_index"})
    'orders[$selected_index].id'
    >>> render_path(("a.b", "x y", 0))
    'a.b["x y"][0]'
    """
    text = str(steps[0])
    for step in steps[1:]:
        if isinstance(step, int):
            name = index_vars.get(step) if index_vars else None
            text += f"[${name}]" if name else f"[{step}]"
        elif _IDENT.match(step):
            text += f".{step}"
        else:
            text += f"[{json.dumps(step, ensure_ascii=False)}]"
    return text


def _representable(key: Any) -> bool:
    return isinstance(key, str) and bool(key) and not any(c in key for c in "[]$\"'")


def _walk(value: Any, path: PathSteps, depth: int) -> Iterator[tuple[tuple[str, Any], PathSteps]]:
    """Every meaningful scalar under ``value`` with its path (containers are not yielded)."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return
        for key, child in value.items():
            if _representable(key):
                yield from _walk(child, (*path, key), depth + 1)
    elif isinstance(value, list):
        if depth >= MAX_DEPTH:
            return
        for i, child in enumerate(value):
            yield from _walk(child, (*path, i), depth + 1)
    else:
        key = value_key(value)
        if key is not None:
            yield key, path


def _index_value(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 0 <= value <= _MAX_INDEX_VAR:
        return value
    if isinstance(value, str) and value.isdigit() and int(value) <= _MAX_INDEX_VAR:
        return int(value)
    return None


class StateIndex:
    """Trusted state with a value index: ``(type, value) -> {top-level key: [paths]}``.

    Only :meth:`set` changes it, so writes are indexed once and lookups are O(1) in the size
    of the state. Keys set with ``decision=True`` (model outputs) win as symbolic index names.
    """

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self._by_value: dict[tuple[str, Any], dict[str, list[PathSteps]]] = {}
        self._keys_of: dict[str, list[tuple[str, Any]]] = {}
        self._index_vars: dict[str, tuple[int, bool]] = {}

    def set(self, key: str, value: Any, *, decision: bool = False) -> None:
        """Write ``value`` under top-level ``key``, replacing what was there."""
        self._forget(key)
        self.state[key] = value
        found: list[tuple[str, Any]] = []
        for vkey, path in _walk(value, (key,), 0):
            self._by_value.setdefault(vkey, {}).setdefault(key, []).append(path)
            found.append(vkey)
        self._keys_of[key] = found
        index = _index_value(value)
        if index is not None:
            self._index_vars[key] = (index, decision)

    def _forget(self, key: str) -> None:
        for vkey in self._keys_of.pop(key, ()):
            holders = self._by_value.get(vkey)
            if holders is not None:
                holders.pop(key, None)
                if not holders:
                    del self._by_value[vkey]
        self._index_vars.pop(key, None)

    def index_vars(self) -> dict[int, str]:
        """``{index value: key name}``: decision outputs first, then by key name."""
        ranked = sorted(self._index_vars.items(), key=lambda kv: (not kv[1][1], kv[0]))
        names: dict[int, str] = {}
        for name, (index, _) in ranked:
            names.setdefault(index, name)
        return names

    def paths(self, value: Any) -> list[PathSteps]:
        """Every path (as steps) holding exactly ``value``, unordered."""
        vkey = value_key(value)
        holders = self._by_value.get(vkey) if vkey is not None else None
        return [steps for paths in (holders or {}).values() for steps in paths]

    def list_sources(self, values: Sequence[Any], *, limit: int = 4) -> tuple[ListSource, ...]:
        """The lists in state whose elements' same field gives every element of ``values``.

        ``values`` must be a non-empty list of meaningful scalars; each source says which
        element each value came from. Shorter templates first, then by text.

        >>> index = StateIndex()
        >>> index.set("order", {"items": [{"id": "i10"}, {"id": "i11"}, {"id": "i12"}]})
        >>> [(s.template, s.indexes, s.every) for s in index.list_sources(["i12", "i10"])]
        [('order.items[*].id', (2, 0), False)]
        """
        if not values or not all(is_meaningful(v) for v in values):
            return ()
        per_value = [self.paths(v) for v in values]
        found = []
        for head, tail in {_split(steps, j) for steps in per_value[0] for j in _index_steps(steps)}:
            indexes = _indexes_for(head, tail, per_value)
            container = _lookup(self.state, head)
            if indexes is not None and isinstance(container, list):
                found.append(
                    ListSource(render_path(head), _tail_text(tail), indexes, len(container))
                )
        found.sort(key=lambda s: (len(s.template), s.template))
        return tuple(found[:limit])

    def sources(self, value: Any, *, limit: int = 8) -> tuple[str, ...]:
        """Every path whose value exactly equals ``value``, best first (at most ``limit``)."""
        vkey = value_key(value)
        holders = self._by_value.get(vkey) if vkey is not None else None
        if not holders:
            return ()
        index_vars = self.index_vars()
        texts: set[tuple[bool, int, str]] = set()
        for paths in holders.values():
            for steps in paths:
                plain = render_path(steps)
                texts.add((False, len(steps), plain))
                symbolic = render_path(steps, index_vars)
                if symbolic != plain:
                    texts.add((True, len(steps), symbolic))
        ranked = sorted(texts, key=lambda t: (not t[0], t[1], t[2]))
        return tuple(text for _, _, text in ranked[:limit])


def find_sources(value: Any, state: dict[str, Any]) -> tuple[str, ...]:
    """Every path in ``state`` holding exactly ``value``, best first (builds a fresh index)."""
    index = StateIndex()
    for key, item in state.items():
        index.set(key, item)
    return index.sources(value)


def find_source(value: Any, state: dict[str, Any]) -> str | None:
    """The best path in ``state`` holding exactly ``value``, or None.

    >>> find_source("x", {"a": "x"}) is None
    True
    >>> find_source("U1", {"customer": {"id": "U1"}})
    'customer.id'
    """
    found = find_sources(value, state)
    return found[0] if found else None


@dataclass(frozen=True)
class ListSource:
    """A list argument built from one list in state: element ``k`` of the argument is
    ``<head>[indexes[k]]<tail>``.

    Attributes:
        head: the path of the list in state, e.g. ``"order.items"``.
        tail: the path below each element, e.g. ``".item_id"`` (``""`` for the elements).
        indexes: which element each argument element came from, in argument order.
        length: how many elements the list in state had.
    """

    head: str
    tail: str
    indexes: tuple[int, ...]
    length: int

    @property
    def template(self) -> str:
        """``order.items[*].item_id``: the form that takes every element."""
        return f"{self.head}[*]{self.tail}"

    @property
    def every(self) -> bool:
        """Whether the argument is every element, in order."""
        return self.indexes == tuple(range(self.length))

    def selection(self, key: str) -> str:
        """``order.items[$key].item_id``: the form that takes the indexes stored under ``key``."""
        return f"{self.head}[${key}]{self.tail}"


def _index_steps(steps: PathSteps) -> list[int]:
    return [j for j, step in enumerate(steps) if j > 0 and isinstance(step, int)]


def _split(steps: PathSteps, j: int) -> tuple[PathSteps, PathSteps]:
    return steps[:j], steps[j + 1 :]


def _indexes_for(
    head: PathSteps, tail: PathSteps, per_value: list[list[PathSteps]]
) -> tuple[int, ...] | None:
    """The element index of each value under ``head[k]tail``, or None when one has none
    (a value found at several elements takes the first not taken yet)."""
    n = len(head)
    taken: list[int] = []
    for paths in per_value:
        found = sorted(
            p[n]
            for p in paths
            if len(p) == n + 1 + len(tail) and p[:n] == head and p[n + 1 :] == tail
        )
        if not found:
            return None
        taken.append(next((k for k in found if k not in taken), found[0]))
    return tuple(taken)


def _lookup(state: dict[str, Any], steps: PathSteps) -> Any:
    value: Any = state
    for step in steps:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _tail_text(tail: PathSteps) -> str:
    """The text of a path below an element: ``("item_id",)`` -> ``".item_id"``."""
    return render_path(("x", *tail))[1:] if tail else ""


def stated_in(value: Any, messages: Sequence[str]) -> bool:
    """Whether ``value`` (a string of three or more characters) occurs as a whole word in one
    of ``messages`` (what the user said), ignoring case.

    >>> stated_in("MDCLVA", ["my reservation is mdclva."]), stated_in("MDC", ["MDCLVA"])
    (True, False)
    """
    if not isinstance(value, str) or len(value.strip()) < 3 or not messages:
        return False
    pattern = re.compile(rf"(?<!\w){re.escape(value.strip())}(?!\w)", re.IGNORECASE)
    return any(pattern.search(text) for text in messages)


def mentioned_keys(values: Sequence[Any], steps: Sequence[Any], available: set[str]) -> list[str]:
    """The available top-level state keys a generated value mentions: a key whose string
    scalars (four or more characters) occur in the value's text, in the first step's
    ``state_before`` (e.g. the reservation a transfer summary names), sorted, at most three.

    Args:
        values: the recorded values, the first for ``steps[0]``.
        steps: :class:`~jdsl.compiler.normalized.NormStep` s with ``state_before``.
        available: the keys the compiled tree has written by then.
    """
    text = json.dumps(values[0], ensure_ascii=False) if values and steps else ""
    found = []
    for key in sorted(available & set(steps[0].state_before) if text else ()):
        strings = (
            v for (kind, v), _ in _walk(steps[0].state_before[key], (key,), 0) if kind == "s"
        )
        if any(len(v) >= 4 and v in text for v in strings):
            found.append(key)
    return found[:3]


def selected_indexes(path: str, sources: Sequence[ListSource]) -> dict[str, list[int]]:
    """``{k: indexes}`` when ``path`` is a selection ``xs[$k].id`` and one of ``sources`` (a
    recorded list argument's :class:`ListSource` s) is ``xs[*].id``: the indexes it took, what
    the residual that writes ``k`` answered in that episode.

    >>> selected_indexes("o.items[$ix].id", (ListSource("o.items", ".id", (2, 0), 3),))
    {'ix': [2, 0]}
    """
    for key in re.findall(r"\[\$(\w+)\]", path):
        template = path.replace(f"[${key}]", "[*]", 1)
        for source in sources:
            if source.template == template:
                return {key: list(source.indexes)}
    return {}


def element_index(path: str, sources: Sequence[str]) -> dict[str, int]:
    """``{k: n}`` when ``path`` selects one element ``xs[$k].id`` and one of ``sources`` (a
    recorded scalar argument's exact sources) is ``xs[n].id``: what the residual that writes
    ``k`` answered in that episode.

    >>> element_index("user.orders[$order_index]", ("order.id", "user.orders[2]"))
    {'order_index': 2}
    """
    for key in re.findall(r"\[\$(\w+)\]", path):
        head, _, tail = path.partition(f"[${key}]")
        for source in sources:
            if source.startswith(head + "[") and source.endswith(tail):
                middle = source[len(head) + 1 : len(source) - len(tail) - 1]
                if middle.isdigit():
                    return {key: int(middle)}
    return {}
