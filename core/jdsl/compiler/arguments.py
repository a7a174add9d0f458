"""How staticize represents one argument of one call slot: a ref, a list path, a run input, a
selection, a constant or a residual decision.

A call slot is ``(position, tool, argument)`` in the skeleton, so two calls of one tool at two
positions never collapse into one ambiguous input. Order of preference over the episodes that
follow the slot ("aligned" episodes):

1. ``dataflow``: an exact lineage path that explains the value in *every* aligned episode, whose
   names are available at that point of the compiled tree and that picks no list element by
   position -> ``{"ref": path}``; for a list argument that was every element of one list in
   state in every episode, the list path ``order.items[*].item_id``. A path decided from one
   episode must also hold in the same call of the family's other runs where it exists
   (:mod:`jdsl.compiler.support`), and yields to a stated input when the user stated the
   value, unless it is the object the call names or acts on;
2. ``selection``: a list argument built from elements of one list in state, different ones per
   episode -> ``{"ref": "order.items[$item_indexes].item_id"}``; a residual decision writes
   ``item_indexes: list[int]``;
3. ``input``: the value equals the same run input in every episode (never frozen);
4. for an argument a model chose that the user stated in every episode: a stated ``input``,
   unless the value is an element of a list in state and some run of the family (whatever its
   outcome: :class:`StatedIndex`) made the call without the user stating it: then 5.;
5. ``selection`` of one element: a value found only at a list position (``user.orders[2]``)
   -> ``{"ref": "user.orders[$order_index]"}``; a residual decision writes ``order_index: int``
   (a position is a choice, never a fixed index);
6. ``const`` only for an invariant value with :data:`E2_SUPPORT` runs spanning at least two
   users (``user_id``, else the task, else the inputs) and two tasks, and never an identifier (a string a tool returned or the user stated, or id-like),
   a list holding strings, or prose (:func:`_may_freeze`); the compile report lists each;
7. else ``residual`` (a model chose it: a predict writes it) or a synthesized run ``input``.

A varying argument that no lineage explains is never silently compiled to a constant.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from jdsl.compiler.acted import acted_on, coincides, names_object
from jdsl.compiler.lineage import ListSource
from jdsl.compiler.normalized import NormStep
from jdsl.compiler.store import SlotSteps
from jdsl.compiler.support import contradicted, unlisted
from jdsl.errors import ValidationError
from jdsl.expr import parse_path

__all__ = [
    "E2_SUPPORT",
    "ArgChoice",
    "StatedIndex",
    "choose_argument",
    "frozen_key",
    "index_key",
    "is_free_text",
    "looks_like_id",
    "path_names",
    "rank_sources",
    "stable_key",
    "top_key",
]

E2_SUPPORT = 3
"""Identical observations a generated argument needs to become a constant (grade E2)."""


@dataclass(frozen=True)
class ArgChoice:
    """The representation chosen for one argument.

    Attributes:
        argument: the keyword.
        how: ``dataflow``, ``selection``, ``const``, ``input`` or ``residual``.
        spec: ``{"ref": path}`` or ``{"const": value}``.
        source: the lineage path (for ``selection`` the ``[$key]`` path), input name or
            residual output key (None for constants).
        values: the recorded values over the aligned episodes.
        stated: an ``input`` the user stated in their messages (not a recorded run input).
        template: for a list path, its ``[*]`` form (``order.items[*].item_id``).
        indexes: for ``selection``, the element indexes each aligned episode took.
        spans: for ``const``, how many different users and tasks its runs span.
    """

    argument: str
    how: str
    spec: dict[str, Any]
    source: str | None
    values: tuple[Any, ...]
    stated: bool = False
    template: str | None = None
    indexes: tuple[tuple[int, ...], ...] = ()
    spans: tuple[int, int] = (0, 0)

    @property
    def support(self) -> int:
        """How many aligned episodes recorded this exact value (for constants: its support)."""
        spec = stable_key(self.spec.get("const"))
        return sum(stable_key(v) == spec for v in self.values) if "const" in self.spec else 0


def stable_key(value: Any) -> str:
    """Canonical JSON text of a value (sorted keys): equal values, equal keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def path_names(path: str) -> set[str]:
    """The blackboard keys a path reads: its top-level key and every ``$name`` index."""
    try:
        steps = parse_path(path)
    except ValueError:
        return {path}
    return {str(steps[0][1])} | {str(arg) for kind, arg in steps if kind == "var"}


def top_key(path: str) -> str:
    """The top-level blackboard key a path reads: ``user.orders[$i]`` -> ``user``."""
    try:
        return str(parse_path(path)[0][1])
    except ValueError:
        return path


