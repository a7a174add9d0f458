"""One toolkit over a behavior tree, as IR dicts or node objects: child slots, walks,
structural ids, one rebuild (:func:`transform_ir`), :func:`as_ir`.

The node schema is read from the node classes (:data:`jdsl.tree.nodes.NODE_CLASSES`): a field
whose type holds nodes is a child slot, every field is an IR field. A new node kind is walked,
drawn and numbered here with no edit to this module.

>>> ir = {"kind": "root", "name": "r", "child": {"kind": "sequence", "children": [
...     {"kind": "action", "tool": "a"}, {"kind": "repeat", "child": {"kind": "guard"},
...     "until": {"kind": "check", "key": "done", "id": "stop"}}]}}
>>> [node["kind"] for node in walk_ir(ir)]
['root', 'sequence', 'action', 'repeat', 'guard', 'check']
>>> [label for label, _ in labelled_children(ir["child"]["children"][1])]
['', 'until']
>>> list(structural_ids(ir).values())[-2:]
['root/sequence.0/repeat.1/guard.0', 'stop']
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from jdsl.errors import AuthoringError
from jdsl.tree.base import Node
from jdsl.tree.ids import structural_paths
from jdsl.tree.nodes import NODE_CLASSES

__all__ = [
    "CHILD_SLOTS",
    "NODE_FIELDS",
    "as_ir",
    "child_slots",
    "ir_nodes_with_ids",
    "is_ir_node",
    "labelled_children",
    "node_slots",
    "structural_ids",
    "transform_ir",
    "walk",
    "walk_ir",
]


_M = TypeVar("_M", bound=Mapping[str, Any])


def _holds_nodes(annotation: Any) -> bool:
    """True when a field type (``AnyNode``, ``AnyNode | None``, ``list[AnyNode]``) holds nodes."""
    if isinstance(annotation, type):
        return issubclass(annotation, Node)
    return any(_holds_nodes(arg) for arg in typing.get_args(annotation))


def node_slots(cls: type[Node]) -> tuple[str, ...]:
    """The child slots of a node class, in field order: the fields whose type holds nodes."""
    return tuple(name for name, f in cls.model_fields.items() if _holds_nodes(f.annotation))


CHILD_SLOTS: Mapping[str, tuple[str, ...]] = types.MappingProxyType(
    {kind: node_slots(cls) for kind, cls in NODE_CLASSES.items()}
)
"""Node kind -> its child slots, in traversal order (a repeat: ``child``, then ``until``)."""

NODE_FIELDS: Mapping[str, frozenset[str]] = types.MappingProxyType(
    {kind: frozenset(cls.model_fields) for kind, cls in NODE_CLASSES.items()}
)
"""Node kind -> the fields its IR may carry (docs/ARCHITECTURE.md, "Nodes are the IR")."""

_ANY_SLOTS: tuple[str, ...] = tuple(
    dict.fromkeys(s for slots in CHILD_SLOTS.values() for s in slots)
)
"""Every slot name some kind has: how a dict of unknown kind is walked (e.g. while validating)."""


def is_ir_node(value: Any) -> bool:
    """True for a dict that looks like one Behavior IR node (has a string ``kind``)."""
    return isinstance(value, Mapping) and isinstance(value.get("kind"), str)


def child_slots(node: Mapping[str, Any] | Node) -> list[Any]:
    """Traversal children of a node object or an IR node dict, in slot order.

    A dict's slot values are returned unfiltered (validation reports entries that are not
    nodes); a dict of unknown kind is read with every slot name any kind has.
    """
    if isinstance(node, Node):
        return node.children_nodes()
    return _slot_values(node, _slots_of(node))


def labelled_children(node: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The traversal children of an IR node as ``(edge label, child)``, in stable order.

    A kind's first slot is unlabelled (``children`` of a composite, ``child`` of a decorator or
    root); a later slot labels its edges with its name (a repeat's ``"until"``). Entries that
    are not node dicts are left out (:func:`child_slots` is the unlabelled, unfiltered form).
    """
    out: list[tuple[str, dict[str, Any]]] = []
    for position, slot in enumerate(_slots_of(node)):
        value = node.get(slot)
        label = "" if position == 0 else slot
        for child in value if isinstance(value, list) else [value]:
            if is_ir_node(child):
                out.append((label, typing.cast(dict[str, Any], child)))
    return out


