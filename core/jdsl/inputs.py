"""Run inputs given as text, ``KEY=VALUE``: the one reading of the commands (``jdsl run``,
``jdsl package run``, ``jdsl export otel --attribute``) and of the notebook's ``%behavior
--input`` (``jdsl_nb/magic_inputs.py``, which only splits the magic line as a shell would).

``KEY=VALUE`` is the string VALUE, unless the reader records the type of KEY (for a package: a
tool argument that reads KEY whole, ``tools.json``, or a typed input field of a model leaf's
signature, :func:`jdsl.package.input_types`; for a tree: the annotation of the bound tool's
parameter that reads KEY whole, or a typed signature input, :func:`tree_input_types`). Then
VALUE is read as that type (``zip=77209`` stays the string ``"77209"`` for ``find_user(zip:
str)``, ``count=3`` is the integer 3 for ``count: int``) and checked against it. ``KEY:=JSON``
(as in httpie) always gives the JSON value, unchecked. ``KEY=@PATH`` and ``KEY:=@PATH`` read
the value's text from the file PATH (as in httpie), then the same way. ``KEY=`` with nothing
after it is refused: it is most often a shell variable that is not set (``email=$EMAIL``); an
empty string on purpose is ``KEY:='""'``.

>>> parse_inputs(["name=Ada", "n:=3", "zip=02134"], types={"zip": [("find.zip", {"type": "string"})]})
{'name': 'Ada', 'n': 3, 'zip': '02134'}
>>> parse_inputs(["count=3"], types={"count": [("f.count", {"type": "integer"})]})
{'count': 3}
"""

from __future__ import annotations

import inspect
import json
import re
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from jdsl.errors import InputError
from jdsl.ir.nodes import nesting_problem
from jdsl.ir.walk import as_ir, walk_ir
from jdsl.signature import Signature
from jdsl.tree.root import Root
from jdsl.tree.schemas import JSON_TYPES, parameter_schema

__all__ = [
    "RUN_PARAMETERS",
    "SCHEMA_TYPES",
    "InputUse",
    "check_input_name",
    "input_json",
    "parse_inputs",
    "signature_reads",
    "split_pair",
    "tree_input_types",
    "typed_value",
    "unread_inputs_note",
]

InputUse = tuple[str, dict[str, Any]]
"""Where a run input is read whole and its JSON Schema: ``("lookup.email", {...})``."""

SCHEMA_TYPES: Mapping[str, type] = types.MappingProxyType(
    {name: kind for kind, name in reversed(list(JSON_TYPES.items())) if name != "null"}
)
"""JSON Schema ``type`` -> the Python type of its values (``"integer"`` -> int), read from
:data:`jdsl.tree.schemas.JSON_TYPES` (``"array"`` -> list, the first type it lists)."""


RUN_PARAMETERS: frozenset[str] = frozenset(
    name
    for name, parameter in inspect.signature(Root.run).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY
)
"""``run()``'s own keyword parameters (``model``, ``trace_sink``, ``tools``, ...): no run input
can have these names, since inputs are ``run(**inputs)``."""


def check_input_name(key: str) -> None:
    """Raise :class:`InputError` when ``key`` is one of :data:`RUN_PARAMETERS`."""
    if key in RUN_PARAMETERS:
        raise InputError(
            f"{key!r} is a parameter of run() itself, not a blackboard key; "
            "name the input otherwise (the tree reads it by that name)",
            key=key,
        )


