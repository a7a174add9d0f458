"""What a loop's selection residual answered in a recorded run (:mod:`jdsl.compiler.decisions`).

A loop over selected elements ``for_each x in xs[$key]`` (:mod:`jdsl.compiler.staticize.looping`)
is answered, in replay, with the indexes of the elements the run's calls took. A scan (its
answer guarded ``xs[$key] prefix_of xs``) reads elements 0, 1, ...: its run starts at the first
element, so a run that read another element of the list just before (item 3, then items 0, 1)
made that call on its own, not as part of the scan (as the compile split it,
:func:`jdsl.compiler.staticize.loops.compress`). A run whose calls of a selection loop are
split by reads (cancel one, read others, cancel another) made one selection's calls, unless the
tree has a loop for each stretch (:func:`_runs`). A read repeated with the same arguments right
after itself (a weak model reading ``orders[1]`` twice) is one read (:func:`_again`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from jdsl.compiler.lineage import element_index
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.ir.walk import walk_ir
from jdsl.package import default_effects

__all__ = ["loop_selections", "skips_scan"]

_SELECTED = re.compile(r"^(?P<head>.+)\[\$(?P<key>[A-Za-z_][A-Za-z0-9_]*)\]$")


def _walk(node: Any) -> list[dict[str, Any]]:
    return list(walk_ir(node)) if isinstance(node, dict) else []


def _scans(nodes: Sequence[dict[str, Any]]) -> set[str]:
    """The ``items`` of the loops whose selection a ``prefix_of`` guard holds to a prefix."""
    found = set()
    for node in nodes:
        expression = node.get("expression") if node.get("kind") == "guard" else None
        pair = expression.get("prefix_of") if isinstance(expression, dict) else None
        if isinstance(pair, list) and pair and isinstance(pair[0], dict):
            found.add(str(pair[0].get("ref")))
    return found


def loop_selections(
    nodes: Sequence[dict[str, Any]], episode: NormEpisode, reached: set[str] | None = None
) -> dict[str, Any]:
    """``{key: indexes}`` for each loop over selected elements ``for_each x in xs[$key]``
    whose child calls a tool with an argument ``x<tail>``: the index in ``xs`` of each call of
    that loop's run in the episode (what the residual that selects answered). The calls of a
    tool whose argument is ``xs[k]<tail>`` form runs (consecutive successful calls of it); the
    n-th such loop of a tool in the tree (pre-order) takes the n-th run; with ``reached`` (the
    run's path, :func:`jdsl.compiler.decisions._reached`), among the loops the run reaches only."""
    found: dict[str, Any] = {}
    seen: dict[str, int] = {}  # tool -> loops of it so far
    scans = _scans(nodes)
    loops = _loops_of(nodes, reached)
    for node in nodes:
        match = (
            _SELECTED.match(str(node.get("items", ""))) if node.get("kind") == "for_each" else None
        )
        if match is None or match["key"] in found:
            continue
        inside = {str(n.get("id") or "") for n in _walk(node.get("child"))}
        if reached is not None and not inside & reached:
            continue
        looped = _looped(node, match["head"], match["key"])
        if looped is None:
            continue
        tool, arg, path = looped
        runs = _runs(episode.ok_steps(), tool, arg, path, match["key"],
                     scan=node.get("items") in scans, loops=loops.get(tool, 1))  # fmt: skip
        n = seen[tool] = seen.get(tool, -1) + 1
        found[match["key"]] = runs[n] if n < len(runs) else []
    return found


def _loops_of(nodes: Sequence[dict[str, Any]], reached: set[str] | None) -> dict[str, int]:
    """``{tool: how many selection loops over it the tree has}`` (among those the run reaches,
    with ``reached``)."""
    count: dict[str, int] = {}
    for node in nodes:
        match = (
            _SELECTED.match(str(node.get("items", ""))) if node.get("kind") == "for_each" else None
        )
        if match is None:
            continue
        if (
            reached is not None
            and not {str(n.get("id") or "") for n in _walk(node.get("child"))} & reached
        ):
            continue
        looped = _looped(node, match["head"], match["key"])
        if looped is not None:
            count[looped[0]] = count.get(looped[0], 0) + 1
    return count


def skips_scan(
    node: dict[str, Any], nodes: Sequence[dict[str, Any]], step: NormStep
) -> bool | None:
    """For a scan ``for_each x in xs[$key]`` (guarded ``xs[$key] prefix_of xs`` among
    ``nodes``): whether the run's call at ``step``, where the loop would start, does not take
    the list's first element (a run that read ``orders[1]`` directly did not scan); None for
    any other node."""
    match = _SELECTED.match(str(node.get("items", ""))) if node.get("kind") == "for_each" else None
    if match is None or node.get("items") not in _scans(nodes):
        return None
    looped = _looped(node, match["head"], match["key"])
    if looped is None:
        return None
    tool, arg, path = looped
    taken = element_index(path, step.arg_sources.get(arg, ())).get(match["key"])
    return step.logical_tool != tool or taken != 0


def _looped(node: dict[str, Any], head: str, key: str) -> tuple[str, str, str] | None:
    """``(tool, argument, xs[$key]<tail>)`` of the first call in a loop's child whose argument
    reads the loop's element (``x<tail>``), or None."""
    item = str(node.get("item"))
    for action in _walk(node.get("child")):
        if action.get("kind") != "action":
            continue
        for arg, spec in (action.get("args") or {}).items():
            ref = str(spec.get("ref", "")) if isinstance(spec, dict) else ""
            tail = ref[len(item) :]
            if ref.startswith(item) and (not tail or tail[0] in ".["):
                return str(action.get("tool")), arg, f"{head}[${key}]{tail}"
    return None


def _runs(
    steps: Sequence[NormStep], tool: str, arg: str, path: str, key: str, *, scan: bool = False,
    loops: int = 1,
) -> list[list[int]]:  # fmt: skip
    """The element indexes of each run of consecutive calls of ``tool`` whose ``arg`` is an
    element of the list ``path`` selects from; with ``scan``, split as scans
    (:func:`_scan_parts`). Else, while there are more runs than the tree's ``loops`` of the
    tool, two runs with only reads between are one (reads are free: a run that cancelled one
    reservation, read others, then cancelled another made one selection's writes)."""
    runs: list[list[int]] = []
    free: list[bool] = []  # per run after the first: only reads between it and the one before
    last = -2
    for at, step in enumerate(steps):
        if step.logical_tool != tool:
            continue
        k = element_index(path, step.arg_sources.get(arg, ())).get(key)
        if k is None:
            continue
        if at == last + 1 and _again(steps[last], step):
            last = at  # a repeated identical read is one read
            continue
        if at != last + 1 or not runs:
            if runs:
                free.append(all(default_effects(s.logical_tool).read_only
                                for s in steps[last + 1 : at]))  # fmt: skip
            runs.append([])
        runs[-1].append(k)
        last = at
    if scan:
        return [part for run in runs for part in _scan_parts(run)]
    while len(runs) > loops and any(free):
        i = free.index(True)
        runs[i : i + 2] = [runs[i] + runs[i + 1]]
        del free[i]
    return runs


def _again(before: NormStep, step: NormStep) -> bool:
    """Whether ``step`` repeats the read just before it (same tool, same arguments): nothing
    changed state in between, so it read the same thing again."""
    return (
        step.logical_tool == before.logical_tool
        and step.arguments == before.arguments
        and default_effects(step.logical_tool).read_only
    )


def _scan_parts(run: list[int]) -> list[list[int]]:
    """A stretch of calls as scans: a new scan at each element 0; the calls before the first
    one, when there is one, were calls of their own (not answered here)."""
    parts: list[list[int]] = []
    for k in run:
        if not parts or k == 0:
            parts.append([])
        parts[-1].append(k)
    return parts[1:] if len(parts) > 1 and parts[0][0] != 0 else parts
