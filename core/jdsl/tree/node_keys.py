"""What the static check reads off one node: its label as behavior text, the blackboard keys
it reads and writes, and the declared type of each key it writes (:mod:`jdsl.tree.check`)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from jdsl.expr import expression_paths, parse_path
from jdsl.signature import Signature

if TYPE_CHECKING:
    from jdsl.tree.base import Node

__all__ = [
    "exists_paths",
    "label",
    "path_keys",
    "read_keys",
    "ref_paths",
    "typed_writes",
    "written_keys",
]


def label(node: Node) -> str:
    """The node as its behavior-text head, e.g. ``act escalate(level=urgency)``."""
    kind = node.kind
    if kind in ("predict", "react"):
        return f'{kind} "{getattr(node, "signature", "")}"'
    if kind in ("action", "guard_call"):
        name = getattr(node, "tool", None) or getattr(node, "predicate", "?")
        args = ", ".join(
            f"{arg}={_arg_text(spec)}" for arg, spec in (getattr(node, "args", None) or {}).items()
        )
        head = "act" if kind == "action" else "guard_call"
        store = getattr(node, "store", None)
        return f"{head} {name}({args})" + (f" -> {store}" if store else "")
    return str(node.label)


def _arg_text(spec: Any) -> str:
    if isinstance(spec, Mapping) and "ref" in spec:
        return str(spec["ref"])
    return json.dumps(spec.get("const") if isinstance(spec, Mapping) else spec, default=str)


def path_keys(path: str) -> list[str]:
    """The blackboard keys a path reads: its first key and every ``$var`` index, each once
    (the static check and the notebook's provenance both read paths so)."""
    try:
        steps = parse_path(path)
    except Exception:  # noqa: BLE001 - a malformed path is the IR validator's business
        return []
    keys = [str(steps[0][1])] if steps else []
    return list(dict.fromkeys(keys + [str(value) for kind, value in steps if kind == "var"]))


def read_keys(node: Node) -> list[str]:
    return list(
        dict.fromkeys(key for path in ref_paths(node, tested=False) for key in path_keys(path))
    )


def ref_paths(node: Node, *, tested: bool = True) -> list[str]:
    """The paths ``node`` reads: an action's or guard call's ref arguments, a check's key, a
    guard's refs (those it only tests with ``exists`` left out unless ``tested``), a predict's
    or react's input paths, a for_each's items."""
    kind = node.kind
    paths: list[str] = []
    if kind in ("action", "guard_call"):
        paths = [
            s["ref"]
            for s in (getattr(node, "args", None) or {}).values()
            if isinstance(s, Mapping) and isinstance(s.get("ref"), str)
        ]
    elif kind == "check":
        paths = [str(node.key)]  # type: ignore[attr-defined]
    elif kind == "guard":
        expression = node.expression  # type: ignore[attr-defined]
        paths = expression_paths(expression) if tested else _guard_paths(expression)
    elif kind in ("predict", "react"):
        sig = _signature(node)
        sources = getattr(node, "input_sources", None) or {}
        paths = [sources.get(name, name) for name in (sig.input_names if sig else ())]
        paths = [p.removeprefix("blackboard.") for p in paths]
    elif kind == "for_each":
        paths = [str(node.items)]  # type: ignore[attr-defined]
    return list(dict.fromkeys(paths))


def _guard_paths(expression: Any) -> list[str]:
    """Paths a guard reads, leaving out those it only tests with ``exists``."""
    tested = set(exists_paths(expression))
    return [p for p in expression_paths(expression) if p not in tested]


def exists_paths(expression: Any) -> list[str]:
    if isinstance(expression, list):
        return [p for item in expression for p in exists_paths(item)]
    if not isinstance(expression, Mapping):
        return []
    if "exists" in expression:
        target = expression["exists"]
        return [target["ref"] if isinstance(target, Mapping) else str(target)]
    return [p for value in expression.values() for p in exists_paths(value)]


def _signature(node: Node) -> Signature | None:
    try:
        return Signature.parse(str(node.signature))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a bad signature fails where the node is built
        return None


def written_keys(node: Node) -> list[str]:
    if node.kind == "for_each":
        return [key for key in (node.item, node.store) if key]  # type: ignore[attr-defined]
    if node.kind == "action":
        store = getattr(node, "store", None)
        return [store] if store else []
    if node.kind in ("predict", "react"):
        sig = _signature(node)
        return list(sig.output_names) if sig else []
    return []


def typed_writes(node: Node) -> list[tuple[str, Any]]:
    """``(key, declared type)`` for every key ``node`` writes (an action's: from its tool)."""
    if node.kind in ("predict", "react"):
        sig = _signature(node)
        return [(f.name, f.annotation) for f in (sig.outputs if sig else ())]
    if node.kind == "action" and getattr(node, "store", None):
        return [(str(node.store), inspect.Parameter.empty)]  # type: ignore[attr-defined]
    if node.kind == "for_each":
        return [(key, inspect.Parameter.empty) for key in written_keys(node)]
    return []
