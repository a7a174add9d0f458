"""Unused reads: a read-only call whose result nothing after it depends on is not compiled.

Runs of one family read different things on the way (a second ``get_user_details``, a
``list_all_product_types`` whose answer nobody looks at): kept, each such read splits the
family into paths and each path into thinner arms. :func:`drop_unused_reads` removes, per
episode, each successful read-only call (its contract in ``effects``, else
:func:`jdsl.package.default_effects`) whose result no later consumer depends on:

* an argument of a later call that is kept: its best exact source (``arg_lineage``, else its
  first; a catalog read without arguments gives way to another exact source), its list and
  element sources; a read made again (the same call, answered the
  same) stands for the first one, which is kept instead;
* a guard the teacher evaluated later, or a later model decision's ``input_sources`` or the
  inputs its signature names;
* a value a model wrote later (an argument no exact source explains, a decision's outputs)
  that mentions a string of the result;
* what the agent said to the user after the read (``NormEpisode.replies``) when it mentions
  a value of the result that no other call before that message returned and the user did not
  say: the message depends on this read;
* a run that writes nothing keeps every read: its reads are what it delivers (what the agent
  tells the user comes from them).

Only reads some runs of the family make and others do not (or make more often:
:func:`varying_reads`) are candidates: a read every run makes as often is the family's way of
working (identifying the user, a lookup the policy asks for), kept whatever depends on it.

It runs backwards, so a read only a dropped read depended on is dropped too; a scan is kept
whole (the calls of one tool over the elements of one list in state, when one of them is
needed: reading every order is how the agent found the one it acted on), and so is a
traversal of every element of a list (a loop, whatever reads its results). Failed calls stay
(a recovery's evidence) and consume like the others. The dropped key is removed from the later
calls' sources and states, so no compiled ref can name it. The compile report lists each
dropped read with its support (:func:`unused_notes`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from jdsl.compiler.arguments import path_names
from jdsl.compiler.families import is_write
from jdsl.compiler.noops import without_steps
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.store import NormStore
from jdsl.expr import resolve_path

__all__ = [
    "UnusedReads",
    "drop_unused_reads",
    "scrubbed",
    "unused_notes",
    "unused_reads",
    "varying_reads",
]

UnusedReads = dict[str, tuple[int, int, int]]
"""``{tool: (calls dropped, runs they were dropped in, runs that made a successful call of
the tool)}``."""

_MIN_TEXT = 4  # shorter strings ("ok", "yes") say nothing about where a text came from
_MAX_VALUES = 300


def _top(path: str) -> str:
    return path.split(".", 1)[0].split("[", 1)[0]


def _refs(value: Any, found: set[str]) -> set[str]:
    """The top-level keys the ``{"ref": path}`` s inside an expression read."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "ref" and isinstance(item, str):
                found |= path_names(item)
            else:
                _refs(item, found)
    elif isinstance(value, list):
        for item in value:
            _refs(item, found)
    return found


def _signature_inputs(signature: str) -> set[str]:
    """The input names of a signature text (``request, profile -> x: int``): a model
    decision reads the blackboard keys its inputs name."""
    left = signature.split("->", 1)[0] if "->" in signature else ""
    return {part.split(":", 1)[0].strip() for part in left.split(",") if part.strip()}


def _consumed(step: NormStep, repeats: Mapping[str, str], catalogs: Collection[str]) -> set[str]:
    """The top-level keys one call's arguments need: per argument its lineage (else its first
    exact source), unless that is a catalog (a read called without arguments, ``catalogs``:
    ``list_all_product_types``) and another source holds the value too (the order the item is
    in); a key a repeated read wrote (the same call made before, ``repeats``) stands for the
    first one's."""
    found: set[str] = set()
    for arg, paths in step.arg_sources.items():
        best = step.arg_lineage.get(arg) or (paths[0] if paths else None)
        if best and _top(best) in catalogs:
            best = next((p for p in paths if _top(p) not in catalogs), best)
        if best:
            found.add(repeats.get(_top(best), _top(best)))
    for elements in step.element_sources.values():
        for paths in elements:
            if paths:
                found.add(repeats.get(_top(paths[0]), _top(paths[0])))
    for sources in step.list_sources.values():
        found.update(_top(s.head) for s in sources)
    return found


def _written(step: NormStep) -> list[str]:
    """JSON texts of the arguments a model wrote that no exact source explains."""
    return [_plain(json.dumps(v, ensure_ascii=False, default=str))
            for a, v in step.arguments.items()
            if not step.arg_sources.get(a) and not step.list_sources.get(a)]  # fmt: skip


def _plain(text: str) -> str:
    """``text`` as compared: lower case, ``_`` as a space, no thousands separators
    (``basic_economy`` is said "basic economy", ``1194.0`` "$1,194")."""
    return text.lower().replace("_", " ").replace(",", "")


