"""The records of a normalized episode: :class:`NormStep`, :class:`ModelDecision`,
:class:`GuardObservation` and :class:`NormEpisode` (built by :mod:`jdsl.compiler.normalize`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from jdsl.compiler.lineage import ListSource

__all__ = ["GuardObservation", "ModelDecision", "NormEpisode", "NormStep"]


def _reduce(self: Any) -> tuple[type, tuple[Any, ...]]:
    """Pickle as ``cls(*field values)``: a :class:`~jdsl.compiler.store.NormStore` decodes
    every episode many times, and the generated ``__init__`` rebuilds a record faster than
    ``dataclass(slots=True)``'s ``__setstate__`` (which calls :func:`dataclasses.fields`)."""
    return type(self), attrgetter(*self.__slots__)(self)


@dataclass(frozen=True, slots=True)
class NormStep:
    """One tool call of an episode.

    Attributes:
        index: the call's number among all the episode's tool calls (0-based).
        position: its number among the *successful* calls (None when it failed); call slots
            are keyed by position.
        logical_tool / host_tool: the capability id and the name the host saw.
        arguments: keyword arguments as called.
        arg_lineage: ``{argument: best exact source path}`` for lineaged arguments.
        arg_sources: ``{argument: every exact source path, best first}``.
        input_args: ``{argument: run input key}`` for arguments equal to a run input.
        state_before: trusted state when the call started (shared values, never mutated).
        store: the key its result is available under (explicit or synthesized).
        node_id: the calling node; node_type its kind (``action``, ``react`` ...).
        ok / result / error / error_type: how it ended.
        element_sources: ``{list argument: per element, every exact source path}``.
        list_sources: ``{list argument: the lists in state it was built from}``
            (:class:`~jdsl.compiler.lineage.ListSource`).
        stated_args: the arguments whose value the user's messages before the call contain.
    """

    __reduce__ = _reduce

    index: int
    position: int | None
    logical_tool: str
    host_tool: str
    arguments: dict[str, Any]
    arg_lineage: dict[str, str]
    arg_sources: dict[str, tuple[str, ...]]
    input_args: dict[str, str]
    state_before: dict[str, Any]
    store: str | None
    node_id: str | None
    node_type: str | None
    ok: bool = True
    result: Any = None
    error: str | None = None
    error_type: str | None = None
    element_sources: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    list_sources: dict[str, tuple[ListSource, ...]] = field(default_factory=dict)
    stated_args: frozenset[str] = frozenset()

    @property
    def model_chosen(self) -> bool:
        """Whether a model picked the arguments (the call came from a react loop)."""
        return self.node_type == "react"


@dataclass(frozen=True, slots=True)
class ModelDecision:
    """A model leaf that ran: its signature and what it answered.

    Attributes:
        position: the number of successful tool calls before it.
        node_id: the predict / react node.
        kind: ``"predict"`` or ``"react"``.
        signature: the typed signature text, e.g. ``"request, orders -> selected_index: int"``.
        instructions: the teacher's instructions (from the episode's IR), when recorded.
        input_sources: the teacher's ``input_sources``, when recorded.
        tools: react tools (logical ids).
        outputs: the values it wrote, ``{output: value}``.
        inputs: the values it read, ``{input: value}``.
        ok: whether the leaf succeeded.
        sequence: the event sequence where it started (orders it among guards).
    """

    __reduce__ = _reduce

    position: int
    node_id: str
    kind: str
    signature: str
    instructions: str | None = None
    input_sources: dict[str, str] | None = None
    tools: tuple[str, ...] = ()
    outputs: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    ok: bool = True
    sequence: int = -1


@dataclass(frozen=True, slots=True)
class GuardObservation:
    """A guard, check or guard_call the teacher evaluated, placed before ``position``
    (``sequence``: its event's sequence, to order it among the decisions there)."""

    __reduce__ = _reduce

    position: int
    node_id: str | None
    type: str
    expression: Any
    result: bool
    values: dict[str, Any]
    sequence: int = -1


@dataclass(frozen=True, slots=True)
class NormEpisode:
    """One normalized episode.

    Attributes:
        episode_id: the episode.
        steps: its tool calls in order.
        decisions: its model decisions in order.
        guards: the guards it evaluated, in order.
        inputs: the run inputs (``episode.started``).
        metadata: other ``episode.started`` fields (``task_id``, ``skill``...), IR excluded.
        teacher_ir: the teacher tree's IR root, when recorded.
        success: True / False from a reward, verdict or final status; None when unknown.
        outcome: the reward / verdict payload, when recorded.
        source_digest: sha256 over the episode's event kinds, sequences and payloads' keys.
        conversation: what the user said (``user.message`` events), in order; it is also the
            run input ``conversation`` when the episode recorded no input of that name.
        replies: what the agent said to the user (``assistant.message`` events), each with
            the number of successful tool calls before it (what an unused read's check,
            :mod:`jdsl.compiler.unused`, looks for a read's values in).
        dropped: calls the compiler left out of ``steps`` (unused reads, no-ops), each
            numbered as the call that followed it; replay still answers a read from them.
        complete: whether the run's end is recorded (``episode.finished``; an outcome event
            alone is not); False for a run cut off mid-run, which is never compiled from
            (:func:`~jdsl.compiler.admit.finished_only`). ``success`` is None both for it
            and for a finished run whose outcome is unknown.
    """

    __reduce__ = _reduce

    episode_id: str
    steps: tuple[NormStep, ...]
    decisions: tuple[ModelDecision, ...]
    guards: tuple[GuardObservation, ...]
    inputs: dict[str, Any]
    metadata: dict[str, Any]
    teacher_ir: dict[str, Any] | None
    success: bool | None
    outcome: dict[str, Any] | None
    source_digest: str
    conversation: tuple[str, ...] = ()
    replies: tuple[tuple[int, str], ...] = ()
    dropped: tuple[NormStep, ...] = ()
    complete: bool = True

    def tool_sequence(self) -> tuple[str, ...]:
        """The logical tools of the successful calls, in order (the episode's skeleton)."""
        return tuple(s.logical_tool for s in self.steps if s.ok)

    def ok_steps(self) -> tuple[NormStep, ...]:
        """The successful calls, in order (``ok_steps()[p].position == p``)."""
        return tuple(s for s in self.steps if s.ok)
