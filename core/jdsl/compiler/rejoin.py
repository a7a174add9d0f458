"""Alternative lookups: runs that part at one read and rejoin (support per segment).

Runs of one family often differ at one small step and agree on the rest: one run finds the
user by email, another by name and zip, and both go on with ``get_user_details(user_id=<what
the lookup returned>)``. Two passes let the program be a selector at that step whose arms
rejoin into one continuation that every run supports:

* :func:`share_stores` (before consolidation): read-only tools that are *alternatives* (every
  call of each is read whole, right after, by the same argument of the same tool; no run calls
  two of them, or one twice) store their result under one shared key, so the continuation
  reads one key whichever way the run took (each episode's stores, sources, state, decision
  inputs and guard expressions are renamed alike);
* :func:`choice_tokens` (planning, :mod:`jdsl.compiler.staticize`): tools writing one shared
  key in that way become one token, ``one of A | B``, so paths are grouped (and their support
  counted) across the alternatives; the program shape makes the token a fork of one call per
  alternative, selected by the run inputs each reads, that rejoins at once
  (:mod:`jdsl.compiler.staticize.shape`). Only alternatives with ``min_support`` runs in the
  family join the token: an alternative one run took stays its own way (too thin to compile,
  handed over where it parts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jdsl.compiler.names import numbered
from jdsl.compiler.normalized import GuardObservation, ModelDecision, NormEpisode, NormStep
from jdsl.compiler.store import NormStore

__all__ = ["CHOICE", "choice_tokens", "choice_tools", "rename_stores", "share_stores"]

CHOICE = "one of "
"""How a choice token starts: ``one of find_user_id_by_email | find_user_id_by_name_zip``."""
_LINKS = frozenset({"by", "with", "for", "from", "of", "via", "using"})


def choice_tools(token: str) -> tuple[str, ...]:
    """The tools of a choice token (empty for any other token)."""
    return tuple(token[len(CHOICE) :].split(" | ")) if token.startswith(CHOICE) else ()


def _groups(
    episodes: Sequence[NormEpisode], read_only: Callable[[str], bool], *, shared: bool = False
) -> list[tuple[tuple[str, ...], tuple[str, str]]]:
    """``(alternative tools, (consumer tool, argument))`` per group of alternative lookups:
    each with its own store (``shared``: after :func:`share_stores`, one store for the group)."""
    feeds: dict[str, set[tuple[str, str] | None]] = {}
    stores: dict[str, set[str | None]] = {}
    writers: dict[str, set[str]] = {}
    for episode in episodes:
        ok = episode.ok_steps()
        for i, step in enumerate(ok):
            writers.setdefault(str(step.store), set()).add(step.logical_tool)
            stores.setdefault(step.logical_tool, set()).add(step.store)
            after = ok[i + 1] if i + 1 < len(ok) else None
            read = [a for a, p in (after.arg_lineage if after else {}).items() if p == step.store]
            feed = (
                (after.logical_tool, read[0]) if after and step.store and len(read) == 1 else None
            )
            feeds.setdefault(step.logical_tool, set()).add(feed)
    by_consumer: dict[tuple[str, str, str], list[str]] = {}
    for tool, found in feeds.items():
        (feed,) = found if len(found) == 1 else (None,)
        (store,) = stores[tool] if len(stores[tool]) == 1 else (None,)
        if feed is None or store is None or not read_only(tool):
            continue
        if not shared and writers[store] != {tool}:
            continue
        by_consumer.setdefault((*feed, store if shared else ""), []).append(tool)
    groups = []
    for (consumer, argument, store), tools in sorted(by_consumer.items()):
        if len(tools) < 2 or (shared and writers[store] != set(tools)):
            continue
        if all(sum(s.logical_tool in tools for s in e.ok_steps()) <= 1 for e in episodes):
            groups.append((tuple(sorted(tools)), (consumer, argument)))
    return groups


def _shared_name(tools: Sequence[str], argument: str, taken: set[str]) -> str:
    """The words the tools' names start with (``find_user_id_by_email``, ``..._by_name_zip``:
    ``find_user_id``) + ``_out``, else ``<argument>_out``; numbered when taken."""
    words = [t.split("_") for t in tools]
    common: list[str] = []
    for parts in zip(*words, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    while common and common[-1] in _LINKS:
        common.pop()
    return numbered(f"{'_'.join(common) or argument}_out", taken)


def share_stores(
    episodes: Sequence[NormEpisode], read_only: Callable[[str], bool]
) -> tuple[Sequence[NormEpisode], dict[str, str]]:
    """The episodes with each group of alternative lookups storing under one key (module
    docstring), and ``{old store: shared key}`` (empty: the episodes unchanged)."""
    pool = [e for e in episodes if e.success is not False]
    groups = _groups(pool, read_only)
    if not groups:
        return episodes, {}
    taken = {str(s.store) for e in episodes for s in e.steps} | {k for e in episodes
                                                                 for k in e.inputs}  # fmt: skip
    renames: dict[str, str] = {}
    for tools, (_, argument) in groups:
        shared = _shared_name(tools, argument, taken)
        taken.add(shared)
        for e in pool:
            for s in e.ok_steps():
                if s.logical_tool in tools and s.store:
                    renames[s.store] = shared
    rewritten = (_renamed(e, renames) for e in episodes)
    if isinstance(episodes, NormStore):
        return NormStore(rewritten), renames
    return list(rewritten), renames


def choice_tokens(
    episodes: Sequence[NormEpisode],
    read_only: Callable[[str], bool],
    min_support: int,
    peers: Sequence[NormEpisode] = (),
) -> dict[str, str]:
    """``{tool: choice token}`` for the alternative lookups (after :func:`share_stores`) that
    each have ``min_support`` successful episodes (module docstring). ``peers`` (successful
    runs of the corpus's other families) add support to an alternative the family took at
    least once: a peer run counts when it makes the same call whose result the same argument
    of the same tool reads right after; an alternative supported so needs runs of two tasks."""
    found: dict[str, str] = {}
    for tools, feed in _groups(episodes, read_only, shared=True):
        kept = [t for t in tools if _supported(t, feed, episodes, peers, min_support)]
        if len(kept) >= 2:
            token = CHOICE + " | ".join(kept)
            found.update(dict.fromkeys(kept, token))
    return found


def _supported(
    tool: str, feed: tuple[str, str], episodes: Sequence[NormEpisode],
    peers: Sequence[NormEpisode], min_support: int,
) -> bool:  # fmt: skip
    own = [e for e in episodes if any(s.logical_tool == tool for s in e.ok_steps())]
    if len(own) >= min_support or not own or not peers:
        return len(own) >= min_support
    runs = own + [e for e in peers if e.success is True and _feeds(e, tool, feed)]
    tasks = {e.metadata.get("task_id", e.episode_id) for e in runs}
    return len(runs) >= min_support and len(tasks) >= 2


def _feeds(episode: NormEpisode, tool: str, feed: tuple[str, str]) -> bool:
    """Whether ``episode`` calls ``tool`` and ``feed`` (tool, argument) reads its result whole
    right after."""
    ok = episode.ok_steps()
    return any(
        s.logical_tool == tool and s.store and ok[i + 1].logical_tool == feed[0]
        and ok[i + 1].arg_lineage.get(feed[1]) == s.store
        for i, s in enumerate(ok[:-1])
    )  # fmt: skip


def _path(path: str, renames: Mapping[str, str]) -> str:
    prefix = "blackboard." if path.startswith("blackboard.") else ""
    rest = path[len(prefix) :]
    for old, new in renames.items():
        if rest == old or rest.startswith((f"{old}.", f"{old}[")):
            return prefix + new + rest[len(old) :]
    return path


def _expression(value: Any, renames: Mapping[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: (_path(v, renames) if k == "ref" and isinstance(v, str)
                    else _expression(v, renames)) for k, v in value.items()}  # fmt: skip
    if isinstance(value, list):
        return [_expression(v, renames) for v in value]
    return value


def _step(step: NormStep, renames: Mapping[str, str]) -> NormStep:
    def paths(found: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_path(p, renames) for p in found)

    return dataclasses.replace(
        step,
        store=renames.get(step.store, step.store) if step.store else step.store,
        arg_lineage={a: _path(p, renames) for a, p in step.arg_lineage.items()},
        arg_sources={a: paths(ps) for a, ps in step.arg_sources.items()},
        state_before={renames.get(k, k): v for k, v in step.state_before.items()},
        element_sources={a: tuple(paths(ps) for ps in per) for a, per in
                         step.element_sources.items()},
        list_sources={a: tuple(dataclasses.replace(s, head=_path(s.head, renames)) for s in ls)
                      for a, ls in step.list_sources.items()},
    )  # fmt: skip


def _decision(d: ModelDecision, renames: Mapping[str, str]) -> ModelDecision:
    if not d.input_sources:
        return d
    sources = {k: _path(v, renames) for k, v in d.input_sources.items()}
    return dataclasses.replace(d, input_sources=sources)


def _guard(g: GuardObservation, renames: Mapping[str, str]) -> GuardObservation:
    values = {_path(k, renames): v for k, v in g.values.items()}
    return dataclasses.replace(g, expression=_expression(g.expression, renames), values=values)


def _renamed(episode: NormEpisode, renames: Mapping[str, str]) -> NormEpisode:
    if not any(s.store in renames for s in episode.steps):
        return episode
    return dataclasses.replace(
        episode,
        steps=tuple(_step(s, renames) for s in episode.steps),
        decisions=tuple(_decision(d, renames) for d in episode.decisions),
        guards=tuple(_guard(g, renames) for g in episode.guards),
    )


def rename_stores(episode: NormEpisode, renames: Mapping[str, str]) -> NormEpisode:
    """``episode`` with the stores ``renames`` names renamed everywhere (stores, sources, state,
    decision inputs, guard expressions)."""
    return _renamed(episode, renames) if renames else episode