class _Seen(NamedTuple):
    """What :func:`choose_argument` reads of one step for one argument."""

    value: Any
    sources: tuple[str, ...]
    lists: tuple[ListSource, ...]
    input_key: str | None
    stated: bool
    traced: bool  # some exact source holds it (even one :func:`frozen_key` drops)

    @property
    def fixed(self) -> tuple[str, ...]:
        """The sources that pick a list element by position (``orders[2].id``)."""
        return tuple(p for p in self.sources if _FIXED_INDEX.search(p))


def _observe(argument: str, steps: Iterable[NormStep]) -> list[_Seen]:
    """One pass over ``steps`` (each read once: a slot's steps decode their episode on every
    read); equal source tuples are shared, so 10^5 observations stay small. Each step's
    sources are ranked by :func:`rank_sources`."""
    shared: dict[Any, Any] = {}
    seen = []
    for s in steps:
        value = s.arguments.get(argument)
        found = s.arg_sources.get(argument, ())
        sources = rank_sources(argument, s, found) if found else found
        lists = s.list_sources.get(argument, ())
        seen.append(_Seen(
            value, shared.setdefault(sources, sources),
            shared.setdefault(lists, lists), s.input_args.get(argument),
            argument in s.stated_args, bool(found),
        ))  # fmt: skip
    return seen


_DATA_KEY = re.compile(r"\d{4,}")


def frozen_key(path: str, value: Any) -> bool:
    """Whether ``path`` names a value by a dict key that is data, not schema: the key is the
    value itself, or holds four or more digits (``user.payment_methods.gift_card_8887175.id``):
    such a path freezes one user's id into the program.

    >>> frozen_key("user.payment_methods.gift_card_8887175.id", "gift_card_8887175")
    True
    >>> frozen_key("reservation.payment_history[0].payment_id", "gift_card_8887175")
    False
    """
    try:
        steps = parse_path(path)
    except ValidationError:
        return False
    return any(
        kind == "key" and isinstance(arg, str) and (arg == value or bool(_DATA_KEY.search(arg)))
        for kind, arg in steps[1:]
    )


def rank_sources(argument: str, step: NormStep, sources: Sequence[str]) -> tuple[str, ...]:
    """``sources`` of one call's argument, best first: a path that freezes a dict key holding
    data (:func:`frozen_key`) is dropped, and so is a field of an object the call does not act
    on whose counterpart in the object it acts on holds another value (:func:`jdsl.compiler.acted.coincides`);
    a path indexed by a decision (``orders[$i].id``) comes first, as in the lineage order,
    then a field of an object the call acts on (the payment id of the reservation being
    updated: :func:`jdsl.compiler.acted.acted_on`), then the most recently written top-level key, then the
    lineage order (:meth:`jdsl.compiler.lineage.StateIndex.sources`)."""
    value = step.arguments.get(argument)
    acted = acted_on(argument, step)
    kept = [
        p
        for p in sources
        if not frozen_key(p, value) and not coincides(p, value, acted, step.state_before)
    ]
    if len(kept) < 2:
        return tuple(kept)
    order = {key: n for n, key in enumerate(step.state_before)}

    def rank(item: tuple[int, str]) -> tuple[bool, bool, int, int]:
        n, path = item
        top = top_key(path)
        return ("[$" not in path, top not in acted, -order.get(top, -1), n)

    return tuple(p for _, p in sorted(enumerate(kept), key=rank))


def _dataflow(
    seen: Sequence[_Seen], available: set[str] | None, refuted: Callable[[str], bool] | None = None
) -> str | None:
    """The best path explaining every step's value (names available, unless None) that
    ``refuted`` does not refute; a path that picks a list element by position is never one
    (:func:`_element_path`)."""
    for path in seen[0].sources:
        if _FIXED_INDEX.search(path):
            continue
        if (
            (available is None or path_names(path) <= available)
            and all(path in s.sources for s in seen[1:])
            and (refuted is None or not refuted(path))
        ):
            return path
    return None


def _own(path: str, argument: str, step: NormStep) -> bool:
    """Whether ``path`` is the object the call names or acts on (``res.reservation_id`` for
    ``reservation_id``, a field of the reservation updated): never a coincidence."""
    field = path.rpartition(".")[2]
    return names_object(argument, field) or top_key(path) in acted_on(argument, step)


