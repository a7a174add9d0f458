"""No-op tools: calls that change nothing and whose result nothing uses are not compiled.

A call is a no-op when its capability is read-only (its contract in ``effects``, else
:func:`jdsl.package.default_effects`) and, in every episode of the family, every call of it
succeeded (a failed call is a recovery's evidence), answered nothing (``None`` or ``""``:
``think``'s scratchpad; an empty list is an answer, e.g. no flights found) and no argument,
guard or model input of the episode reads its result. Such a call (a scratchpad) would compile
to a step with a model-chosen argument that held-out runs cannot replay; :func:`drop_noops`
removes it from the episodes before consolidation, renumbering the remaining calls, the
decisions and the guards, and says which tools it dropped (the compile report's notes).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.families import is_write
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.store import NormStore

__all__ = ["drop_noops", "noop_tools", "without_steps"]


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
    return without_steps(episode, drop) if drop else episode


def without_steps(episode: NormEpisode, drop: set[int]) -> NormEpisode:
    """``episode`` without its steps numbered (``index``) in ``drop``: the remaining calls,
    the decisions, the guards and the agent's replies renumbered. The dropped calls are kept
    aside (``NormEpisode.dropped``, numbered as the call that followed them) so that replay
    still answers a read the compiled program makes that this run made to no use."""
    gone: list[int] = []  # the positions of the dropped successful calls
    steps: list[NormStep] = []
    aside: list[NormStep] = []
    position = 0
    for i, step in enumerate(episode.steps):
        if i in drop:
            aside.append(dataclasses.replace(step, index=len(steps), position=None))
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
        replies=tuple((moved(at), text) for at, text in episode.replies),
        dropped=(*episode.dropped, *aside),
    )  # fmt: skip
