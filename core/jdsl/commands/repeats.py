"""Runs given twice: the same episode in two trace files (files that overlap, a copy of one)
is one run, counted once under one note; one episode id with two different contents is an
error (:class:`RepeatedEpisodeError`). ``jdsl compile``, ``jdsl package validate`` and
``jdsl show --diff`` read their traces through :func:`distinct_episodes`."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import typer

from jdsl.errors import JdslError
from jdsl.trace import Episode

__all__ = ["RepeatedEpisodeError", "distinct_episodes", "note_repeats", "refuse_repeated_ids"]


class RepeatedEpisodeError(JdslError):
    """Two trace files hold one episode id with different events: two runs under one id, or
    one run edited; which is the evidence cannot be told."""


def _fingerprint(episode: Episode) -> str:
    text = "\n".join(event.to_json() for event in episode.ordered())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def distinct_episodes(episodes: Iterable[Episode], repeats: list[str]) -> Iterator[Episode]:
    """``episodes`` with each one given again (same id, same events) left out and its id
    appended to ``repeats`` (:func:`note_repeats` says how many, once).

    Raises:
        RepeatedEpisodeError: an id comes again with other events.
    """
    seen: dict[str, str] = {}
    for episode in episodes:
        digest = _fingerprint(episode)
        before = seen.setdefault(episode.episode_id, digest)
        if before is digest:
            yield episode
        elif before == digest:
            repeats.append(episode.episode_id)
        else:
            raise RepeatedEpisodeError(
                f"episode {episode.episode_id!r} is given twice with different events (two "
                "trace files hold two runs under one id, or one was edited) — pass each run "
                "once: drop one of the files, or re-import one under other ids"
            )


def note_repeats(repeats: list[str]) -> None:
    """One note on stderr of the episodes given twice and counted once (none: nothing)."""
    if repeats:
        named = ", ".join(sorted(set(repeats))[:3]) + (" ..." if len(set(repeats)) > 3 else "")
        typer.echo(f"note: {len(repeats)} episode(s) given twice (the same id and events in "
                   f"more than one trace file: {named}) are counted once", err=True)  # fmt: skip


def refuse_repeated_ids(normalized: Iterable[Any]) -> None:
    """For ``--engine dask``, whose workers read the files apart: no episode id twice.

    Raises:
        RepeatedEpisodeError: an id comes twice (in two files).
    """
    counts = Counter(e.episode_id for e in normalized)
    if twice := sorted(i for i, n in counts.items() if n > 1):
        raise RepeatedEpisodeError(
            f"{len(twice)} episode id(s) are in more than one trace file ({', '.join(twice[:3])}"
            f"{' ...' if len(twice) > 3 else ''}); --engine dask reads each file on a worker "
            "and would count them twice — pass each run once, or use --engine local (it counts "
            "a run given twice once)"
        )
