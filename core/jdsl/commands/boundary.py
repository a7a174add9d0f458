"""The command boundary every ``jdsl`` command shares (the lowest module of the command line).

:func:`cli_errors` turns a failure into ``error: <what> — <how to fix>`` and exit 1,
:func:`cli_fail` builds such a failure, :func:`cli_advice` rewrites the library's Python advice
(``pass model=... to run()``) into the flags that do the same, :func:`require_parent` is the one
output-path check (``-o``, ``--out``), :func:`bad_parameter` turns a
:class:`~jdsl.errors.InputError` into typer's usage error (exit 2), :func:`choice` checks an
option's value against its choices, :func:`count` reads a whole-number option and
:func:`reporting_skips` tells what ``--skip-bad-lines`` skipped.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import gc
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import typer

from jdsl.errors import InputError, JdslError, MissingDirectoryError

if TYPE_CHECKING:  # imported where used: every command's start imports this module
    from jdsl.trace.reader import SkippedLines

__all__ = [
    "MODEL_FIX",
    "bad_parameter",
    "choice",
    "command_app",
    "cli_advice",
    "cli_errors",
    "cli_fail",
    "count",
    "out_path",
    "reporting_skips",
    "require_parent",
]

P = ParamSpec("P")
R = TypeVar("R")

MODEL_FIX = (
    "pass --model ID (a provider model id; needs its API key) or --reply TEXT (a scripted "
    "answer, offline)"
)
"""How to give a run a model from the command line."""

# The library's advice names Python arguments; from the command line the flag does the same.
_ADVICE = (
    ("or read with strict=False to skip it", "or pass --skip-bad-lines to skip such lines"),
    ("read with strict=False", "pass --skip-bad-lines"),  # any other wording of the same advice
    (
        "or pass allow_broken_chain=True to compile edited events on purpose",
        "or, to compile edited events on purpose, compile from Python: "
        "compile_behavior(..., allow_broken_chain=True)",
    ),  # the command line has no flag for it
    (
        "pass model=... to run() (e.g. ScriptedModel('...') from jdsl.testing) or set "
        "root(...).model('model-id')",
        MODEL_FIX,
    ),
    (" (or pass settings=ProviderSettings(api_key=...))", ""),
    ("; or register a model in a ProviderRegistry and pass registry=...", ""),
)
_OS_FIXES = {
    errno.ENOENT: "check the path",
    errno.EEXIST: "it exists and is a file; pass a new path or a directory",
    errno.EISDIR: "it is a directory; pass a file path",
    errno.ENOTDIR: "a part of the path is a file, not a directory; fix the path",
    errno.EACCES: "choose a location you can write to (or read from)",
    errno.EPERM: "choose a location you can write to (or read from)",
    errno.EROFS: "the file system is read-only; choose another location",
    errno.ENOSPC: "the disk is full; free some space or choose another location",
}


_BIND_ADVICE = re.compile(
    r"Bind it with root\.bind\(tools=\[fn\]\) or run\(\.\.\., tools=\{'([^']+)': fn\}\)"
)


_INPUT_ADVICE = (
    (re.compile(r"give (\w+) as a run input"), r"give it with --input \1=VALUE"),
    (
        re.compile(r"Seed it as a run\(\) input \(run\((\w+)=\.\.\.\)\)"),
        r"Give it with --input \1=VALUE",
    ),
)


def cli_advice(message: str) -> str:
    """``message`` with Python-only advice replaced by the command-line flag that does it."""
    for python, flag in _ADVICE:
        message = message.replace(python, flag)
    for pattern, replacement in _INPUT_ADVICE:
        message = pattern.sub(replacement, message)
    return _BIND_ADVICE.sub(r"Pass --tools module:NAME holding a tool named '\1'", message)


def cli_fail(what: str, fix: str) -> typer.Exit:
    """Print ``error: <what> — <fix>`` to stderr; return the exit (code 1) to raise."""
    from jdsl.trace.addresses import redact_addresses

    typer.echo(f"error: {redact_addresses(f'{what} — {fix}')}", err=True)
    return typer.Exit(code=1)


def require_parent(path: Path, option: str) -> Path:
    """``path``, when it exists or its directory does: the command line creates no directories
    on the way to an output (``-o a/b/x.jdsl`` with no ``a/b`` is a typo, not a request).

    Raises:
        MissingDirectoryError: ``path`` does not exist and neither does its parent directory
            (a parent that is a file is left to the write, which names it).
    """
    if path.exists() or path.parent.exists():
        return path
    raise MissingDirectoryError(str(path), str(path.parent), option=option)


def out_path(raw: str, option: str) -> Path:
    """The path an output option names; ``raw`` ending in ``/`` names a directory, made here
    when missing (its parent must exist: see :func:`require_parent`). typer's ``Path`` drops
    that slash, so ``-o traces/`` would write a *file* ``traces``; outputs are read as text.

    Raises:
        MissingDirectoryError: ``raw`` ends in ``/`` and its parent directory does not exist.
    """
    path = Path(raw)
    if raw.endswith(("/", os.sep)) and not path.exists():
        require_parent(path, option)
        path.mkdir()
    return path


def _message(exc: BaseException) -> str:
    """``<what> — <how to fix>`` for a failure (a JdslError's message names its fix)."""
    if isinstance(exc, UnicodeDecodeError):
        return (
            f"the input is not UTF-8 text ({exc.reason} at byte {exc.start}) — pass a text "
            "file (a jdsl trace is JSONL, e.g. from `jdsl import`)"
        )
    if isinstance(exc, OSError) and not isinstance(exc, JdslError):  # a JdslError names its fix
        where = f"{exc.filename}: " if exc.filename else ""
        fix = _OS_FIXES.get(exc.errno or 0, "check the path and its permissions")
        return f"{where}{exc.strerror or exc} — {fix}"
    return cli_advice(str(exc))


def cli_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Decorate a typer command: a :class:`~jdsl.errors.JdslError`, ``OSError`` or
    ``UnicodeDecodeError`` leaving it prints ``error: <what> — <how to fix>`` (a JdslError's
    message already names the fix) and exits 1 instead of a traceback; a Ctrl-C prints
    ``interrupted (Ctrl-C): stopped`` (and, for a run given ``--trace``, that the file keeps
    what ran) and exits 130, at once: the heap is frozen at exit
    (``gc.freeze``), so the interpreter's last collection passes over it (over the demo's heap,
    on a busy machine, it took 3-5 s of a Ctrl-C's exit).

    Put it under ``@app.command(...)``; typer still reads the command's parameters.
    """

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt:  # a run's trace already closed its episode as cancelled
            atexit.unregister(gc.freeze)  # once, however many commands a test runs
            atexit.register(gc.freeze)
            trace = kwargs.get("trace")  # only the commands that run a behavior have one
            kept = f"; {trace} keeps what ran, its episode ended as cancelled" if trace else ""
            typer.echo(f"interrupted (Ctrl-C): stopped{kept}", err=True)
            raise typer.Exit(code=130) from None
        except BrokenPipeError:  # the reader left (`jdsl show T | head`): no error to tell
            _quiet_stdout()
            raise typer.Exit(code=1) from None
        except (JdslError, OSError, UnicodeDecodeError) as exc:
            addresses = [v for v in kwargs.values() if isinstance(v, str) and "://" in v]
            from jdsl.trace.addresses import redact_addresses

            typer.echo(f"error: {redact_addresses(_message(exc), addresses)}", err=True)
            raise typer.Exit(code=1) from exc

    return run


def _quiet_stdout() -> None:
    """Point stdout at ``os.devnull``, so flushing it at exit raises no second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (a test runner's capture): nothing to flush
        pass


def command_app(
    name: str, help: str, cls: type[typer.core.TyperGroup] | None = None
) -> typer.Typer:
    """A typer app (``jdsl`` or a group of its commands) as every one is set up: help when
    called without arguments, no shell completion, plain help text, plain tracebacks
    (``cls``: the click group class, e.g. one that imports its commands when called)."""
    return typer.Typer(
        name=name,
        help=help,
        cls=cls,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )


def bad_parameter(exc: InputError, option: str) -> typer.BadParameter:
    """typer's usage error (exit 2, ``Invalid value for '<option>': ...``) for ``exc``."""
    return typer.BadParameter(str(exc), param_hint=option)


def choice(choices: Sequence[str]) -> Callable[[str], str]:
    """A typer ``parser=`` that takes one of ``choices`` and makes anything else typer's usage
    error (exit 2) ``Invalid value for '--opt': 'x' is not one of 'a', 'b'``: a ``Literal``
    annotation gives the same check, but typer reports it through pydantic, prefixed
    ``Value error,``.

    Example:
        >>> choice(["intent", "task"])("task")
        'task'
    """

    def parse(value: str) -> str:
        if value not in choices:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(map(repr, choices))}")
        return value

    return parse


def count(option: str, minimum: int | None = None) -> Callable[[str | int], int]:
    """A typer ``parser=`` for a whole-number option: ``--holdout abc`` is typer's usage error
    (exit 2) ``--holdout abc is not a number; pass --holdout N (a whole number)`` where an
    ``int`` annotation answers in pydantic's words ("Input should be a valid integer"); a
    number below ``minimum`` (when given) is refused the same way.

    Example:
        >>> count("--min-support", 1)("2")
        2
    """
    least = "" if minimum is None else f", {minimum} or more"

    def parse(value: str | int) -> int:
        try:
            number = value if isinstance(value, int) else int(value.strip())
        except ValueError:
            raise typer.BadParameter(
                f"{option} {value} is not a number; pass {option} N (a whole number{least})"
            ) from None
        if minimum is not None and number < minimum:
            raise typer.BadParameter(
                f"{option} {value} is below {minimum}; pass {option} N (a whole number{least})"
            )
        return number

    return parse


@contextlib.contextmanager
def reporting_skips(skip: bool) -> Iterator[SkippedLines | None]:
    """For ``--skip-bad-lines`` (``skip``): the :class:`~jdsl.trace.reader.SkippedLines` to
    read with (None without the flag: reads stay strict); when the command ends, also by an
    error, each file's skipped lines are told on stderr, ``warning: --skip-bad-lines skipped
    1 line of t.jsonl that is not a trace event (line 37: ...)``.

    Read with ``strict=skipped is None, skipped=skipped``.
    """
    if not skip:
        yield None
        return
    from jdsl.trace.reader import SkippedLines

    skipped = SkippedLines()
    try:
        yield skipped
    finally:
        for note in skipped.notes():
            typer.echo(f"warning: --skip-bad-lines {note}", err=True)
