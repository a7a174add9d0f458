"""Episodes a torn line broke: with ``--skip-bad-lines``, a line that is not an event (a write
torn mid-line) is skipped, and the episode it belonged to misses an event, so its hash chain
is broken. ``jdsl compile`` leaves such an episode out
(:func:`jdsl.compiler.stream.leave_out_torn`, on the workers with ``--engine dask``) under a
note naming it (:func:`note_torn`), never compiles from it, and so do ``jdsl show --compile``,
``jdsl export otel``, ``jdsl package validate`` and ``jdsl show --diff`` (:func:`without_torn`:
judged, such a run diverged where its event is missing); without skipped lines, a broken
chain (an edited event) is still an error. ``jdsl package validate``, ``jdsl show --diff`` and
``jdsl show TRACE`` warn of a broken chain they keep (:func:`warn_edited`)."""

from __future__ import annotations

from collections.abc import Iterable

import typer

from jdsl.commands.boundary import cli_fail
from jdsl.compiler.stream import chain_problems, leave_out_torn
from jdsl.trace import Episode, SkippedLines

__all__ = ["note_torn", "warn_edited", "without_torn"]


def note_torn(left: list[str]) -> None:
    """One note on stderr naming the episodes
    :func:`~jdsl.compiler.stream.leave_out_torn` left out (none: nothing)."""
    if left:
        named = ", ".join(left[:3]) + (" ..." if len(left) > 3 else "")
        typer.echo(f"note: {len(left)} episode(s) left out: a line --skip-bad-lines skipped "
                   f"was one of their events, so their hash chain is broken ({named})",
                   err=True)  # fmt: skip


def without_torn(
    episodes: Iterable[Episode], skipped: SkippedLines | None, doing: str, where: str
) -> list[Episode]:
    """``episodes`` less those a line ``--skip-bad-lines`` skipped broke, left out under
    ``jdsl compile``'s note (:func:`note_torn`); all of them when nothing was skipped.

    Raises:
        typer.Exit: (through :func:`~jdsl.commands.boundary.cli_fail`) every episode was left
            out, so there is nothing left to ``doing`` (``"compile"``) in ``where`` (the files).
    """
    left: list[str] = []
    kept = list(leave_out_torn(episodes, skipped, left))
    note_torn(left)
    if left and not kept:
        raise cli_fail(f"nothing left to {doing} in {where}: every episode given lost an event "
                       "to a skipped line", "pass traces whose lines are whole")  # fmt: skip
    return kept


def warn_edited(
    episodes: Iterable[Episode], done: str = "judged", skipped: SkippedLines | None = None
) -> None:
    """One warning on stderr naming the episodes whose hash chain is broken (an edited event,
    or events missing): ``jdsl package validate`` and ``jdsl show --diff`` judge them (``done``)
    as they are now, ``jdsl show TRACE`` shows them so, where ``jdsl compile`` refuses them, or,
    once ``--skip-bad-lines`` skipped a line (``skipped``), leaves them out."""
    broken = [e.episode_id for e in episodes if chain_problems(e)]
    if broken:
        named = ", ".join(broken[:3]) + (" ..." if len(broken) > 3 else "")
        compile_does = ("`jdsl compile --skip-bad-lines` leaves them out" if skipped is not None
                        and skipped.counts else "`jdsl compile` refuses them")  # fmt: skip
        typer.echo(f"warning: {len(broken)} episode(s) have a broken hash chain (an event was "
                   f"edited, or events are missing: {named}); they are {done} as they are now, "
                   f"not as they were recorded ({compile_does})", err=True)  # fmt: skip
