"""Task families: split a pile of episodes into groups compiled one by one.

``task`` groups by the ``task_id`` an episode recorded (``episode.started`` metadata or run
inputs), else its ``task_family``, else its tool sequence; ``sequence`` groups by the
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
        for field in ("task_id", "task_family"):
            task = episode.metadata.get(field, episode.inputs.get(field))
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
