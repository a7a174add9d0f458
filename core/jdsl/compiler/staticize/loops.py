"""Loops: repeated calls over the elements of one list in state become one ``for_each``.

A *run* is consecutive successful calls of one tool whose argument ``a`` is, call after call,
``<head>[0]<tail>``, ``<head>[1]<tail>`` ... of one list in state, every element of it in order
(the list as it was before the first call): ``get_order_details(order_id=user.orders[k])`` for
each of ``user.orders``, however many. A :class:`LoopSpec` ``(tool, argument, head, tail)``
found with two or more elements in some run, and run in two or more episodes, is a loop of
the family (:func:`family_loops`); then every
run of it (one element included) is one *token* of the episode's compressed sequence, so runs
over 1, 2 or 4 orders follow one path. :func:`compress` gives an episode's tokens and, per token,
the call positions it stands for (a loop: one per element).

A loop that acts on *some* elements (``LoopSpec.select``): consecutive calls of one write whose
argument is ``<head>[k]<tail>`` for different elements k, in any order (cancel the second of
three reservations in one run, the fifth and third of seven in another), every other argument
the same in each call (a write with other arguments per element, e.g. new flights per
reservation, is not one call repeated). Found with two or more
calls in some run and in two or more episodes, it is one token too, compiled as a ``for_each``
over the elements a residual selection (``list[int]``) picks. A run over every element of a
loop over every element is that loop (preferred where both fit). A write the model chose on an
element of a list is such a loop even from one call in one run (:func:`_acting`): how many
elements a run acts on is never a fixed count (cancel one reservation in the run compiled
from, two in the next).

A *scan* (``LoopSpec.prefix``): consecutive calls of one read-only tool over the first elements
of a list, ``<head>[0]<tail>`` ... ``<head>[m-1]<tail>``, stopping before its end in some run
(read orders one by one until the one to act on): one token too, compiled as a ``for_each``
over a residual selection of the scanned prefix; after it, its store holds the last scanned
element's result, which a later call may read (the order then acted on). A scan's calls store
under one key or each under its own (:mod:`jdsl.compiler.staticize.scans` renames them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.expr import MISSING, resolve_path

__all__ = ["LoopSpec", "compress", "element_at", "family_loops"]

_FIRST = re.compile(r"\[0\]")
_INDEX = re.compile(r"\[(\d+)\]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class LoopSpec:
    """Calls of ``tool`` whose ``argument`` is ``<head>[k]<tail>`` for every element k."""

    tool: str
    argument: str
    head: str
    tail: str
    select: bool = False
    prefix: bool = False

    @property
    def token(self) -> str:
        """How the loop reads in a compressed sequence (and the compile report)."""
        mark = "[prefix]" if self.prefix else "[selected]" if self.select else ""
        return f"for_each {self.head}{mark}: {self.tool}"


def _element(step: NormStep, spec: LoopSpec, k: int) -> bool:
    return f"{spec.head}[{k}]{spec.tail}" in step.arg_sources.get(spec.argument, ())


def _indexed_once(step: NormStep, index: re.Pattern[str]) -> Iterator[tuple[str, str, str]]:
    """``(argument, head, tail)`` of each source path ``<head><index><tail>`` of the call's
    arguments whose one match of ``index`` is its first index (``user.orders[0].id``)."""
    for argument, sources in step.arg_sources.items():
        for path in sources:
            match = index.search(path)
            if match is None or index.search(path, match.end()) or "[" in path[: match.start()]:
                continue
            yield argument, path[: match.start()], path[match.end() :]


def _runs_at(ok: Sequence[NormStep], i: int, *, prefix: bool = False) -> list[tuple[int, LoopSpec]]:
    """``(length, spec)`` of every run starting at call ``i`` (longest first); with ``prefix``,
    of every scan (:attr:`LoopSpec.prefix`, the length negative when it stopped early)."""
    step = ok[i]
    found = []
    for argument, head, tail in _indexed_once(step, _FIRST):
        spec = LoopSpec(step.logical_tool, argument, head, tail, select=prefix, prefix=prefix)
        items = resolve_path(spec.head, step.state_before)
        if items is MISSING or not isinstance(items, list) or not items:
            continue
        n = 0
        while n < len(items) and i + n < len(ok):
            if ok[i + n].logical_tool != spec.tool or not _element(ok[i + n], spec, n):
                break
            n += 1
        stores = [c.store for c in ok[i : i + n]]
        if prefix and len(set(stores)) not in (1, len(stores)):
            # a scan stores every element under one key, or each under its own (renamed
            # as the loop's one store, staticize/scans.py)
            continue
        if n == len(items):
            found.append((n, spec))
        elif prefix and n:
            found.append((-n, spec))
    return sorted(found, key=lambda f: (-f[0], f[1].head, f[1].argument))


def element_at(step: NormStep, spec: LoopSpec) -> int | None:
    """Which element of ``spec.head`` the call's argument is (``<head>[k]<tail>``), or None."""
    if step.logical_tool != spec.tool:
        return None
    for path in step.arg_sources.get(spec.argument, ()):
        if path.startswith(spec.head + "[") and path.endswith(spec.tail):
            middle = path[len(spec.head) + 1 : len(path) - len(spec.tail) - 1]
            if middle.isdigit():
                return int(middle)
    return None