def input_json(text: str) -> Any:
    """The JSON value of an input's text.

    Raises:
        json.JSONDecodeError: not JSON.
        ValueError: a value no run can carry (nested deeper than an IR may be, NaN or
            Infinity, an int over the digit limit): never a RecursionError.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    problem = nesting_problem(value)
    if problem:
        raise ValueError(problem.replace("the document", "the value"))
    return value


def split_pair(pair: str) -> tuple[str, str, bool]:
    """``"k=v"`` -> ``("k", "v", False)``; ``"n:=3"`` -> ``("n", "3", True)`` (a JSON value).

    Raises:
        InputError: an item without ``=`` or without a key.
    """
    key, sep, text = pair.partition("=")
    as_json = key.endswith(":")
    key = key.removesuffix(":").strip()
    if not sep or not key:
        raise InputError(f"{pair!r} is not KEY=VALUE; use KEY=VALUE (or KEY:=JSON)", key=key)
    check_input_name(key)
    return key, text, as_json


def parse_inputs(
    pairs: Sequence[str], *, types: Mapping[str, Sequence[InputUse]] | None = None
) -> dict[str, Any]:
    """``["k=v", "n:=3", ...]`` -> ``{k: "v", n: 3}`` (the rule in the module docstring).

    Args:
        pairs: ``KEY=VALUE`` (a string, or the type ``types`` records for KEY) or
            ``KEY:=JSON`` (a JSON value).
        types: ``{key: [(where, JSON Schema)]}``, e.g. from :func:`jdsl.package.input_types`.

    Raises:
        InputError: an item without ``=``, an empty value (``KEY=``), a key given twice, bad
            JSON after ``:=``, or a value that does not fit the recorded type.
    """
    inputs: dict[str, Any] = {}
    for pair in pairs:
        key, text, as_json = split_pair(pair)
        if key in inputs:
            raise InputError(f"{key!r} is given twice; keep one of them", key=key)
        if not text and not as_json:
            raise InputError(
                f"{key}= has an empty value (a shell variable that is not set?); pass a value, "
                f"or {key}:='\"\"' for an empty string",
                key=key,
            )
        given = text
        if text.startswith("@"):
            text = _file_text(key, text[1:], ":=" if as_json else "=")
        if as_json:
            inputs[key] = _json(key, text, given)
        else:
            inputs[key] = typed_value(key, text, (types or {}).get(key, ()))
    return inputs


def _json(key: str, text: str, given: str) -> Any:
    """``text`` as JSON; ``given`` is what the item said (``@PATH`` for a file's text)."""
    try:
        return input_json(text)
    except json.JSONDecodeError:
        what = "its text" if given != text else "a string"
        raise InputError(
            f"{key}:={given} is not JSON; write {key}={given} for {what}", key=key
        ) from None
    except ValueError as exc:  # too deep, NaN, an int over the digit limit
        raise InputError(f"{key}:=...: {str(exc)[:120]}; pass a smaller value", key=key) from None


MAX_FILE_BYTES = 10_000_000
"""The largest file ``KEY=@PATH`` reads (a run input is held in memory and traced)."""


def _file_text(key: str, name: str, sep: str) -> str:
    """The text of the file ``name`` (``KEY=@name``).

    Raises:
        InputError: no such regular file, unreadable, over :data:`MAX_FILE_BYTES`, or not UTF-8.
    """
    literal = f"{key}:='\"@{name}\"'"
    try:
        path = Path(name).expanduser()
        if not name or not path.is_file():
            raise InputError(
                f"{key}{sep}@{name}: no file {name!r} (from {Path.cwd()}); @PATH reads the value "
                f"from a file: name an existing file, or write {literal} for the text @{name}",
                key=key,
            )
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(
                f"{key}{sep}@{name}: the file is over {MAX_FILE_BYTES:,} bytes; pass a smaller "
                "file",
                key=key,
            )
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError, RuntimeError) as exc:  # NUL, ~nobody
        if isinstance(exc, InputError):
            raise
        raise InputError(
            f"{key}{sep}@{name}: cannot read it as UTF-8 text ({type(exc).__name__}: {exc})",
            key=key,
        ) from None


def _allows_string(schema: Mapping[str, Any]) -> bool:
    """Whether a string can fit ``schema`` (``Optional[int]``'s ``anyOf`` cannot)."""
    kind = schema.get("type")
    if kind is None:
        branches = [
            b for k in ("anyOf", "oneOf") for b in schema.get(k) or () if isinstance(b, Mapping)
        ]
        return not branches or any(_allows_string(b) for b in branches)
    return kind == "string" or (isinstance(kind, list) and "string" in kind)


