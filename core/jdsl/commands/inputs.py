"""What every command that runs a behavior shares: ``--input`` pairs and ``--tools`` modules.

Run inputs (``--input``): ``KEY=VALUE`` is the string VALUE, unless the package records the
type of KEY: a tool argument that reads KEY whole (``tools.json``) or a typed input field of a
model leaf's signature. Then VALUE is read as that type (``zip=77209`` stays the string
``"77209"`` for ``find_user(zip: str)``, ``count=3`` is the integer 3 for ``count: int``) and
checked against it. ``KEY:=JSON`` (as in httpie) always gives the JSON value, unchecked.

Host tools (``--tools module:NAME``): the module is imported with the current directory on
``sys.path`` (``jdsl`` run from a project finds its ``tools.py``), as ``python -m`` would.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import typer

from jdsl.errors import BindingError
from jdsl.package import InputUse

__all__ = ["parse_inputs", "read_tools", "unread_inputs_note"]


def parse_inputs(
    pairs: Sequence[str],
    *,
    option: str = "--input",
    types: Mapping[str, Sequence[InputUse]] | None = None,
) -> dict[str, Any]:
    """``["k=v", "n:=3", ...]`` -> ``{k: "v", n: 3}`` (the rule in the module docstring).

    Args:
        pairs: ``KEY=VALUE`` (a string, or the type ``types`` records for KEY) or
            ``KEY:=JSON`` (a JSON value).
        option: the option the pairs came from, named in errors.
        types: ``{key: [(where, JSON Schema)]}``, e.g. from :func:`input_types`.

    Raises:
        typer.BadParameter: an item without ``=``, bad JSON after ``:=``, or a value that does
            not fit the recorded type.
    """
    inputs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        as_json = key.endswith(":")
        key = key.removesuffix(":").strip()
        if not sep or not key:
            raise typer.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint=option)
        if as_json:
            inputs[key] = _json(key, text, option)
        else:
            inputs[key] = _typed(key, text, (types or {}).get(key, ()), option)
    return inputs


def _json(key: str, text: str, option: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise typer.BadParameter(
            f"{key}:={text} is not JSON; write {key}={text} for a string", param_hint=option
        ) from None


def _allows_string(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind)


def _typed(key: str, text: str, uses: Sequence[InputUse], option: str) -> Any:
    value: Any = text
    if not all(_allows_string(schema) for _, schema in uses):
        try:
            value = json.loads(text)
        except ValueError:
            pass  # the check below names the type wanted
    for where, schema in uses:
        from jsonschema.exceptions import best_match  # lazy: jsonschema costs ~1 s to import

        from jdsl.interaction.schemas import safe_validator  # fetches nothing, RE2 patterns

        error = best_match(safe_validator(schema).iter_errors(value))
        if error is not None:
            raise typer.BadParameter(
                f"{key}={text!r} does not fit {where} ({error.message}); pass a value of its "
                f"type, or {key}:=JSON to pass a JSON value unchecked",
                param_hint=option,
            )
    return value


def read_tools(spec: str) -> Mapping[str, Callable[..., Any]] | Sequence[Callable[..., Any]]:
    """Import ``module:NAME``: a ``{capability: fn}`` mapping, a list of tools, or a function
    without required parameters returning one of those.

    Raises:
        typer.BadParameter: a malformed spec, a missing module or name, or the wrong kind.
        BindingError: importing the module or calling the factory raised.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise typer.BadParameter(f"{spec!r} is not module:NAME", param_hint="--tools")
    try:
        value = getattr(_import_here(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise typer.BadParameter(f"cannot load {spec!r}: {exc}", param_hint="--tools") from exc
    except Exception as exc:  # the user's module: any failure is reported, never a traceback
        raise _user_code_error(f"importing {module_name}", spec, exc) from exc
    if callable(value) and not isinstance(value, Mapping):
        required = [
            p
            for p in inspect.signature(value).parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        try:
            value = value() if not required else [value]
        except Exception as exc:  # the user's factory
            raise _user_code_error(f"the tool factory {spec}", spec, exc) from exc
    if isinstance(value, Mapping) or isinstance(value, list | tuple):
        return value
    raise typer.BadParameter(f"{spec!r} is not a mapping or list of tools", param_hint="--tools")


def _user_code_error(what: str, spec: str, exc: Exception) -> BindingError:
    return BindingError(
        f"{what} raised {type(exc).__name__}: {exc} — fix it, or pass --tools another "
        "module:NAME (a {capability: fn} mapping, a list of tools, or a function returning one)",
        name=spec,
        kind="tool",
    )


def _import_here(module_name: str) -> Any:
    """Import ``module_name`` with the current directory first on ``sys.path`` (the console
    script's own directory is there instead, so ``tools.py`` beside the user would not be)."""
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    finally:
        if added and here in sys.path:
            sys.path.remove(here)


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