def _others(step: NormStep, argument: str) -> str:
    """The call's arguments other than ``argument``, as comparable text."""
    return json.dumps({k: v for k, v in step.arguments.items() if k != argument},
                      sort_keys=True, default=str)  # fmt: skip


def _selected_at(ok: Sequence[NormStep], i: int) -> list[tuple[int, LoopSpec]]:
    """``(length, spec)`` of every run of calls over different elements starting at call ``i``
    (:attr:`LoopSpec.select`; longest first)."""
    step = ok[i]
    found = []
    for argument, head, tail in _indexed_once(step, _INDEX):
        spec = LoopSpec(step.logical_tool, argument, head, tail, select=True)
        taken: set[int] = set()
        same = _others(step, argument)
        n = 0
        while i + n < len(ok):
            k = element_at(ok[i + n], spec)
            if k is None or k in taken or _others(ok[i + n], argument) != same:
                break
            taken.add(k)
            n += 1
        found.append((n, spec))
    return sorted(found, key=lambda f: (-f[0], f[1].head, f[1].argument))


def _all_runs_at(ok: Sequence[NormStep], i: int) -> list[tuple[int, LoopSpec]]:
    return _runs_at(ok, i) + _runs_at(ok, i, prefix=True) + _selected_at(ok, i)


def family_loops(
    episodes: Sequence[NormEpisode],
    *,
    min_support: int = 2,
    read_only: Callable[[str], bool] | None = None,
) -> frozenset[LoopSpec]:
    """The loops of a family: specs with a run of two or more elements in some episode, run
    over every element (or, :attr:`LoopSpec.select`, over some) in at least ``min_support``
    episodes. A loop over every element needs less where no run of the family contradicts it
    (:func:`_uncontested`): reading each of the three reservations of the one run compiled
    from is how the run looked, and a fixed count of reads by position would read three of
    a user's five (issue 24, "positions are choices"). A selection loop whose tool a loop over every element covers is left out, and
    so is one of a ``read_only`` tool (a read of some elements keeps each result: a later call
    may read the second one looked up, which after a loop no store holds). Writes acting on
    elements (:func:`_acting`) are selection loops whatever their support."""
    long: set[LoopSpec] = set()
    early: set[LoopSpec] = set()  # scans that stopped before the list's end in some episode
    support: dict[LoopSpec, int] = {}
    for episode in episodes:
        ok = episode.ok_steps()
        here: set[LoopSpec] = set()
        for i in range(len(ok)):
            for n, spec in _all_runs_at(ok, i):
                here.add(spec)
                if n < 0:
                    early.add(spec)
                if abs(n) >= 2:
                    long.add(spec)
        for spec in here:
            support[spec] = support.get(spec, 0) + 1
    found = {spec for spec in long if support[spec] >= min_support
             or (not spec.select and _uncontested(episodes, spec, support[spec]))}  # fmt: skip
    scans = {
        (s.tool, s.argument, s.head, s.tail) for s in found
        if s.prefix and s in early and read_only is not None and read_only(s.tool)
        and _one_list(episodes, s)
    }  # fmt: skip
    found |= _acting(episodes, read_only, {tool for tool, *_ in scans})
    every = {(s.tool, s.argument, s.head, s.tail) for s in found if not s.select}
    return frozenset(
        s for s in found
        if ((s.tool, s.argument, s.head, s.tail) in scans) == s.prefix
        and not (s.select and not s.prefix
                 and ((s.tool, s.argument, s.head, s.tail) in every | scans
                      or read_only is None or read_only(s.tool)))
    )  # fmt: skip


def _uncontested(episodes: Sequence[NormEpisode], spec: LoopSpec, support: int) -> bool:
    """Whether every episode calling ``spec.tool`` on an element of its list (``support`` of
    them went over every element) went over every element, each call the model's choice
    (:attr:`NormStep.model_chosen`; a teacher program's own calls keep their count): no run
    read only some."""
    touched = 0
    for episode in episodes:
        calls = [s for s in episode.steps if s.ok and element_at(s, spec) is not None]
        if not all(s.model_chosen for s in calls):
            return False
        touched += bool(calls)
    return touched == support


