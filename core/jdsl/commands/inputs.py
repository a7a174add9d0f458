"""What every command that runs a behavior shares: ``--input`` pairs and ``--tools`` modules.

Run inputs (``--input``) are read as :mod:`jdsl.inputs` says; a bad one is typer's usage error
(exit 2) naming the option.

Host tools (``--tools module:NAME``): the module is imported with the current directory on
``sys.path`` (``jdsl`` run from a project finds its ``tools.py``), as ``python -m`` would.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import typer

from jdsl import inputs
from jdsl.commands.boundary import bad_parameter
from jdsl.errors import BindingError, InputError
from jdsl.inputs import InputUse

__all__ = [
    "INPUT_OPTION",
    "REPLY_OPTION",
    "TRACE_OPTION",
    "parse_inputs",
    "read_tools",
    "refuse_model_and_reply",
    "tools_option",
]

INPUT_OPTION: Any = typer.Option(
    [],
    "--input",
    "-i",
    metavar="KEY=VALUE",
    help="Run input (repeatable). KEY=VALUE is a string (or the type of the tool parameter that "
    "reads KEY; for a package, the type it records for KEY: a tool argument or a typed "
    "signature field); KEY:=JSON is a JSON value; KEY=@FILE reads the value from FILE. An empty "
    "VALUE is refused (KEY:='\"\"' passes an empty string).",
)
"""``--input KEY=VALUE`` of ``jdsl run`` and ``jdsl package run`` (read by :func:`parse_inputs`)."""
REPLY_OPTION: Any = typer.Option(
    [], "--reply", metavar="TEXT", help="Scripted model reply (offline; repeatable)."
)
"""``--reply TEXT`` of the commands that run a behavior (see :func:`refuse_model_and_reply`)."""
TRACE_OPTION: Any = typer.Option(
    None, "--trace", metavar="OUT.jsonl", help="Append the run's trace to this JSONL file."
)
"""``--trace OUT.jsonl`` of the commands that run a behavior."""


def tools_option(note: str = "") -> Any:
    """``--tools module:NAME`` of the commands that run a behavior (read by
    :func:`read_tools`); ``note`` ends its help (``" (required)"``)."""
    return typer.Option(
        None,
        "--tools",
        "-t",
        metavar="module:NAME",
        help=f"module:NAME (or file.py:NAME) of the host tools{note}.",
    )


def refuse_model_and_reply(model: str | None, reply: Sequence[str]) -> None:
    """Raise typer's usage error when both ``--model`` and ``--reply`` are given; check the
    form of a ``--model`` id given (an empty one too: ``--model "$UNSET"`` is not "no model").

    Raises:
        typer.BadParameter: both are given.
        BindingError: ``--model`` is empty or malformed (``openai:``, ``nonsense``).
    """
    if model and reply:
        raise typer.BadParameter("give --model or --reply, not both", param_hint="--reply")
    if model is not None:
        from jdsl.providers.resolve import parse_model_id

        parse_model_id(model)


def parse_inputs(
    pairs: Sequence[str],
    *,
    option: str = "--input",
    types: Mapping[str, Sequence[InputUse]] | None = None,
) -> dict[str, Any]:
    """:func:`jdsl.inputs.parse_inputs` at the command line.

    Raises:
        typer.BadParameter: an item without ``=``, a key given twice, bad JSON after ``:=``, or a
            value that does not fit the recorded type (named with ``option``).
    """
    try:
        return inputs.parse_inputs(pairs, types=types)
    except InputError as exc:
        raise bad_parameter(exc, option) from None


def read_tools(spec: str) -> Mapping[str, Callable[..., Any]] | Sequence[Callable[..., Any]]:
    """Import ``module:NAME`` (or ``path/to/file.py:NAME``): a ``{capability: fn}`` mapping, a
    list of tools, or a function without required parameters returning one of those.

    Raises:
        typer.BadParameter: a malformed spec, a missing module or name, or the wrong kind.
        BindingError: importing the module or calling the factory raised.
    """
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise typer.BadParameter(
            f"{spec!r} is not module:NAME; write module:NAME or path/to/tools.py:NAME, e.g. "
            f"jdsl.envs.tau_retail:tree_tools ({_WHAT})",
            param_hint="--tools",
        )
    if module_name.endswith(".py") and not Path(module_name).is_file():
        raise typer.BadParameter(
            f"no file {module_name!r}: pass the path of a Python file, or module:NAME",
            param_hint="--tools",
        )
    try:
        module = _import_here(module_name)
    except ImportError as exc:
        raise typer.BadParameter(
            f"cannot load {spec!r}: {exc}; check the module name (a module in the current "
            "directory is found), or pass path/to/file.py:NAME",
            param_hint="--tools",
        ) from exc
    except Exception as exc:  # the user's module: any failure is reported, never a traceback
        raise _user_code_error(f"importing {module_name}", spec, exc) from exc
    try:
        value = getattr(module, attr)
    except AttributeError:
        raise typer.BadParameter(
            f"cannot load {spec!r}: {module_name} defines no {attr!r}; check the name ({_WHAT})",
            param_hint="--tools",
        ) from None
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
    raise typer.BadParameter(
        f"{spec!r} holds a value of type {type(value).__name__}, not tools; {_WHAT}",
        param_hint="--tools",
    )


_WHAT = "NAME must be a {name: fn} mapping, a list of tools, or a function returning one"


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
    if module_name.endswith(".py"):
        return _import_file(Path(module_name))
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    finally:
        if added and here in sys.path:
            sys.path.remove(here)


def _import_file(path: Path) -> Any:
    """Import the Python file at ``path`` as a module of its own (named for its resolved path,
    so two files called ``tools.py`` do not collide), its directory first on ``sys.path`` for
    its own imports."""
    resolved = path.resolve()
    name = "jdsl_tools_" + re.sub(r"\W", "_", str(resolved))
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {str(path)!r} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(resolved.parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
    return module
