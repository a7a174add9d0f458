"""Guard nodes the compiler writes: mined teacher guards, ``exists`` guards, their names.

* :func:`guard_node`: the IR node of a mined GUARD claim (guard, check or guard_call);
* :func:`node_names`: the blackboard keys a guard reads;
* :func:`exists_names`: the names of an ``exists(a) and exists(b)`` expression;
* :func:`residual_prefixes`: the ``xs[$k]`` prefixes of a ref indexed by a residual answer.
"""

from __future__ import annotations

from typing import Any

from jdsl.compiler.arguments import ArgChoice, path_names
from jdsl.expr import expression_paths

__all__ = ["exists_names", "guard_node", "node_names", "residual_prefixes"]


def guard_node(claim: dict[str, Any]) -> dict[str, Any] | None:
    """The IR node of a mined guard claim (None when the recorded expression is malformed)."""
    expression = claim.get("expression")
    if claim.get("type") == "guard_call":
        call = expression.get("call") if isinstance(expression, dict) else None
        args = expression.get("args") if isinstance(expression, dict) else None
        if not isinstance(call, str) or not isinstance(args, dict):
            return None
        if not all(_is_arg_spec(spec) for spec in args.values()):
            return None
        return {"kind": "guard_call", "predicate": call, "args": args}
    if claim.get("type") == "check":
        if not isinstance(expression, dict):
            return None
        try:
            ((left, right),) = [expression["eq"]]
            return {"kind": "check", "key": left["ref"], "equals": right["const"]}
        except (KeyError, TypeError, ValueError):
            return None
    return {"kind": "guard", "expression": expression} if isinstance(expression, dict) else None


def _is_arg_spec(spec: Any) -> bool:
    return isinstance(spec, dict) and (
        set(spec) == {"const"} or (set(spec) == {"ref"} and isinstance(spec["ref"], str))
    )


def node_names(node: dict[str, Any]) -> set[str]:
    if node["kind"] == "check":
        return path_names(node["key"])
    if node["kind"] == "guard_call":
        refs = [spec["ref"] for spec in node["args"].values() if "ref" in spec]
        return {name for path in refs for name in path_names(path)}
    return {name for path in expression_paths(node["expression"]) for name in path_names(path)}


def exists_names(expression: Any) -> set[str] | None:
    """``{"a", "b"}`` for ``exists(a) and exists(b)``; None for any other expression."""
    if not isinstance(expression, dict) or len(expression) != 1:
        return None
    if "and" in expression and isinstance(expression["and"], list):
        found: set[str] = set()
        for part in expression["and"]:
            names = exists_names(part)
            if names is None:
                return None
            found |= names
        return found
    target = expression.get("exists")
    path = target.get("ref") if isinstance(target, dict) else target
    return {path} if isinstance(path, str) else None


def residual_prefixes(choice: ArgChoice, residual_keys: set[str]) -> list[str]:
    """``orders[$selected_index]`` for a ref ``orders[$selected_index].id`` when
    ``selected_index`` is a residual output."""
    if choice.how not in ("dataflow", "selection") or not choice.source:
        return []
    path = choice.source
    found = []
    for key in sorted(residual_keys):
        marker = f"[${key}]"
        at = path.find(marker)
        if at >= 0:
            found.append(path[: at + len(marker)])
    return found
