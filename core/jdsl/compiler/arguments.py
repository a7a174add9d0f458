"""How staticize represents one argument of one call slot: a ref, a run input or a constant.

A call slot is ``(position, tool, argument)`` in the skeleton, so two calls of one tool at two
positions never collapse into one ambiguous input (seeds/compiler-internals.md §5). Order of
preference over the episodes that follow the skeleton ("aligned" episodes):

1. ``dataflow``: an exact lineage path that explains the value in *every* aligned episode and
   whose names are available at that point of the compiled tree -> ``{"ref": path}``;
2. ``input``: it varies (or a model chose it) and always equals the same run input ->
   ``{"ref": input}``;
3. ``const``: the value never varies (and is not an identifier a model chose) ->
   ``{"const": value}``;
4. ``residual``: it varies and a model chose it (a react call) -> a predict answers it;
5. ``input`` (synthesized name): it varies and nothing explains it -> a new run input.

A varying argument that no lineage explains is never silently compiled to a constant.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.names import slug
from jdsl.compiler.normalized import NormStep
from jdsl.expr import parse_path

__all__ = [
    "ArgChoice",
    "choose_argument",
    "input_names",
    "looks_like_id",
    "path_names",
    "stable_key",
    "top_key",
]

_FREE = "\0free"


@dataclass(frozen=True)
class ArgChoice:
    """The representation chosen for one argument.

    Attributes:
        argument: the keyword.
        how: ``dataflow``, ``const``, ``input`` or ``residual``.
        spec: ``{"ref": path}`` or ``{"const": value}``.
        source: the lineage path, input name or residual output key (None for constants).
        values: the recorded values over the aligned episodes.
    """

    argument: str
    how: str
    spec: dict[str, Any]
    source: str | None
    values: tuple[Any, ...]


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


def _dataflow(argument: str, steps: Sequence[NormStep], available: set[str] | None) -> str | None:
    """The best path explaining every step's value (names available, unless None)."""
    for path in steps[0].arg_sources.get(argument, ()):
        if (available is None or path_names(path) <= available) and all(
            path in s.arg_sources.get(argument, ()) for s in steps[1:]
        ):
            return path
    return None


def _common_input(argument: str, steps: Sequence[NormStep]) -> str | None:
    keys = {s.input_args.get(argument) for s in steps}
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
) -> ArgChoice:
    """Choose the representation of ``argument`` over the aligned steps of one slot.

    A model-chosen argument (a react call) that repeats a run input refs the input even when
    it never varied, and an identifier-like value a model chose is never frozen into a
    constant: it stays a residual decision.

    Args:
        argument: the keyword.
        steps: the slot's step in every aligned episode (the representative first).
        available: the blackboard keys produced before this point (None: ignore availability).
        synthesized_input: the name a new run input (or residual output) gets.
    """
    values = tuple(s.arguments.get(argument) for s in steps)
    path = _dataflow(argument, steps, available)
    if path is not None:
        return ArgChoice(argument, "dataflow", {"ref": path}, path, values)
    chosen = steps[0].model_chosen
    varies = len({stable_key(v) for v in values}) > 1
    key = _common_input(argument, steps)
    if key is not None and (varies or chosen):
        return ArgChoice(argument, "input", {"ref": key}, key, values)
    if not varies and not (chosen and looks_like_id(values[0])):
        return ArgChoice(argument, "const", {"const": values[0]}, None, values)
    how = "residual" if chosen else "input"
    return ArgChoice(argument, how, {"ref": synthesized_input}, synthesized_input, values)


def input_names(
    slots: Iterable[tuple[Any, int, str, str, Sequence[NormStep]]],
) -> dict[tuple[Any, str], str]:
    """Names for arguments that may need a synthesized run input, per ``(slot key, argument)``.

    Each slot is ``(key, position, tool, argument, steps)``, ``key`` unique per compiled call.
    The bare argument name when no other varying, unexplained slot shares it, else
    ``<tool>_<position>_<argument>`` (reference jdsl-py §5.4).
    """
    free: list[tuple[Any, int, str, str]] = []
    for key, position, tool, argument, steps in slots:
        choice = choose_argument(argument, steps, available=None, synthesized_input=_FREE)
        if choice.source == _FREE:
            free.append((key, position, tool, argument))
    counts: dict[str, int] = {}
    for *_, argument in free:
        counts[argument] = counts.get(argument, 0) + 1
    return {
        (key, argument): argument
        if counts[argument] == 1
        else f"{slug(tool)}_{position}_{argument}"
        for key, position, tool, argument in free
    }
