"""Families: split a pile of episodes into groups compiled one by one.

* ``intent`` groups by what a run *changes*: the ordered sequence of its successful effectful
  calls (a capability whose contract, or failing one :func:`jdsl.package.default_effects`, says
  it is not read-only), immediate repeats of one write collapsed. Read-only lookups never split
  a family. A repeat is collapsed because in recorded runs it is the same write over more
  objects (two reservations cancelled, five flights of one trip updated: the count is the
  user's data, a loop, not another intent). The family is named for what it does,
  ``<domain>.<write>[+<write>...]`` (``airline.update_reservation_flights``,
  ``retail.cancel_pending_order``), or ``<domain>.no_write`` for runs that change nothing; the
  domain is the capabilities' namespace (``retail.cancel_pending_order``), else the
  ``domain`` an importer recorded, else the skill's last part. Nothing in the name comes from the
  task ids, instruction texts or file format, so a run whose instruction text changed between
  benchmark versions lands in the same family.
* ``task`` groups by the ``task_family`` an episode recorded (``episode.started`` metadata or run
  inputs; named as recorded: ``airline_test_49``), else its ``task_id`` (``task-<id>``), else its
  tool sequence;
* ``sequence`` groups by the successful tool sequence.

An importer may recommend a grouping in the episode metadata (``group_by``; the tau-bench
importer recommends ``intent``): :func:`recommended_grouping`. Families are named and ordered
deterministically.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from jdsl.compiler.names import slug
from jdsl.compiler.normalized import NormEpisode
from jdsl.package import ToolEffects, default_effects

__all__ = [
    "GroupBy",
    "episode_domain",
    "family_members",
    "group_episodes",
    "intent_writes",
    "is_write",
    "recommended_grouping",
    "recorded_domain",
    "same_domain",
]

GroupBy = Literal["intent", "task", "sequence"]
NO_WRITE = "no_write"
"""The intent of runs that change nothing (they read, answer, or refuse)."""


def is_write(tool: str, effects: Mapping[str, Any] | None = None) -> bool:
    """Whether calling ``tool`` changes something: its contract in ``effects`` (capability ->
    :class:`~jdsl.package.ToolEffects` or a mapping) says so, else
    :func:`~jdsl.package.default_effects` of its name (a mutating verb, a shell)."""
    given = (effects or {}).get(tool)
    found = ToolEffects.of(given) if given is not None else default_effects(tool)
    return not found.read_only


def intent_writes(
    episode: NormEpisode, effects: Mapping[str, Any] | None = None
) -> tuple[str, ...]:
    """The logical tools of ``episode``'s successful writes, in order, immediate repeats
    collapsed (``cancel, cancel, update`` -> ``cancel, update``)."""
    found: list[str] = []
    for step in episode.ok_steps():
        tool = step.logical_tool
        if is_write(tool, effects) and (not found or found[-1] != tool):
            found.append(tool)
    return tuple(found)


def _domain(episode: NormEpisode, writes: Sequence[str]) -> str:
    tools = list(writes) or [s.logical_tool for s in episode.ok_steps()]
    spaces = {t.rsplit(".", 1)[0] for t in tools if "." in t}
    if len(spaces) == 1:
        return slug(spaces.pop())
    domain = episode.metadata.get("domain")
    if isinstance(domain, str) and domain:
        return slug(domain)
    skill = episode.metadata.get("skill")
    return slug(str(skill).rsplit(".", 1)[-1]) if skill else ""


def episode_domain(episode: NormEpisode, effects: Mapping[str, Any] | None = None) -> str:
    """The domain of ``episode`` as intent families name it (module docstring): its writes'
    (else calls') namespace, else the ``domain`` an importer recorded, else the skill's last
    part; ``""`` when none says."""
    return _domain(episode, intent_writes(episode, effects))


def recorded_domain(episode: NormEpisode) -> str:
    """The domain ``episode`` names, ``""`` when none: the ``domain`` an importer recorded
    (what the source says, whatever its calls were renamed to: ``jdsl package validate``
    canonicalizes a trace's host tools to the package's ids), else its calls' namespace
    (:func:`episode_domain`). A skill's name is no domain to refuse a run by."""
    domain = episode.metadata.get("domain")
    if isinstance(domain, str) and domain:
        return slug(domain)
    named = any("." in s.logical_tool for s in episode.steps)
    return episode_domain(episode) if named else ""


def same_domain(
    family: Sequence[NormEpisode], others: Sequence[NormEpisode],
    effects: Mapping[str, Any] | None = None,
) -> list[NormEpisode]:  # fmt: skip
    """The runs of ``others`` of a domain of ``family``'s runs (:func:`episode_domain`): the
    peers a family may learn from; another domain's runs never change a family's package."""
    domains = {episode_domain(e, effects) for e in family}
    return [e for e in others if episode_domain(e, effects) in domains]


def _intent_key(episode: NormEpisode, effects: Mapping[str, Any] | None) -> str:
    writes = intent_writes(episode, effects)
    what = "+".join(slug(w.rsplit(".", 1)[-1]) for w in writes) or NO_WRITE
    domain = _domain(episode, writes)
    return f"{domain}.{what}" if domain else what


def _key(episode: NormEpisode, by: GroupBy, effects: Mapping[str, Any] | None) -> str:
    if by == "intent":
        return _intent_key(episode, effects)
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
    episodes: Sequence[NormEpisode],
    by: GroupBy,
    *,
    effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None = None,
) -> list[tuple[str, list[NormEpisode]]]:
    """``[(family key, episodes)]`` sorted by key; episode order kept inside a family.

    Args:
        episodes: normalized episodes.
        by: ``"intent"``, ``"task"`` or ``"sequence"`` (module docstring).
        effects: capability -> effects, for ``intent`` (default: each name's
            :func:`~jdsl.package.default_effects`).

    Raises:
        ValueError: ``by`` is none of them.
    """
    if by not in get_args(GroupBy):
        raise ValueError(f"group by {by!r}: use 'intent', 'task' or 'sequence'")
    groups: dict[str, list[NormEpisode]] = {}
    for episode in episodes:
        groups.setdefault(_key(episode, by, effects), []).append(episode)
    return sorted(groups.items())


def family_members(
    episodes: Sequence[NormEpisode], family: str
) -> tuple[list[NormEpisode], GroupBy | None]:
    """The episodes of ``family`` under the first grouping (intent, task, sequence) that names
    it, and that grouping; every episode and None when none does (a package compiled without
    grouping). Used by ``jdsl package validate`` and ``jdsl show --diff`` to check a package
    on its own family's runs."""
    for by in get_args(GroupBy):
        members = dict(group_episodes(episodes, by)).get(family)
        if members:
            return members, by
    return list(episodes), None


def recommended_grouping(episodes: Sequence[NormEpisode]) -> GroupBy | None:
    """The grouping the episodes' importer recommends (metadata ``group_by``) when every
    episode that names one names the same valid one, else None."""
    named = {e.metadata.get("group_by") for e in episodes} - {None}
    if len(named) == 1:
        (by,) = named
        if by in get_args(GroupBy):
            return by  # type: ignore[no-any-return]
    return None