def _ir_children(node: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [child for _, child in labelled_children(node)]


def _ir_kind(node: Mapping[str, Any]) -> str:
    return str(node["kind"])


def walk_ir(node: _M) -> Iterator[_M]:
    """Every node dict of an IR node dict, pre-order, children in slot order (iterative)."""
    stack: list[_M] = [node]
    while stack:
        current = stack.pop()
        yield current
        kids = [c for c in child_slots(current) if isinstance(c, Mapping)]
        stack.extend(typing.cast(list[_M], kids[::-1]))


def transform_ir(
    node: Mapping[str, Any] | Node, fn: Callable[[dict[str, Any]], Mapping[str, Any]]
) -> dict[str, Any]:
    """A new IR dict tree: every node rebuilt bottom-up, then passed through ``fn``.

    ``node`` is an IR dict or a node object (read as its IR, :func:`as_ir`).

    Each node's child slots (every slot :data:`CHILD_SLOTS` names for its kind, a repeat's
    ``until`` included) are rebuilt first; ``fn`` then gets a fresh copy of the node holding
    the rebuilt children and returns its replacement (itself, a changed node or a new subtree,
    which is not walked again). ``node`` is never mutated; slot entries that are not node dicts
    are kept as they are.

    Raises:
        jdsl.errors.AuthoringError: ``fn`` returned something that is not a mapping (a
            ``None`` from a branch that forgot to return the node, most often).

    >>> ir = {"kind": "repeat", "child": {"kind": "action", "tool": "a"},
    ...       "until": {"kind": "action", "tool": "b"}}
    >>> def upper(n):
    ...     return {**n, "tool": n["tool"].upper()} if n["kind"] == "action" else n
    >>> transform_ir(ir, upper)["until"]
    {'kind': 'action', 'tool': 'B'}
    """
    results: list[dict[str, Any]] = []  # rebuilt subtrees, in post-order
    stack: list[tuple[Mapping[str, Any], bool]] = [
        (as_ir(node) if isinstance(node, Node) else node, False)
    ]
    while stack:
        current, expanded = stack.pop()
        slots = _slots_of(current)
        kids = [c for c in _slot_values(current, slots) if is_ir_node(c)]
        if not expanded:
            stack.append((current, True))
            stack.extend((kid, False) for kid in reversed(kids))
            continue
        rebuilt = iter(results[len(results) - len(kids) :])
        del results[len(results) - len(kids) :]
        out = dict(current)
        for slot in slots:
            value = current.get(slot)
            if isinstance(value, list):
                out[slot] = [next(rebuilt) if is_ir_node(c) else c for c in value]
            elif is_ir_node(value):
                out[slot] = next(rebuilt)
        replaced = fn(out)
        if not isinstance(replaced, Mapping):
            raise AuthoringError(
                f"transform_ir: the function returned {type(replaced).__name__} for a "
                f"{out.get('kind')!r} node; return the node (or its replacement), a mapping",
                builder="transform_ir",
                argument="fn",
            )
        results.append(dict(replaced))
    return results[0]


def _slots_of(node: Mapping[str, Any]) -> tuple[str, ...]:
    kind = node.get("kind")
    return CHILD_SLOTS.get(kind, _ANY_SLOTS) if isinstance(kind, str) else _ANY_SLOTS


def _slot_values(node: Mapping[str, Any], slots: tuple[str, ...]) -> list[Any]:
    out: list[Any] = []
    for slot in slots:
        value = node.get(slot)
        if isinstance(value, list):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


def walk(tree: Any) -> Iterator[Any]:
    """Every node of a node object (objects) or of anything :func:`as_ir` reads (dicts)."""
    if isinstance(tree, Node):
        return tree.walk()
    return walk_ir(as_ir(tree))


def ir_nodes_with_ids(ir: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(effective id, node dict)`` for every node of ``ir``, pre-order: the author id, else
    the structural id a run gives the node (:func:`jdsl.tree.ids.structural_paths`)."""
    prefix = str(ir.get("kind", "node"))
    for node, path in structural_paths(ir, _ir_children, _ir_kind, prefix):
        yield str(node.get("id") or path), node


def structural_ids(ir: Mapping[str, Any]) -> dict[int, str]:
    """Effective ids (author id, else structural ``root/sequence.0/action.1``) by ``id(node)``.

    The structural id of a child is its parent's structural id plus ``/<kind>.<index>``, where
    index is the child's position among its parent's traversal children (as
    :func:`jdsl.tree.assign_runtime_ids` numbers them for a run).
    """
    return {id(node): effective for effective, node in ir_nodes_with_ids(ir)}


def as_ir(obj: Any) -> dict[str, Any]:
    """The IR dict of a tree, a ``behavior.json`` document, a package or a compile result.

    Raises:
        TypeError: when ``obj`` holds no tree.
    """
    if is_ir_node(obj):
        return dict(obj)
    if isinstance(obj, Mapping) and is_ir_node(obj.get("root")):
        return dict(obj["root"])
    dump = getattr(obj, "model_dump", None)
    if callable(dump) and isinstance(getattr(obj, "kind", None), str):
        return dict(dump(mode="json", exclude_none=True))
    for attr in ("ir", "root", "tree"):
        inner = getattr(obj, attr, None)
        if inner is not None and inner is not obj:
            try:
                return as_ir(inner)
            except TypeError:
                continue
    raise TypeError(f"{type(obj).__name__} holds no behavior tree (expected a node or IR dict)")
