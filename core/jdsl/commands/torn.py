"""Episodes a torn line broke: with ``--skip-bad-lines``, a line that is not an event (a write
torn mid-line) is skipped, and the episode it belonged to misses an event, so its hash chain
is broken. ``jdsl compile`` leaves such an episode out under a note naming it, never compiles
from it; without skipped lines, a broken chain (an edited event) is still an error. ``jdsl
package validate`` and ``jdsl show --diff`` warn of a broken chain (:func:`warn_edited`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import typer

from jdsl.compiler.stream import chain_problems
from jdsl.trace import Episode, SkippedLines

__all__ = ["leave_out_torn", "note_torn", "warn_edited"]


def leave_out_torn(
    episodes: Iterable[Episode], skipped: SkippedLines | None, left: list[str]
) -> Iterator[Episode]:
    """``episodes``, less those whose hash chain is broken once a line was skipped (their ids
    appended to ``left``). A file's lines are all read before its first episode comes, so the
    count is that of the files read so far."""
    for episode in episodes:
        if skipped is not None and skipped.counts and chain_problems(episode):
            left.append(episode.episode_id)
            continue
        yield episode


def note_torn(left: list[str]) -> None:
    """One note on stderr naming the episodes :func:`leave_out_torn` left out (none: nothing)."""
    if left:
        named = ", ".join(left[:3]) + (" ..." if len(left) > 3 else "")
        typer.echo(f"note: {len(left)} episode(s) left out: a line --skip-bad-lines skipped "
                   f"was one of their events, so their hash chain is broken ({named})",
                   err=True)  # fmt: skip


def warn_edited(episodes: Iterable[Episode]) -> None:
    """One warning on stderr naming the episodes whose hash chain is broken (an edited event,
    or events missing): ``jdsl package validate`` and ``jdsl show --diff`` judge them as they
    are now, where ``jdsl compile`` refuses them."""
    broken = [e.episode_id for e in episodes if chain_problems(e)]
    if broken:
        named = ", ".join(broken[:3]) + (" ..." if len(broken) > 3 else "")
        typer.echo(f"warning: {len(broken)} episode(s) have a broken hash chain (an event was "
                   f"edited, or events are missing: {named}); they are judged as they are now, "
                   "not as they were recorded (`jdsl compile` refuses them)", err=True)  # fmt: skip