def _values(value: Any) -> set[str]:
    """Up to ``_MAX_VALUES`` strings (of ``_MIN_TEXT`` characters or more) and numbers inside
    ``value``, as :func:`_plain` text."""
    found: set[str] = set()
    stack = [value]
    while stack and len(found) < _MAX_VALUES:
        item = stack.pop()
        if isinstance(item, str):
            if len(item.strip()) >= _MIN_TEXT:
                found.add(_plain(item.strip()))
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            number = str(int(item)) if float(item).is_integer() else str(item)
            if len(number) >= 3:
                found.add(number)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


class _Said:
    """What the agent said to the user (``replies``, as :func:`_plain` text) and what the user
    said, with each call's result values, computed once per episode and only when asked."""

    def __init__(self, episode: NormEpisode) -> None:
        self.episode = episode
        self._replies: list[tuple[int, str]] | None = None
        self._said = ""
        self._values: dict[int, set[str]] = {}

    def values(self, step: NormStep) -> set[str]:
        if step.index not in self._values:
            self._values[step.index] = _values(step.result) if step.ok else set()
        return self._values[step.index]

    def after(self, step: NormStep) -> bool:
        """Whether a message the agent sent after ``step`` (a successful call) mentions one of
        its result's values that no other call before that message returned and the user did
        not say."""
        if self._replies is None:
            self._replies = [(n, _plain(text)) for n, text in self.episode.replies]
            self._said = _plain(" ".join(self.episode.conversation))
        at = step.position if step.position is not None else 0
        replies = [(n, text) for n, text in self._replies if n > at]
        values = self.values(step) if replies else set()
        for n, text in replies:
            mentioned = {v for v in values if v in text and v not in self._said}
            for other in self.episode.steps:
                if not mentioned:
                    break
                if other.ok and other.position is not None and other.position < n \
                        and other.position != at:  # fmt: skip
                    mentioned -= self.values(other)
            if mentioned:
                return True
        return False


def unused_reads(
    episode: NormEpisode,
    effects: Mapping[str, Any] | None = None,
    tools: Collection[str] | None = None,
) -> set[int]:
    """The indexes (in ``episode.steps``) of its successful read-only calls whose result
    nothing after them depends on (module docstring); only calls of ``tools`` when given."""
    steps = episode.steps
    if tools is not None and not any(s.ok and s.logical_tool in tools for s in steps):
        return set()  # no call a candidate: nothing to look at
    if not any(s.ok and is_write(s.logical_tool, effects) for s in steps):
        return set()
    later = sorted(
        [(g.position, _refs(g.expression, set())) for g in episode.guards]
        + [(d.position, {k for p in (d.input_sources or {}).values()
                         for k in path_names(str(p).removeprefix("blackboard."))}
            | _signature_inputs(d.signature))
           for d in episode.decisions],
        key=lambda item: item[0],
    )  # fmt: skip
    texts = [_plain(json.dumps(d.outputs, ensure_ascii=False, default=str))
             for d in episode.decisions if d.outputs]  # fmt: skip
    used: set[str] = set(episode.inputs)
    said = _Said(episode)
    first: dict[str, str] = {}
    repeats: dict[str, str] = {}  # the key of a read made again -> the first one's key
    catalogs = {s.store for s in steps if s.ok and s.store and not s.arguments}
    for step in steps:
        if step.ok and step.store:
            same = json.dumps([step.logical_tool, step.arguments, step.result], sort_keys=True,
                              default=str)  # the same call answered the same  # fmt: skip
            repeats.update({step.store: first[same]} if same in first else {})
            first.setdefault(same, step.store)
    final = steps[-1].state_before if steps else {}
    drop: set[int] = set()
    for i in range(len(steps) - 1, -1, -1):
        step = steps[i]
        while later and step.position is not None and later[-1][0] > step.position:
            used |= later.pop()[1]
        key = step.store
        if (
            step.ok and key and key not in used and not is_write(step.logical_tool, effects)
            and step.result not in (None, "")  # a call that answers nothing is a no-op's
            and (tools is None or step.logical_tool in tools)
            and not _mentioned(said.values(step), texts)
            and not _collected(step.result, used, final) and not said.after(step)
        ):  # fmt: skip
            drop.add(i)
            continue
        if key and step.ok:
            used.add(key)
        used |= _consumed(step, repeats, catalogs)
        texts += _written(step)
    scans = {k for i, s in enumerate(steps) if i not in drop for k in _scan(s)}
    scans |= _traversals(steps)
    return {i for i in drop if not scans.intersection(_scan(steps[i]))}


_ONE_ELEMENT = re.compile(r"^(?P<head>[^\[]+)\[(?P<k>\d+)\](?P<tail>[^\[]*)$")


def _traversals(steps: Sequence[NormStep]) -> set[tuple[str, str, str]]:
    """The :func:`_scan` keys of the calls that went over *every* element of a list in state
    (a loop: ``get_order_details`` of each of ``user.orders``, however many): a traversal is
    how the run looked, kept whatever reads its results."""
    seen: dict[tuple[str, str, str], set[int]] = {}
    lists: dict[tuple[str, str, str], int] = {}
    for step in steps:
        if not step.ok:
            continue
        for arg, paths in step.arg_sources.items():
            for path in paths:
                match = _ONE_ELEMENT.match(path)
                if match is None:
                    continue
                key = (step.logical_tool, arg, _ELEMENT.sub("[*]", path))
                seen.setdefault(key, set()).add(int(match["k"]))
                items = resolve_path(match["head"], step.state_before)
                if isinstance(items, list) and key not in lists:
                    lists[key] = len(items)
    return {key for key, ks in seen.items() if key in lists and ks == set(range(lists[key]))}


