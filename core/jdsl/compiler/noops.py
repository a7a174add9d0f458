"""No-op tools: calls that change nothing and whose result nothing uses are not compiled.

A call is a no-op when its capability is read-only (its contract in ``effects``, else
:func:`jdsl.package.default_effects`) and, in every episode of the family, every call of it
succeeded (a failed call is a recovery's evidence), answered nothing (``None`` or ``""``:
``think``'s scratchpad; an empty list is an answer, e.g. no flights found) and no argument,
guard or model input of the episode reads its result. Such a call (a scratchpad) would compile
to a step with a model-chosen argument that held-out runs cannot replay; :func:`drop_noops`
removes it from the episodes before consolidation, renumbering the remaining calls, the
decisions and the guards, and says which tools it dropped (the compile report's notes).

Reads are free: :func:`drop_unused_reads` removes, per episode, each successful read-only call
whose result nothing after it depends on. A later consumer is any of: an argument of a call
that is kept (its exact sources, element and list sources, lineage), a guard the teacher
evaluated, the inputs of a model decision (a residual signature's or a route's), a value a
model wrote that mentions a string of the result (a summary naming the reservation), and a list
the result was collected into that something consumes. It runs backwards, so a read only a
dropped read depended on is dropped too. Failed calls stay (a recovery's evidence) and consume
like the others.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.arguments import path_names
from jdsl.compiler.families import is_write
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.store import NormStore

__all__ = ["drop_noops", "drop_unused_reads", "noop_tools", "unused_reads"]


def _top(path: str) -> str:
    return path.split(".", 1)[0].split("[", 1)[0]


def _used_keys(episode: NormEpisode) -> set[str]:
    """The top-level state keys any argument, guard or model input of ``episode`` reads."""
    used: set[str] = set()
    for step in episode.steps:
        for paths in step.arg_sources.values():
            used.update(_top(p) for p in paths)
        for elements in step.element_sources.values():
            used.update(_top(p) for paths in elements for p in paths)
        for sources in step.list_sources.values():
            used.update(_top(s.head) for s in sources)
        used.update(_top(p) for p in step.arg_lineage.values())
    texts = [json.dumps(g.expression, default=str) for g in episode.guards]
    texts += [json.dumps(d.input_sources or {}, default=str) for d in episode.decisions]
    return used | {f"\0{t}" for t in texts}


def _reads(key: str | None, used: set[str]) -> bool:
    if key is None:
        return False
    return key in used or any(key in t for t in used if t.startswith("\0"))


def noop_tools(
    episodes: Sequence[NormEpisode], effects: Mapping[str, Any] | None = None
) -> tuple[str, ...]:
    """The no-op tools of ``episodes`` (module docstring), sorted."""
    seen: set[str] = set()
    kept: set[str] = set()
    for episode in episodes:
        used = _used_keys(episode)
        for step in episode.steps:
            tool = step.logical_tool
            seen.add(tool)
            if tool in kept:
                continue
            answered = step.result not in (None, "")
            if not step.ok or is_write(tool, effects) or answered or _reads(step.store, used):
                kept.add(tool)
    return tuple(sorted(seen - kept))


def drop_noops(
    episodes: Sequence[NormEpisode], effects: Mapping[str, Any] | None = None
) -> tuple[Sequence[NormEpisode], tuple[str, ...]]:
    """``(episodes without their no-op calls, the no-op tools)``; ``episodes`` itself when
    there is none (a :class:`~jdsl.compiler.store.NormStore` stays one)."""
    tools = noop_tools(episodes, effects)
    if not tools:
        return episodes, ()
    dropped = frozenset(tools)
    rewritten = (_without(e, dropped) for e in episodes)
    if isinstance(episodes, NormStore):
        return NormStore(rewritten), tools
    return list(rewritten), tools


def _without(episode: NormEpisode, tools: frozenset[str]) -> NormEpisode:
    drop = {i for i, s in enumerate(episode.steps) if s.logical_tool in tools}
    return _dropping(episode, drop) if drop else episode


def _dropping(episode: NormEpisode, drop: set[int]) -> NormEpisode:
    """``episode`` without its steps numbered in ``drop``; positions renumbered."""
    gone: list[int] = []  # the positions of the dropped successful calls
    steps: list[NormStep] = []
    position = 0
    for i, step in enumerate(episode.steps):
        if i in drop:
            if step.ok:
                gone.append(position)
                position += 1
            continue
        new = step.position if step.position is None else step.position - len(gone)
        steps.append(dataclasses.replace(step, index=len(steps), position=new))
        position += step.ok

    def moved(at: int) -> int:
        return at - sum(1 for g in gone if g < at)

    return dataclasses.replace(
        episode,
        steps=tuple(steps),
        decisions=tuple(dataclasses.replace(d, position=moved(d.position))
                        for d in episode.decisions),
        guards=tuple(dataclasses.replace(g, position=moved(g.position)) for g in episode.guards),
    )  # fmt: skip


def _refs(value: Any, found: set[str]) -> set[str]:
    """The top-level keys the ``{"ref": path}`` s inside a guard expression read."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "ref" and isinstance(item, str):
                found |= path_names(item)
            else:
                _refs(item, found)
    elif isinstance(value, list):
        for item in value:
            _refs(item, found)
    return found