def _list_path(
    argument: str, seen: Sequence[_Seen], available: set[str] | None, key: str
) -> ArgChoice | None:
    """A list path explaining the list argument in every step: ``[*]`` when every step took
    every element, else a selection by the residual key ``key``."""
    values = tuple(s.value for s in seen)
    for first in seen[0].lists:
        if available is not None and not path_names(first.head) <= available:
            continue
        found = [_same_template(s.lists, first) for s in seen[1:]]
        if any(f is None for f in found):
            continue
        picked = [first, *(f for f in found if f is not None)]
        if all(p.every for p in picked):
            return ArgChoice(argument, "dataflow", {"ref": first.template}, first.template,
                             values, template=first.template)  # fmt: skip
        path = first.selection(key)
        return ArgChoice(argument, "selection", {"ref": path}, path, values,
                         template=first.template, indexes=tuple(p.indexes for p in picked))  # fmt: skip
    return None


def _same_template(sources: Sequence[ListSource], like: ListSource) -> ListSource | None:
    return next((s for s in sources if s.template == like.template), None)


def index_key(argument: str) -> str:
    """The residual key that selects a list argument's elements: ``item_ids`` ->
    ``item_indexes``, ``flights`` -> ``flight_indexes``.

    >>> index_key("item_ids"), index_key("flights"), index_key("ids")
    ('item_indexes', 'flight_indexes', 'indexes')
    """
    base = argument.removesuffix("_ids").removesuffix("ids")
    if base == argument and base.endswith("s"):
        base = base[:-1]
    return f"{base}_indexes" if base else "indexes"


def is_free_text(value: Any) -> bool:
    """Model-written prose: a string of three or more words.

    >>> is_free_text("User wants to cancel ABC123"), is_free_text("economy"), is_free_text(3)
    (True, False, False)
    """
    return isinstance(value, str) and len(value.split()) >= 3


def _common_input(seen: Sequence[_Seen]) -> str | None:
    keys = {s.input_key for s in seen}
    return keys.pop() if len(keys) == 1 and None not in keys else None


def looks_like_id(value: Any) -> bool:
    """An identifier-like string: four or more characters, no spaces, a digit among them.

    >>> looks_like_id("1N99U6"), looks_like_id("amelia_rossi_1297"), looks_like_id("economy")
    (True, True, False)
    """
    return (
        isinstance(value, str)
        and len(value) >= 4
        and not any(c.isspace() for c in value)
        and any(c.isdigit() for c in value)
    )


def choose_argument(
    argument: str,
    steps: Sequence[NormStep],
    *,
    available: set[str] | None,
    synthesized_input: str,
    who: Callable[[], Sequence[tuple[str, str]]] | None = None,
    always_stated: Callable[[], bool] | None = None,
    peers: Callable[[], Sequence[NormStep]] | None = None,
) -> ArgChoice:
    """Choose the representation of ``argument`` over the aligned steps of one slot (the
    order of preference in the module docstring).

    Args:
        argument: the keyword.
        steps: the slot's step in every aligned episode (the representative first).
        available: the blackboard keys produced before this point (None: ignore availability).
        synthesized_input: the name a new run input (or residual output) gets.
        who: per step, the ``(user, task)`` of its episode (asked only when a constant is
            possible: a constant needs :data:`E2_SUPPORT` runs spanning two or more users and
            two or more tasks); None: not known, no constant.
        always_stated: whether every run of the family stated the argument when it made the
            call (:class:`StatedIndex`); None: not known (a stated value stays an input).
        peers: the same call in the family's other runs (:class:`jdsl.compiler.support.SameCalls`):
            a source decided from one run that one of them contradicts is not a ref
            (:func:`jdsl.compiler.support.contradicted`); and a source from one run equal to a
            value the user stated yields to the stated input, unless it is the object the call
            names or acts on. None: not known.
    """
    seen = (
        steps.memo(("observe", argument), lambda v: _observe(argument, v))
        if isinstance(steps, SlotSteps)
        else _observe(argument, steps)
    )  # a slot's observations are read by input_names and again by the emitter
    values = tuple(s.value for s in seen)
    thin = peers is not None and len(seen) < 2  # a source decided from one run
    refuted = _refuted(argument, peers) if thin and peers is not None else None
    path = _dataflow(seen, available, refuted)
    chosen = steps[0].model_chosen
    if path is not None and thin and chosen and seen[0].stated:
        if not _own(path, argument, steps[0]):
            return ArgChoice(argument, "input", {"ref": synthesized_input}, synthesized_input,
                             values, stated=True)  # fmt: skip
    if path is not None:
        return ArgChoice(argument, "dataflow", {"ref": path}, path, values)
    listed = _list_path(argument, seen, available, index_key(argument))
    if listed is not None:
        return listed
    key = _common_input(seen)
    if key is not None:  # a value equal to a run input is never frozen
        return ArgChoice(argument, "input", {"ref": key}, key, values)
    synth = {"ref": synthesized_input}
    element = _element_path(argument, seen, available, index_key(argument))
    if element and element.template and peers and unlisted(element.template, argument, peers()):
        element = None  # another run of the family passed a value the list does not hold
    if chosen and all(s.stated for s in seen):
        if element is None or always_stated is None or always_stated():
            return ArgChoice(argument, "input", synth, synthesized_input, values, stated=True)
    if element is not None:
        return element
    varies = len({stable_key(v) for v in values}) > 1
    spans = _may_freeze(values[0], seen, chosen, who) if not varies else None
    if spans is not None:
        return ArgChoice(argument, "const", {"const": values[0]}, None, values, spans=spans)
    if chosen:
        return ArgChoice(argument, "residual", synth, synthesized_input, values)
    return ArgChoice(argument, "input", synth, synthesized_input, values)


