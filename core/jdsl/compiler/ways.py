"""Which way of a compiled selector a recorded run took, beyond its first call: how far the
run went on making an alternative's calls (:func:`agreement`, over calls with repeats collapsed:
a loop's calls read as one), and the guard that never holds where a program hands over
(:func:`never_holds`). :mod:`jdsl.compiler.decisions` breaks ties between alternatives whose
first call is the same call of the run with them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from jdsl.ir.walk import walk_ir

__all__ = ["agreement", "collapsed", "collapsed_positions", "never_holds"]


def collapsed(tools: Iterable[str]) -> list[str]:
    """``tools`` with immediate repeats collapsed (a loop's calls read as one)."""
    found: list[str] = []
    for tool in tools:
        if not found or found[-1] != tool:
            found.append(tool)
    return found


def collapsed_positions(at: Mapping[str, list[int]]) -> dict[int, int]:
    """``{call position: its position once repeats are collapsed}`` of the run's calls."""
    order = sorted((p, tool) for tool, ps in at.items() for p in ps)
    found, n, last = {}, -1, None
    for p, tool in order:
        if tool != last:
            n, last = n + 1, tool
        found[p] = n
    return found


def agreement(alternative: Mapping[str, Any], tools: Sequence[str], start: int) -> int:
    """How many of the alternative's calls (pre-order, repeats collapsed) the run made in
    that order from its call ``start`` on (repeats collapsed)."""
    own = collapsed(str(n["tool"]) for n in walk_ir(alternative) if n.get("kind") == "action")
    made = list(tools[start:])
    n = 0
    while n < min(len(own), len(made)) and own[n] == made[n]:
        n += 1
    return n


def never_holds(node: Mapping[str, Any]) -> bool:
    """A guard comparing two different constants: where the program hands over."""
    if node.get("kind") != "guard":
        return False
    pair = (node.get("expression") or {}).get("eq")
    return (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, dict) and "const" in p
            for p in pair) and pair[0]["const"] != pair[1]["const"])  # fmt: skip