_ELEMENT = re.compile(r"\[\d+\]")


def _scan(step: NormStep) -> set[tuple[str, str, str]]:
    """``(tool, argument, list)`` for each argument read from an element of a list in state:
    calls of one scan over a list (``get_order_details`` of each of ``user.orders``) share it.
    A scan whose one call something needs keeps all its calls: reading every element is how
    the agent chose the one it acted on."""
    return {(step.logical_tool, arg, _ELEMENT.sub("[*]", p))
            for arg, paths in step.arg_sources.items() for p in paths
            if _ONE_ELEMENT.match(p)}  # fmt: skip


def _mentioned(values: set[str], texts: Sequence[str]) -> bool:
    return bool(texts) and any(v in t for v in values for t in texts)


def _collected(result: Any, used: set[str], state: Mapping[str, Any]) -> bool:
    """Whether ``result`` is an element of a list under a consumed key (a loop's collect)."""
    if result is None:
        return False
    return any(isinstance(state.get(k), list) and result in state[k] for k in used)


def scrubbed(episode: NormEpisode, drop: set[int]) -> NormEpisode:
    """``episode`` without the dropped calls, and without their keys in the later calls'
    sources and states."""
    gone = {episode.steps[i].store for i in drop} - {None}

    def keep(path: str) -> bool:
        return _top(path) not in gone

    steps = []
    for step in episode.steps:
        if not gone.intersection(step.state_before):
            steps.append(step)
            continue
        sources = {a: tuple(p for p in ps if keep(p)) for a, ps in step.arg_sources.items()}
        lineage = {a: (p if keep(p) else sources[a][0]) for a, p in step.arg_lineage.items()
                   if keep(p) or sources.get(a)}  # fmt: skip
        steps.append(dataclasses.replace(
            step,
            arg_sources={a: ps for a, ps in sources.items() if ps},
            arg_lineage=lineage,
            state_before={k: v for k, v in step.state_before.items() if k not in gone},
            element_sources={a: tuple(tuple(p for p in ps if keep(p)) for ps in elements)
                             for a, elements in step.element_sources.items()},
            list_sources={a: tuple(s for s in ss if keep(s.head))
                          for a, ss in step.list_sources.items()},
        ))  # fmt: skip
    return without_steps(dataclasses.replace(episode, steps=tuple(steps)), drop)


def varying_reads(episodes: Sequence[NormEpisode]) -> set[str]:
    """The tools the successful episodes call a varying number of times (some not at all):
    the reads some runs make on the way and others do not."""
    counts: list[dict[str, int]] = []
    for e in episodes:
        if e.success is False:
            continue
        made: dict[str, int] = {}
        for step in e.steps:
            if step.ok:
                made[step.logical_tool] = made.get(step.logical_tool, 0) + 1
        counts.append(made)
    every = {t for made in counts for t in made}
    return {t for t in every if len({made.get(t, 0) for made in counts}) > 1}


def drop_unused_reads(
    episodes: Sequence[NormEpisode], effects: Mapping[str, Any] | None = None,
    *, family: bool = True,
) -> tuple[Sequence[NormEpisode], UnusedReads]:  # fmt: skip
    """``(episodes without their unused reads, what was dropped)``: ``episodes`` itself when
    nothing was (a :class:`~jdsl.compiler.store.NormStore` stays one). With ``family`` (the
    episodes are one family), only reads of :func:`varying_reads` tools: a read every run
    makes as often is the family's way of working (identifying the user, a lookup the policy
    asks for), kept whatever depends on it."""
    tools = varying_reads(episodes) if family else None
    found = [(e, unused_reads(e, effects, tools)) for e in episodes]
    calls: dict[str, list[int]] = {}
    for e, drop in found:
        made = {s.logical_tool for s in e.steps if s.ok}
        dropped = [e.steps[i].logical_tool for i in drop]
        for tool in made:
            counts = calls.setdefault(tool, [0, 0, 0])
            counts[0] += dropped.count(tool)
            counts[1] += tool in dropped
            counts[2] += 1
    report = {t: (c[0], c[1], c[2]) for t, c in sorted(calls.items()) if c[0]}
    if not report:
        return episodes, {}
    rewritten = (scrubbed(e, drop) if drop else e for e, drop in found)
    if isinstance(episodes, NormStore):
        return NormStore(rewritten), report
    return list(rewritten), report


def unused_notes(report: UnusedReads) -> tuple[str, ...]:
    """The compile report's note per dropped read, with its support."""
    return tuple(
        f"unused read {tool} not compiled: {calls} call(s) in {runs} of the {made} run(s) that "
        "made it fed nothing after them (no argument, guard, decision input, model-written "
        "value or message to the user depends on their result)"
        for tool, (calls, runs, made) in report.items()
    )