def _refuted(argument: str, peers: Callable[[], Sequence[NormStep]]) -> Callable[[str], bool]:
    """Whether the same call in another run of the family contradicts a source (asked for
    the other runs once)."""
    found: list[Sequence[NormStep]] = []

    def refuted(path: str) -> bool:
        if not found:
            found.append(peers())
        return contradicted(path, argument, found[0])

    return refuted


class StatedIndex:
    """Per ``(tool, argument)``: whether the user stated the argument's value before every
    call of the tool in every run of a family, successful or not (built on first use, in one
    pass over the runs): how users of the family behave, which the runs compiled from alone
    may not show (three runs where the user typed the reservation id, a fourth where the
    agent found it among the user's reservations)."""

    def __init__(self, episodes: Iterable[Any]) -> None:
        self._episodes = episodes
        self._found: dict[tuple[str, str], bool] | None = None

    def __call__(self, tool: str, argument: str) -> bool:
        if self._found is None:
            found: dict[tuple[str, str], bool] = {}
            for episode in self._episodes:
                for step in episode.steps:
                    for arg in step.arguments:
                        key = (step.logical_tool, arg)
                        found[key] = found.get(key, True) and arg in step.stated_args
            self._found = found
        return self._found.get((tool, argument), False)


def _may_freeze(
    value: Any,
    seen: Sequence[_Seen],
    chosen: bool,
    who: Callable[[], Sequence[tuple[str, str]]] | None,
) -> tuple[int, int] | None:
    """Whether an invariant value may be a constant: never an identifier (a string a tool
    returned or the user stated, or one that looks like an id), a list holding strings, or
    a model's prose; and only with :data:`E2_SUPPORT` runs spanning at least two different
    users and two different tasks (two tasks of one user are one scenario): the ``(users,
    tasks)`` it spans, or None when it may not."""
    if len(seen) < E2_SUPPORT or who is None:
        return None
    if any(s.traced or s.lists or s.stated for s in seen):
        return None  # a tool returned it (somewhere in state) or the user said it
    if looks_like_id(value) or (isinstance(value, list) and any(isinstance(v, str) for v in value)):
        return None
    if chosen and is_free_text(value):
        return None
    found = who()
    spans = len({user for user, _ in found}), len({task for _, task in found})
    return spans if min(spans) >= 2 else None


_FIXED_INDEX = re.compile(r"\[\d+\]")


def _element_path(
    argument: str, seen: Sequence[_Seen], available: set[str] | None, key: str
) -> ArgChoice | None:
    """An element of one list in state picked by position (``user.orders[2]``): never a fixed
    index but a selection ``user.orders[$order_index]`` a residual answers (an ``int``)."""
    for path in seen[0].fixed:
        template = _FIXED_INDEX.sub("[*]", path, count=1)
        if "[*]" not in template or _FIXED_INDEX.search(template):
            continue
        if available is not None and not path_names(template.split("[*]")[0]) <= available:
            continue
        indexes = []
        for s in seen:
            found = next((_index_in(p, template) for p in s.fixed
                          if _index_in(p, template) is not None), None)  # fmt: skip
            if found is None:
                break
            indexes.append((found,))
        else:
            ref = template.replace("[*]", f"[${key}]", 1)
            return ArgChoice(argument, "selection", {"ref": ref}, ref, tuple(s.value for s in seen),
                             template=template, indexes=tuple(indexes))  # fmt: skip
    return None


def _index_in(path: str, template: str) -> int | None:
    head, _, tail = template.partition("[*]")
    if not (path.startswith(head + "[") and path.endswith(tail)):
        return None
    middle = path[len(head) + 1 : len(path) - len(tail) - 1]
    return int(middle) if middle.isdigit() else None


def _generated(value: Any) -> bool:
    """A value a model wrote that must never be frozen: prose or an identifier."""
    return is_free_text(value) or looks_like_id(value)