def _reads_of(step: NormStep) -> set[str]:
    """The top-level keys one call's arguments read (any of their exact sources)."""
    found: set[str] = set()
    for paths in step.arg_sources.values():
        found.update(_top(p) for p in paths)
    for elements in step.element_sources.values():
        found.update(_top(p) for paths in elements for p in paths)
    for sources in step.list_sources.values():
        found.update(_top(s.head) for s in sources)
    found.update(_top(p) for p in step.arg_lineage.values())
    return found


def _written(step: NormStep) -> list[str]:
    """JSON texts of the arguments a model wrote that no exact source explains."""
    return [json.dumps(v, ensure_ascii=False, default=str) for a, v in step.arguments.items()
            if not step.arg_sources.get(a) and not step.list_sources.get(a)]  # fmt: skip


def _strings(value: Any, limit: int = 500) -> list[str]:
    """Up to ``limit`` strings of four or more characters inside ``value``."""
    found: list[str] = []
    stack = [value]
    while stack and len(found) < limit:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) >= 4:
                found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def unused_reads(episode: NormEpisode, effects: Mapping[str, Any] | None = None) -> set[int]:
    """The indexes (in ``episode.steps``) of the successful read-only calls whose result
    nothing after them depends on (module docstring)."""
    steps = episode.steps
    ok_index = [i for i, s in enumerate(steps) if s.ok]
    later: list[tuple[int, set[str]]] = sorted(
        [(g.position, _refs(g.expression, set())) for g in episode.guards]
        + [(d.position, {k for p in (d.input_sources or {}).values()
                         for k in path_names(str(p).removeprefix("blackboard."))})
           for d in episode.decisions],
        key=lambda item: item[0],
    )  # fmt: skip
    used: set[str] = set()
    texts: list[str] = []
    final = steps[-1].state_before if steps else {}
    drop: set[int] = set()
    position = len(ok_index)
    for i in range(len(steps) - 1, -1, -1):
        step = steps[i]
        if step.ok:
            position -= 1
            while later and later[-1][0] > position:
                used |= later.pop()[1]
        key = step.store
        if (
            step.ok and key and key not in used and not is_write(step.logical_tool, effects)
            and not _mentioned(step.result, texts) and not _collected(step.result, used, final)
        ):  # fmt: skip
            drop.add(i)
            continue
        used |= _reads_of(step)
        texts += _written(step)
    return drop


def _mentioned(result: Any, texts: Sequence[str]) -> bool:
    return bool(texts) and any(v in t for v in _strings(result) for t in texts)


def _collected(result: Any, used: set[str], state: Mapping[str, Any]) -> bool:
    """Whether ``result`` is an element of a list under a consumed key (a loop's collect)."""
    if result is None:
        return False
    return any(isinstance(state.get(k), list) and result in state[k] for k in used)


def drop_unused_reads(
    episodes: Sequence[NormEpisode], effects: Mapping[str, Any] | None = None
) -> tuple[Sequence[NormEpisode], dict[str, int]]:
    """``(episodes without their unused reads, {tool: calls dropped})``; ``episodes`` itself
    when there is none (a :class:`~jdsl.compiler.store.NormStore` stays one)."""
    found = [(e, unused_reads(e, effects)) for e in episodes]
    counts: dict[str, int] = {}
    for e, drop in found:
        for i in drop:
            counts[e.steps[i].logical_tool] = counts.get(e.steps[i].logical_tool, 0) + 1
    if not counts:
        return episodes, {}
    rewritten = (_dropping(e, drop) if drop else e for e, drop in found)
    if isinstance(episodes, NormStore):
        return NormStore(rewritten), dict(sorted(counts.items()))
    return list(rewritten), dict(sorted(counts.items()))
