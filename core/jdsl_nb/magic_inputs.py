"""``--input KEY=VALUE`` for the magics: :mod:`jdsl.inputs` reads them, as ``jdsl run`` does.

The magic line is split as a shell splits it (:mod:`jdsl_nb.shellwords`: ``--input "request=
cancel my order"`` is one item, its quotes gone); each item is then read by
:func:`jdsl.inputs.parse_inputs` with the types the tree declares
(:func:`jdsl.inputs.tree_input_types`: the annotation of the bound tool parameter that reads the
key whole, or a typed signature input). So ``zip=80279`` stays the string ``"80279"`` for
``find_user_id_by_name_zip(zip: str)`` and is the int 80279 for ``def f(zip: int)``; with no
declared type ``KEY=VALUE`` is the string VALUE and ``KEY:=JSON`` the JSON value;
``KEY=@PATH`` reads the file. A value the run view should flag (text that looks like JSON and
no declared type) gets a note (:attr:`TypedInputs.notes`). A bad item is a ``UsageError`` with
the message ``jdsl run`` gives for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from IPython.core.error import UsageError
from jdsl.errors import InputError
from jdsl.inputs import input_json, parse_inputs, split_pair, tree_input_types

__all__ = ["TypedInputs", "input_keys", "split_pairs", "typed_inputs"]


@dataclass
class TypedInputs:
    """The run inputs and one note per value the reader would flag.

    Attributes:
        values: key -> value, ready for ``run(**values)``.
        notes: e.g. ``--input n=3 is the text '3' (nothing declares the type of n); write
            --input n:=3 for the int 3``.
    """

    values: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _usage(exc: InputError) -> NoReturn:
    """The magic's form of the reader's error: the text ``jdsl run`` prints after
    ``Invalid value for '--input':``."""
    raise UsageError(f"--input: {exc}") from None


def split_pairs(pairs: list[list[str]] | list[str] | None) -> list[str]:
    """The ``KEY=VALUE`` items of the magic line (argparse may nest them), each checked.

    Raises:
        UsageError: an item without ``=`` or without a key, or a key run() itself takes.
    """
    flat: list[str] = []
    for item in pairs or []:
        flat.extend(item if isinstance(item, list) else [item])
    for item in flat:
        try:
            split_pair(item)
        except InputError as exc:
            _usage(exc)
    return flat


def input_keys(items: list[str]) -> list[str]:
    """The keys of checked items (:func:`split_pairs`)."""
    return [split_pair(item)[0] for item in items]


def typed_inputs(items: list[str], tree: Any, bindings: Any) -> TypedInputs:
    """Read ``items`` with :func:`jdsl.inputs.parse_inputs`, typed by ``tree`` as ``bindings``
    (``.tools`` / ``.predicates``, as a run resolves them) binds it (module docstring).

    Raises:
        UsageError: any item :func:`jdsl.inputs.parse_inputs` refuses, with its message.
    """
    tools: dict[str, Callable[..., Any]] = dict(getattr(bindings, "tools", None) or {})
    predicates: dict[str, Callable[..., Any]] = dict(getattr(bindings, "predicates", None) or {})
    types = tree_input_types(tree, tools, predicates) if items else {}
    try:
        values = parse_inputs(items, types=types)
    except InputError as exc:
        _usage(exc)
    result = TypedInputs(values=values)
    for item in items:
        key, text, as_json = split_pair(item)
        note = None if as_json or key in types else _looks_like_json(key, text)
        if note:
            result.notes.append(note)
    from jdsl.tree import Node

    if items and isinstance(tree, Node):
        from jdsl.inputs import unread_inputs_note

        unread = unread_inputs_note(tree, input_keys(items))
        if unread:
            result.notes.append(unread)
    return result


def _looks_like_json(key: str, text: str) -> str | None:
    """A note for untyped text that reads as a JSON number, boolean, null, list or object."""
    if text.startswith("@"):
        return None
    try:
        value = input_json(text)
    except (json.JSONDecodeError, ValueError):
        return None
    if isinstance(value, str):
        return None
    return (
        f"--input {key}={text} is the text {text!r} (nothing declares the type of {key}); write "
        f"--input {key}:={text} for the {type(value).__name__} {value!r}"
    )
