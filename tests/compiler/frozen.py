"""What no compiled package may freeze (issue 24, "positions are choices", "constants need
reasons"): :func:`frozen_problems` lists, for one compiled behavior and the episodes it was
compiled from, each constant that is an identifier, a list of strings, or a value a tool
returned or the user stated, and each ref of a write (or of a loop's list) that picks a list
element by a fixed position or names a value by a data dict key. ``conftest.py`` runs it on
every package the tests in this folder and ``tests/demo`` compile (:func:`checking_packages`)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from jdsl.compiler.arguments import frozen_key, looks_like_id, stable_key
from jdsl.compiler.families import is_write
from jdsl.ir.nodes import child_slots

_FIXED = re.compile(r"\[\d+\]")


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for child in child_slots(node):
            yield from _nodes(child)


def _traced(episodes: Sequence[Any]) -> set[str]:
    """The values some call argument of ``episodes`` had an exact source for, or the user said."""
    found: set[str] = set()
    for e in episodes:
        for s in e.steps:
            for arg, value in s.arguments.items():
                if s.arg_sources.get(arg) or arg in s.stated_args:
                    found.add(stable_key(value))
    return found


def frozen_problems(
    ir: Mapping[str, Any], episodes: Sequence[Any], effects: Mapping[str, Any] | None = None
) -> list[str]:
    """Each frozen name, id or list position in ``ir`` (module docstring); [] when none."""
    problems: list[str] = []
    traced: set[str] | None = None
    for node in _nodes(ir.get("root")):
        if node.get("kind") == "for_each" and _FIXED.search(str(node.get("items", ""))):
            problems.append(f"{node.get('id')}: loops over a fixed position {node['items']}")
        if node.get("kind") != "action":
            continue
        tool = str(node["tool"])
        for arg, spec in (node.get("args") or {}).items():
            if not isinstance(spec, dict):
                continue
            where = f"{tool}.{arg}"
            if "const" in spec:
                value = spec["const"]
                if traced is None:
                    traced = _traced(episodes)
                if looks_like_id(value) or (
                    isinstance(value, list) and any(isinstance(v, str) for v in value)
                ):
                    problems.append(f"{where} = {value!r}: an identifier or list of ids frozen")
                elif stable_key(value) in traced:
                    problems.append(f"{where} = {value!r}: a value a tool returned or a user said")
            elif "ref" in spec and is_write(tool, effects):
                path = str(spec["ref"])
                if _FIXED.search(path):
                    problems.append(f"{where} = {path}: a write at a fixed list position")
                if frozen_key(path, None):
                    problems.append(f"{where} = {path}: a data dict key frozen in the path")
    return problems


@contextmanager
def checking_packages() -> Iterator[None]:
    """While open, every package :func:`jdsl.compiler.compile_normalized` builds is checked
    (an ``AssertionError`` naming what it freezes)."""
    import jdsl.compiler.pipeline as pipeline

    build = pipeline.build_package

    def checked(compiled: Any, report: Any, candidates: Any, episodes: Any, **kw: Any) -> Any:
        problems = frozen_problems(compiled.ir, episodes, kw.get("effects"))
        assert not problems, f"package {compiled.name!r} freezes: {problems}"
        return build(compiled, report, candidates, episodes, **kw)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "build_package", checked)
        yield
