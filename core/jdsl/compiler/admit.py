"""The episodes a compile admits: complete ones, a successful one among them, that
complete a tool call.

Runs cut off mid-run are never compiled from.

A trace file truncated (or a run killed) ends an episode without ``episode.finished``: its
outcome is unknown, as is that of a finished run that recorded none (an imported run without
a reward), but its calls are only the start of a run, so a package compiled from it would
stop where the file did. :attr:`~jdsl.compiler.normalized.NormEpisode.complete` tells the two
apart; :func:`finished_only` leaves the cut ones out.
"""

from __future__ import annotations

from collections.abc import Sequence

from jdsl.compiler.branches import successful_pool
from jdsl.compiler.errors import CompileError
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.store import heads, subset

__all__ = ["cut_note", "finished_only", "require_success"]

_FIX = "pass the complete trace file, or record the runs again"


def finished_only(
    episodes: Sequence[NormEpisode], *, which: str = "to compile from"
) -> tuple[Sequence[NormEpisode], tuple[str, ...]]:
    """``(the complete episodes, the ids of those cut off mid-run)``, in order (a
    :class:`~jdsl.compiler.store.NormStore` stays one, nothing decoded); ``which`` says what
    the episodes are for in the error (``the 2 episode(s) to compile from (a, b) end ...``).

    Raises:
        CompileError: every episode (one at least) is cut off: nothing finished to compile.
    """
    found = heads(episodes)
    cut = tuple(h.episode_id for h in found if not h.complete)
    if not cut:
        return episodes, ()
    if len(cut) == len(found):
        shown = ", ".join(cut[:3]) + (f" and {len(cut) - 3} more" if len(cut) > 3 else "")
        raise CompileError(
            f"the {len(cut)} episode(s) {which} ({shown}) end without episode.finished: "
            f"they look cut off mid-run (a trace file truncated, or a run killed); {_FIX}",
            episodes=cut,
        )
    return subset(episodes, [i for i, h in enumerate(found) if h.complete]), cut


def cut_note(cut: Sequence[str]) -> str:
    """The report line for the episodes :func:`finished_only` left out."""
    shown = ", ".join(cut[:3]) + (f" and {len(cut) - 3} more" if len(cut) > 3 else "")
    return f"{len(cut)} episode(s) cut off mid-run (no episode.finished: {shown}) left out; {_FIX}"


def require_success(normalized: Sequence[NormEpisode]) -> None:
    """Refuse to compile when no episode succeeded (nor has an unknown outcome), or when the
    episodes compiled from complete no tool call (there is no skeleton to compile).

    Raises:
        CompileError: naming how many episodes there were and the fix.
    """
    pool = successful_pool(normalized)
    if pool:
        _require_calls(pool)
        return
    raise CompileError(
        f"no successful episode among {len(normalized)}: a behavior is compiled from runs "
        "that succeeded; record successful runs, or mark outcomes (episode.finished status "
        "'success', or an outcome/reward event)",
        episodes=[e.episode_id for e in normalized],
    )


def _require_calls(pool: Sequence[NormEpisode]) -> None:
    """Refuse a pool in which no episode completed a tool call: its skeleton would be empty
    (episodes cut off mid-run are left out before: :func:`finished_only`).

    Raises:
        CompileError: naming the episodes.
    """
    if any(step.ok for episode in pool for step in episode.steps):
        return
    ids = [episode.episode_id for episode in pool]
    shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
    known = "successful" if all(episode.success for episode in pool) else "finished"
    raise CompileError(
        f"the {len(ids)} {known} episode(s) ({shown}) complete no tool call, so there "
        "is no skeleton to compile; a behavior is compiled from runs whose tool calls succeed",
        episodes=ids,
    )