def _one_list(episodes: Sequence[NormEpisode], spec: LoopSpec) -> bool:
    """Whether every stretch of consecutive calls of the scan's tool that reads an element of
    its list reads elements of that one list only: a run that read ``order_1.items[0]`` then
    ``order_2.items[0]`` read items of several lists, which is no scan of one (a loop over one
    list stopping at the element found)."""
    for episode in episodes:
        stretch: list[int | None] = []
        for step in [*episode.ok_steps(), None]:
            if step is not None and step.logical_tool == spec.tool:
                stretch.append(element_at(step, spec))
                continue
            if None in stretch and any(k is not None for k in stretch):
                return False
            stretch = []
    return True


def _derived(step: NormStep, argument: str, earlier: Sequence[NormStep], head: str) -> bool:
    """Whether ``argument`` of ``step`` is a value of one element of ``head`` or of the object
    that holds the list: a source in the list itself, in the result of an ``earlier`` call on
    one of its elements (the payment of the reservation being updated), or another field of
    the list's holder (``target.cabin`` next to ``target.payment_history[0]``: the call acts on
    ``target``, not on an element of its list). A value per element, which a loop cannot
    repeat; a run input (a bare name among the sources) is not."""
    paths = [*step.arg_sources.get(argument, ()),
             *(p for ps in step.element_sources.get(argument, ()) for p in ps),
             *(s.head for s in step.list_sources.get(argument, ()))]  # fmt: skip
    if any(_NAME.fullmatch(p) for p in paths):
        return False
    holder = head.rpartition(".")[0]
    stores = {
        str(s.store) for s in earlier if s.store
        and any(p.startswith(head + "[") for ps in s.arg_sources.values() for p in ps)
    }  # fmt: skip
    return any(p.startswith(head + "[") or (holder and p.startswith(holder + "."))
               or re.split(r"[.\[]", p, maxsplit=1)[0] in stores for p in paths)  # fmt: skip


def _found_by(step: NormStep, argument: str, earlier: Sequence[NormStep],
              scanned: Collection[str]) -> bool:  # fmt: skip
    """Whether the lineage of ``argument`` is a field of the result of a call of a
    ``scanned`` tool."""
    lineage = step.arg_lineage.get(argument) or ""
    top = re.split(r"[.\[]", lineage, maxsplit=1)[0]
    return bool(top) and any(s.store == top and s.logical_tool in scanned for s in earlier)


def _acting(
    episodes: Sequence[NormEpisode],
    read_only: Callable[[str], bool] | None,
    scanned: Collection[str] = (),
) -> set[LoopSpec]:
    """Writes acting on elements: a write the model chose (:attr:`NormStep.model_chosen`) whose
    argument is ``<head>[k]<tail>``, one call or several, in every call of that tool in every
    episode, never stated by the user, each other argument not a value of the element
    (:func:`_derived`), the list holding several elements in some call (one element is no
    choice seen). How many elements a run acts on is the run's choice, even in one run: a loop
    over a selection. A write on what a scan found (its argument's lineage a store of a
    ``scanned`` tool: the order read last) acts on that one: the scan is the structure."""
    if read_only is None:
        return set()
    by_tool: dict[str, set[LoopSpec]] = {}
    refused: set[str] = set()
    among: set[LoopSpec] = set()  # picked among several elements in some call
    for episode in episodes:
        ok = episode.ok_steps()
        for i, step in enumerate(ok):
            tool = step.logical_tool
            if read_only(tool) or tool in refused:
                continue
            if any(_found_by(step, a, ok[:i], scanned) for a in step.arguments):
                refused.add(tool)
                by_tool[tool] = set()
                continue
            here = {
                s for n, s in _selected_at(ok, i) if n and s.argument not in step.stated_args
                and not any(_derived(step, a, ok[:i], s.head) for a in step.arguments
                            if a != s.argument)
            } if step.model_chosen else set()  # fmt: skip
            by_tool[tool] = by_tool[tool] & here if tool in by_tool else here
            if not by_tool[tool]:
                refused.add(tool)
            for spec in here:
                items = resolve_path(spec.head, step.state_before)
                if isinstance(items, list) and len(items) > 1:
                    among.add(spec)
    return {s for specs in by_tool.values() for s in specs if s in among}


def compress(
    episode: NormEpisode, loops: Collection[LoopSpec]
) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...], dict[str, LoopSpec]]:
    """``(tokens, positions per token, {token: loop})`` of the episode's successful calls."""
    ok = episode.ok_steps()
    tokens: list[str] = []
    positions: list[tuple[int, ...]] = []
    specs: dict[str, LoopSpec] = {}
    i = 0
    while i < len(ok):
        run = (
            next(((n, s) for n, s in _all_runs_at(ok, i) if s in loops and n), None)
            if loops
            else None
        )
        if run is None:
            tokens.append(ok[i].logical_tool)
            positions.append((i,))
            i += 1
            continue
        n, spec = run
        n = abs(n)
        tokens.append(spec.token)
        positions.append(tuple(range(i, i + n)))
        specs[spec.token] = spec
        i += n
    return tuple(tokens), tuple(positions), specs
