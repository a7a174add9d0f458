"""Task families: split a pile of episodes into groups compiled one by one.

``task`` groups by the ``task_family`` an episode recorded (``episode.started`` metadata or run
inputs; the family is named as recorded, as the demo names it: ``airline_test_49``), else its
``task_id`` (``task-<id>``), else its tool sequence; ``sequence`` groups by the
successful tool sequence. Families are named and ordered deterministically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from jdsl.compiler.names import slug
from jdsl.compiler.normalized import NormEpisode

__all__ = ["GroupBy", "group_episodes"]

GroupBy = Literal["task", "sequence"]


def _key(episode: NormEpisode, by: GroupBy) -> str:
    if by == "task":
        family = episode.metadata.get("task_family", episode.inputs.get("task_family"))
        if family is not None:  # the name the source gives (the demo's, e.g. airline_test_49)
            return slug(str(family))
        task = episode.metadata.get("task_id", episode.inputs.get("task_id"))
        if task is not None:
            return f"task-{slug(str(task))}"
    sequence = "-".join(slug(t) for t in episode.tool_sequence()) or "none"
    return f"seq-{sequence}"


def group_episodes(
    episodes: Sequence[NormEpisode], by: GroupBy
) -> list[tuple[str, list[NormEpisode]]]:
    """``[(family key, episodes)]`` sorted by key; episode order kept inside a family.

    Raises:
        ValueError: ``by`` is not ``"task"`` or ``"sequence"``.
    """
    if by not in ("task", "sequence"):
        raise ValueError(f"group by {by!r}: use 'task' or 'sequence'")
    groups: dict[str, list[NormEpisode]] = {}
    for episode in episodes:
        groups.setdefault(_key(episode, by), []).append(episode)
    return sorted(groups.items())