def typed_value(key: str, text: str, uses: Sequence[InputUse]) -> Any:
    """``text`` read as the type every use records (JSON when one does not take a string),
    checked against each use's JSON Schema.

    Raises:
        InputError: the value does not fit a use's schema.
    """
    value: Any = text
    if not all(_allows_string(schema) for _, schema in uses):
        try:
            value = input_json(text)  # never a RecursionError
        except ValueError:
            pass  # the check below names the type wanted
    for where, schema in uses:
        from jdsl.interaction.schemas import load_jsonschema, safe_validator  # RE2, no fetch

        load_jsonschema()  # lazy: jsonschema costs ~0.5 s to import
        from jsonschema.exceptions import best_match

        try:
            error = best_match(safe_validator(schema).iter_errors(value))
        except RecursionError:  # {"$ref": "#"}: a schema that refers to itself without end
            raise InputError(
                f"{key}: the schema of {where} refers to itself without end ($ref); fix the "
                f"package's schema, or pass {key}:=JSON to pass a JSON value unchecked",
                key=key,
            ) from None
        if error is not None:
            raise InputError(
                f"{key}={_cut(repr(text))} does not fit {where} ({_cut(error.message, 160)}); "
                f"pass a value of its type, or {key}:=JSON to pass a JSON value unchecked",
                key=key,
            )
    return value


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def signature_reads(node: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(key, where, JSON Schema)`` for each input field of a predict or react leaf typed other
    than ``str`` (an untyped field reads as ``str``), read from the key its ``input_sources``
    names (else the field's name)."""
    from pydantic import TypeAdapter

    if node.get("kind") not in ("predict", "react") or not node.get("signature"):
        return
    sources = node.get("input_sources") or {}
    for field in Signature.parse(str(node.get("signature"))).inputs:
        key = str(sources.get(field.name, field.name))
        if field.type != "str" and _KEY.fullmatch(key):
            where = f"{node.get('id') or node.get('kind')} input {field.name}"
            yield key, where, TypeAdapter(field.annotation).json_schema()


def tree_input_types(
    tree: Any,
    tools: Mapping[str, Callable[..., Any]] | None = None,
    predicates: Mapping[str, Callable[..., Any]] | None = None,
) -> dict[str, list[InputUse]]:
    """``{key: [(where, JSON Schema)]}``: where ``tree`` reads a run input whole with a declared
    type, for :func:`parse_inputs` (``jdsl run --tools``, the notebook's ``--input``).

    Sources: an action (guard_call) argument ``{"ref": key}`` whose bound tool (predicate) in
    ``tools`` (``predicates``) annotates that parameter (a :func:`jdsl.tool`'s declared schema
    first); a typed input field of a predict or react signature (:func:`signature_reads`).

    Args:
        tree: a :class:`~jdsl.tree.Root`, a node, or an IR dict.
        tools / predicates: name -> callable, as a run binds them.
    """
    uses: dict[str, list[InputUse]] = {}
    for node in walk_ir(as_ir(tree)):
        kind = node.get("kind")
        if kind in ("predict", "react"):
            for key, where, schema in signature_reads(node):
                uses.setdefault(key, []).append((where, schema))
            continue
        name = str(node.get("tool") if kind == "action" else node.get("predicate"))
        table = tools if kind == "action" else predicates if kind == "guard_call" else None
        fn = (table or {}).get(name)
        if fn is not None:
            for key, where, schema in _argument_reads(node, name, fn):
                uses.setdefault(key, []).append((where, schema))
    return uses


def _argument_reads(
    node: Mapping[str, Any], name: str, fn: Callable[..., Any]
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(key, "tool.arg", JSON Schema)`` per argument that reads a key whole into an annotated
    parameter of ``fn``."""
    for arg, spec in (node.get("args") or {}).items():
        ref = spec.get("ref") if isinstance(spec, Mapping) else None
        if isinstance(ref, str) and _KEY.fullmatch(ref):
            declared = parameter_schema(fn, arg)
            if declared:
                yield ref, f"{name}.{arg}", dict(declared)


def _cut(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (a value read from a file may be long)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def unread_inputs_note(tree: Any, keys: Sequence[str], option: str = "--input") -> str | None:
    """The warning for run inputs ``tree`` never reads (None when it reads them all).

    Shared by ``jdsl run`` and the notebook's ``%behavior --input``, so both flag a typo'd or
    stale key the same way. "Read" is the static check's input set (keys some node reads and
    no node writes first); ``guard exists(key)`` reads are not counted there, so this warns
    and never refuses.

    Args:
        tree: a :class:`jdsl.tree.Root` (or any node :func:`jdsl.tree.check.check_tree` takes).
        keys: the input keys given.
        option: the flag named in the text.
    """
    from jdsl.tree.check import check_tree

    read = set(check_tree(tree).inputs)
    unread = [key for key in keys if key not in read]
    if not unread:
        return None
    names = ", ".join(unread)
    reads = ", ".join(sorted(read)) or "no inputs"
    return (
        f"{option} {names}: the tree never reads {'it' if len(unread) == 1 else 'them'} "
        f"(it reads: {reads}); check the spelling"
    )
