"""Fixed positions: no compiled write takes an argument from a fixed element of a list a run
chose from (issue 24, "positions are choices").

A program compiled from one run that cancelled ``user.reservations[1]`` matches that run, so
replay and execution pass it; a user whose reservation to cancel is another would have the
wrong one cancelled. :func:`fixed_positions` is the verification check
(:func:`jdsl.compiler.verify.verify`) that refuses it: an argument of a write (a capability
whose effects are not read-only) whose ref reads ``<list>[k]`` with a literal ``k``, where
``<list>`` held two or more elements in a run (so the run chose among them); a read whose
argument does so when a write's argument reads the read's result (the position picks what
the write acts on); and a write in a loop over a list at such a position
(``for_each flight in user.reservations[2].flights``). The compiler writes such positions as selections (``[$k]``), loops or
guards; a list that held one element in every run is no choice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from jdsl.compiler.fallback import compiled_program
from jdsl.compiler.normalized import NormEpisode
from jdsl.expr import resolve_path
from jdsl.ir.walk import walk_ir

__all__ = ["fixed_positions"]

_LITERAL = re.compile(r"\[(\d+)\]")
_TOP = re.compile(r"[^.\[]+")


def _refs(spec: Any) -> Iterator[str]:
    """Every ``ref`` path in an argument spec (nested specs included)."""
    stack = [spec]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if isinstance(item.get("ref"), str):
                yield item["ref"]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _lists(path: str) -> list[str]:
    """The lists a path indexes at a literal position (``a.xs[1].ys[0]``: ``a.xs``,
    ``a.xs[1].ys``)."""
    return [path[: m.start()] for m in _LITERAL.finditer(path)]


def _top(path: str) -> str:
    found = _TOP.match(path)
    return found.group(0) if found else path


def fixed_positions(
    ir: Mapping[str, Any],
    episodes: Sequence[NormEpisode],
    read_only: Callable[[str], bool],
) -> tuple[str, ...]:
    """The problems of ``ir``'s writes fed by a fixed list position (module docstring)."""
    program = list(walk_ir(compiled_program(dict(ir))["root"]))
    actions = [n for n in program
               if n.get("kind") == "action" and isinstance(n.get("tool"), str)]  # fmt: skip
    fixed: list[tuple[Mapping[str, Any], str, str]] = []  # (node, argument, path)
    for node in actions:
        for argument, spec in (node.get("args") or {}).items():
            fixed += [(node, argument, p) for p in _refs(spec) if _LITERAL.search(p)]
    for loop in program:  # a write in a loop over a fixed element's list: the loop's element
        items = loop.get("items") if loop.get("kind") == "for_each" else None
        if isinstance(items, str) and _LITERAL.search(items):
            fixed += [(n, str(loop.get("item")), items) for n in walk_ir(loop)
                      if n.get("kind") == "action" and isinstance(n.get("tool"), str)
                      and not read_only(n["tool"])][:1]  # fmt: skip
    if not fixed:
        return ()
    fed = {  # the stores a write's arguments read
        _top(p) for n in actions if not read_only(n["tool"])
        for spec in (n.get("args") or {}).values() for p in _refs(spec)
    }  # fmt: skip
    found: list[str] = []
    for node, argument, path in fixed:
        write = not read_only(node["tool"])
        if not write and node.get("store") not in fed:
            continue
        for head in _lists(path):
            most = _longest(head, episodes)
            if most < 2:
                continue
            what = "write" if write else f"read (its result {node.get('store')} feeds a write)"
            found.append(
                f"{what} {node['tool']} (node {node.get('id')}) takes {argument} from a fixed "
                f"position {path}, of a list a run chose from ({head} held {most} elements): "
                "a position is a choice, compile it as a selection ([$index]), a loop or a guard"
            )
            break
    return tuple(found)


def _longest(head: str, episodes: Sequence[NormEpisode]) -> int:
    """The most elements the list at ``head`` held before any successful call of a run."""
    most = 0
    for episode in episodes:
        for step in episode.steps:
            items = resolve_path(head, {**episode.inputs, **step.state_before})
            if isinstance(items, list):
                most = max(most, len(items))
    return most
