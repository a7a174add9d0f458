"""Bind the tool and predicate names of a tree to callables in the notebook namespace.

A tree refers to tools (``act``, ``react tools=[...]``) and predicates (``guard_call``) by name;
the notebook binds each name to the callable of that name in the user namespace, or in a tool
collection the user points at. A missing name is an error listing the closest names.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jdsl.ir.walk import as_ir, walk_ir

__all__ = [
    "UnboundName",
    "bind_names",
    "closest_names",
    "collection_tools",
    "package_of",
    "package_root",
    "required_names",
]


class UnboundName(LookupError):
    """A name the tree needs that the namespace does not define (``kind`` tool or predicate)."""

    def __init__(self, name: str, kind: str, suggestions: list[str]) -> None:
        self.name = name
        self.kind = kind
        self.suggestions = suggestions
        hint = f"closest names: {', '.join(suggestions)}" if suggestions else "no similar names"
        super().__init__(
            f"{kind} {name!r} is not defined in the notebook ({hint}); define a function named "
            f"{name!r}, import it, or pass a dict/list of tools with --tools VAR"
        )


def required_names(tree: Any) -> tuple[list[str], list[str]]:
    """The tool names and predicate names a tree uses, each sorted and unique."""
    tools: set[str] = set()
    predicates: set[str] = set()
    for node in walk_ir(as_ir(tree)):
        if node.get("kind") == "action" and node.get("tool"):
            tools.add(str(node["tool"]))
        if node.get("kind") == "react":
            tools.update(str(t) for t in node.get("tools") or [])
        if node.get("kind") == "guard_call" and node.get("predicate"):
            predicates.add(str(node["predicate"]))
    return sorted(tools), sorted(predicates)


def _name_of(fn: Any) -> str:
    for attr in ("name", "__name__"):
        value = getattr(fn, attr, None)
        if isinstance(value, str) and value:
            return value
    return ""


def collection_tools(collection: Any) -> dict[str, Callable[..., Any]]:
    """``{name: callable}`` from a mapping of tools or an iterable of named callables."""
    if isinstance(collection, Mapping):
        return {str(k): v for k, v in collection.items() if callable(v)}
    if isinstance(collection, Iterable) and not isinstance(collection, str | bytes):
        return {_name_of(fn): fn for fn in collection if callable(fn) and _name_of(fn)}
    raise TypeError(f"expected a dict or list of tools, got {type(collection).__name__}")


def closest_names(name: str, namespace: Mapping[str, Any], limit: int = 5) -> list[str]:
    """The callable names in ``namespace`` most like ``name`` (difflib ratio)."""
    candidates = [k for k, v in namespace.items() if callable(v) and not k.startswith("_")]
    return difflib.get_close_matches(name, candidates, n=limit, cutoff=0.5)


def bind_names(
    tree: Any,
    namespace: Mapping[str, Any],
    extra: Mapping[str, Callable[..., Any]] | None = None,
    *,
    strict: bool = True,
) -> tuple[dict[str, Callable[..., Any]], dict[str, Callable[..., Any]]]:
    """The callables for every tool and predicate name of ``tree``.

    Args:
        tree: a tree or IR.
        namespace: the user namespace (``shell.user_ns``).
        extra: tools from a ``--tools`` collection; they win over the namespace.
        strict: raise on a missing name (else leave it out).

    Raises:
        UnboundName: a name that neither ``extra`` nor ``namespace`` defines as a callable.
    """
    lookup = {**{k: v for k, v in namespace.items() if callable(v)}, **(extra or {})}
    tool_names, predicate_names = required_names(tree)
    bound: tuple[dict[str, Callable[..., Any]], dict[str, Callable[..., Any]]] = ({}, {})
    for names, kind, into in (
        (tool_names, "tool", bound[0]),
        (predicate_names, "predicate", bound[1]),
    ):
        for name in names:
            if name in lookup:
                into[name] = lookup[name]
            elif strict:
                raise UnboundName(name, kind, closest_names(name, {**namespace, **(extra or {})}))
    return bound


def package_of(value: Any) -> Any:
    """The behavior package ``value`` is or holds (a compile result's ``.package``), else None."""
    if type(value).__name__ == "BehaviorPackage":
        return value
    package = getattr(value, "package", None)
    if type(package).__name__ == "BehaviorPackage":
        return package
    return None


def package_root(
    package: Any,
    namespace: Mapping[str, Any],
    extra: Mapping[str, Callable[..., Any]] | None = None,
) -> Any:
    """A runnable tree of ``package``: each required capability (and guard predicate) bound to
    the notebook callable of its name, or of its last dotted part (``retail.get_order`` ->
    ``get_order``); ``extra`` (``--tools``) wins.

    Raises:
        UnboundName: a capability or predicate with no callable of either name.
        jdsl.errors.PackageError: the package refuses the binding.
    """
    lookup = {**{k: v for k, v in namespace.items() if callable(v)}, **(extra or {})}

    def bound(names: list[str], kind: str) -> dict[str, Callable[..., Any]]:
        out: dict[str, Callable[..., Any]] = {}
        for name in names:
            short = name.rsplit(".", 1)[-1]
            found = lookup.get(name) or lookup.get(short)
            if found is None:
                raise UnboundName(short, kind, closest_names(short, lookup))
            out[name] = found
        return out

    tools = bound(list(package.required_capabilities), "tool")
    predicates = bound(list(package.required_predicates), "predicate")
    return package.as_root(tools, predicates or None)


def package_notes(package: Any, values: Mapping[str, Any], events: list[Any]) -> list[str]:
    """What a run of ``package`` should say besides its result (as ``jdsl package run`` does):
    the run inputs it lacks, and where its compiled program stopped and handed the run to the
    package's fallback (:func:`jdsl.compiler.fallback.takeover_note`, the CLI's wording)."""
    from jdsl.compiler.fallback import takeover_note

    notes = []
    missing = package.missing_inputs(values)
    if missing:
        notes.append(
            f"missing run inputs: {'; '.join(missing)}; the package's fallback takes the run "
            "where the compiled program needs them (give them with --input KEY=VALUE to run "
            "the compiled program)"
        )
    if (said := takeover_note(events)) is not None:
        notes.append(said)
    return notes
