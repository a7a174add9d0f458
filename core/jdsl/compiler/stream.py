"""Streaming compile: episodes read, checked and normalized one at a time.

The per-episode passes are a pure map (:func:`map_episode`): check the episode's hash chain,
read it as records (blob values loaded), normalize it. What later passes need of an episode is
its :class:`~jdsl.compiler.normalized.NormEpisode`, kept compressed in a
:class:`~jdsl.compiler.store.NormStore` (under 1 kB each), so a corpus streamed from JSONL
files (:func:`jdsl.trace.iter_episodes`) is compiled without ever holding its events, nor all
its normalized episodes as objects.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jdsl.compiler.errors import CompileError, CompileInputError
from jdsl.compiler.events import as_records
from jdsl.compiler.normalize import normalize_episode
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.store import NormStore
from jdsl.errors import preview
from jdsl.trace import Episode, SkippedLines, TraceEvent, iter_episodes, verify_chain

__all__ = [
    "EpisodeSource",
    "chain_problems",
    "episodes_from",
    "leave_out_torn",
    "map_episode",
    "normalize_stream",
    "paused_gc",
    "refuse_broken",
]

EpisodeSource = Iterable[Any] | str | os.PathLike[str]
"""Episodes (any form :func:`~jdsl.compiler.events.as_records` reads), or a JSONL trace path,
or an iterable of paths."""


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a pass allocates many small acyclic objects.

    Full collections rescan every live object (the loaded traces included), which made
    compile time grow faster than the number of episodes; reference counting still frees
    everything the passes drop. The collector's previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def episodes_from(source: EpisodeSource, *, strict: bool = True) -> Iterable[Any]:
    """``source`` as an iterable of episodes: paths are streamed with
    :func:`jdsl.trace.iter_episodes`, anything else is returned as it is.

    Raises:
        CompileInputError: ``source`` is none of the forms (``None``, a number, one episode
            or mapping given alone, bytes).
    """
    if isinstance(source, str | os.PathLike):
        return iter_episodes(source, strict=strict)
    if (
        source is None
        or isinstance(source, bytes | Mapping | Episode)
        or not isinstance(source, Iterable)
    ):
        alone = " (put one episode in a list)" if isinstance(source, Mapping | Episode) else ""
        raise CompileInputError(
            f"cannot compile {preview(source)}{alone}: pass episodes (jdsl.trace.Episode s, "
            "{'episode_id', 'events'} mappings, or an iterable of them), a JSONL trace path, "
            "or a list of trace paths"
        )
    items = source if isinstance(source, list | tuple) else None
    if items and all(isinstance(p, str | os.PathLike) for p in items):
        return iter_episodes([Path(p) for p in items], strict=strict)
    return source


def map_episode(
    episode: Any, *, canonical: Mapping[str, str] | None = None, check_chain: bool = True
) -> NormEpisode | None:
    """The per-episode passes: chain check, records (blob values loaded), normalize.

    Returns:
        The normalized episode, or None for a control episode (id starting ``_``).

    Raises:
        CompileError: ``check_chain`` and the episode's hash chain is broken.
    """
    if check_chain:
        refuse_broken(episode)
    records = as_records(episode)
    if records.episode_id.startswith("_"):
        return None
    return normalize_episode(records, canonical=canonical)


def normalize_stream(
    episodes: Iterable[Any],
    *,
    canonical: Mapping[str, str] | None = None,
    check_chain: bool = True,
) -> NormStore:
    """:func:`map_episode` over ``episodes`` as they come; only the normalized ones are kept,
    compressed in a :class:`~jdsl.compiler.store.NormStore`.

    Raises:
        CompileError: the first episode whose hash chain is broken (``check_chain``).
    """
    out = NormStore()
    with paused_gc():
        for episode in episodes:
            normalized = map_episode(episode, canonical=canonical, check_chain=check_chain)
            if normalized is not None:
                out.append(normalized)
    return out


def chain_problems(episode: Any) -> list[str]:
    """The hash-chain problems of one episode (only stamped events are checked)."""
    if isinstance(episode, Episode):
        return episode.verify() if any(e.event_hash for e in episode.events) else []
    events = episode.get("events", ()) if isinstance(episode, Mapping) else ()
    events = getattr(episode, "events", events)
    stamped = [e for e in events if isinstance(e, TraceEvent) and e.event_hash]
    return verify_chain(stamped) if stamped else []


def leave_out_torn(
    episodes: Iterable[Episode], skipped: SkippedLines | None, left: list[str]
) -> Iterator[Episode]:
    """``episodes``, less those whose hash chain is broken once a line was skipped (a torn
    line was one of their events; their ids appended to ``left``). A file's lines are all read
    before its first episode comes, so the count is that of the files read so far. ``jdsl
    compile --skip-bad-lines`` reads with it, on either engine."""
    for episode in episodes:
        if skipped is not None and skipped.counts and chain_problems(episode):
            left.append(episode.episode_id)
            continue
        yield episode


def refuse_broken(episode: Any) -> None:
    """Raise when the episode's hash chain is broken.

    Raises:
        CompileError: naming the episode and its first problem.
    """
    problems = chain_problems(episode)
    if problems:
        eid = str(getattr(episode, "episode_id", "episode"))
        raise CompileError(
            f"episode {eid!r}: the trace's hash chain is broken ({problems[0]}); "
            "compile the trace as it was recorded, or pass allow_broken_chain=True "
            "to compile edited events on purpose",
            episodes=[eid],
            problems=problems,
        )
