"""The runs of a package's task family, as the commands that check a package against traces
(``jdsl package validate``, ``jdsl show --diff``) pick them."""

from __future__ import annotations

from collections.abc import Sequence

import typer

from jdsl.compiler import NormEpisode
from jdsl.compiler.families import family_members
from jdsl.package import BehaviorPackage

__all__ = ["family_runs"]


def family_runs(
    normalized: Sequence[NormEpisode], pkg: BehaviorPackage, *, doing: str, all_does: str
) -> list[NormEpisode]:
    """The runs of ``pkg``'s family (:func:`~jdsl.compiler.families.family_members`), with a
    note on stderr of how many runs of other families were skipped.

    Args:
        normalized: every run the command read.
        pkg: the package whose manifest names the family (``task_family``).
        doing: what the command does to the runs it keeps (``"diffing"``), for the note.
        all_does: what ``--all`` does with the skipped runs (``"diffs them too"``).
    """
    family = str(pkg.manifest.get("task_family") or "")
    members, by = family_members(normalized, family)
    if by is not None and len(members) < len(normalized):
        skipped = len(normalized) - len(members)
        typer.echo(
            f"{doing} the {len(members)} run(s) of family {family!r} (grouped by {by}); "
            f"{skipped} run(s) of other families skipped (--all {all_does})",
            err=True,
        )
    return members
