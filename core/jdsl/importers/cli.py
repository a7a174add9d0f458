"""``jdsl import ...``: the typer sub-app that turns foreign traces into jdsl trace files.

Mounted by the main CLI as ``app.add_typer(import_app, name="import")``::

    jdsl import tau-bench RESULTS.json -o TRACES.jsonl [--strict] [--domain airline]
    jdsl import openai-chat LOG.jsonl -o TRACES.jsonl
    jdsl import otel SPANS.otlp.json -o TRACES.jsonl   # OTLP JSON (GenAI / OpenInference)
    jdsl import tau-bench EPISODES.json -o DIR/        # writes DIR/EPISODES.jsonl

It also holds the command-boundary helpers every ``jdsl`` command uses (this is the lowest
module of the CLI): :func:`cli_errors` turns a failure into ``error: <what> — <how to fix>``
and exit 1, :func:`cli_fail` builds such a failure, :func:`cli_advice` rewrites the library's
Python advice (``pass model=... to run()``) into the flags that do the same.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ParamSpec, TypeVar

import typer

from jdsl.errors import JdslError, MissingDirectoryError
from jdsl.importers.common import emit_conversations
from jdsl.importers.conversation import Conversation
from jdsl.importers.openai_chat import openai_chat_conversations
from jdsl.importers.otel import otel_conversations
from jdsl.importers.tau_bench import (
    DOMAINS,
    ImportSkipWarning,
    TauImport,
    read_tau_bench,
)
from jdsl.trace import EventKind, JsonlTraceSink, TraceEvent

__all__ = ["MODEL_FIX", "cli_advice", "cli_errors", "cli_fail", "import_app", "require_parent"]

P = ParamSpec("P")
R = TypeVar("R")

import_app = typer.Typer(
    name="import",
    help="Import foreign agent traces (tau-bench episodes, OpenAI chat logs, OpenTelemetry "
    "OTLP JSON) as jdsl traces.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

_OUT = typer.Option(
    ...,
    "-o",
    "--out",
    help="The jdsl trace file to write (JSONL, replaced; large values in <file>.blobs/), or "
    "a directory to write SOURCE's name with .jsonl in.",
)

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
    (re.compile(r"Seed it as a run\(\) input \(run\((\w+)=\.\.\.\)\)"), r"Give it with --input \1=VALUE"),
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
    typer.echo(f"error: {what} — {fix}", err=True)
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
    message already names the fix) and exits 1 instead of a traceback.

    Put it under ``@app.command(...)``; typer still reads the command's parameters.
    """

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except BrokenPipeError:  # the reader left (`jdsl show T | head`): no error to tell
            _quiet_stdout()
            raise typer.Exit(code=1) from None
        except (JdslError, OSError, UnicodeDecodeError) as exc:
            typer.echo(f"error: {_message(exc)}", err=True)
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


def _summary(events: Sequence[TraceEvent]) -> str:
    def count(kind: str) -> int:
        return sum(event.kind == kind for event in events)

    return (
        f"{count(EventKind.EPISODE_STARTED)} episodes, "
        f"{count(EventKind.TOOL_CALL_STARTED)} tool calls "
        f"({count(EventKind.TOOL_CALL_FAILED)} failed), "
        f"{count(EventKind.MODEL_RESPONDED)} model turns"
    )


_CONTENT_KEYS = ('"gen_ai.tool.call.arguments"', '"gen_ai.input.messages"', '"input.value"')


def _has_content(path: Path) -> bool:
    """Whether OTLP JSON at ``path`` carries messages or tool arguments (GenAI or
    OpenInference attribute keys); spans exported without ``--content`` carry neither."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return any(key in text for key in _CONTENT_KEYS)


def _target(source: Path, out: Path) -> Path:
    """``out``, or ``out/<source stem>.jsonl`` when ``out`` is a directory; never ``source``."""
    target = out / f"{source.stem}.jsonl" if out.is_dir() else require_parent(out, "-o")
    if target.exists() and target.resolve() == source.resolve():
        raise cli_fail(f"-o {target} is the source file", "write the trace to another file")
    return target


def _run(
    reader: Callable[[Path], Sequence[Conversation]], source: Path, out: Path, note: str = ""
) -> None:
    """Read every conversation first (a bad source writes nothing), then replace the target."""
    target = _target(source, out)
    conversations = reader(source)
    if not conversations:
        raise cli_fail(
            f"no episodes in {source}", "check that it is the right file; nothing was written"
        )
    target.unlink(missing_ok=True)
    events = emit_conversations(conversations, JsonlTraceSink(target, resume=False))
    typer.echo(f"{source} -> {target}: {_summary(events)}{note}")


def _tau_bench(source: Path, strict: bool, domain: str | None) -> TauImport:
    """Read a tau-bench file; each skipped run is printed as ``warning: ...`` on stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportSkipWarning)
        found = read_tau_bench(source, strict=strict, domain=domain)
    for skipped in found.skipped:
        typer.echo(f"warning: skipped {skipped} (pass --strict to stop on it)", err=True)
    return found


@import_app.command("tau-bench")
@cli_errors
def tau_bench_command(
    episodes: Path = typer.Argument(
        ...,
        help="a tau-bench results file (what its run.py writes: tool-calling, act or react "
        "runs) or jdsl's extraction format (tau_airline/episodes.json); detected per run",
        dir_okay=False,
    ),
    out: Path = _OUT,
    strict: bool = typer.Option(
        False, "--strict", help="Stop at the first malformed run (default: skip it, warn)."
    ),
    domain: str | None = typer.Option(
        None, "--domain", help=f"The domain ({' or '.join(DOMAINS)}) when the runs do not tell."
    ),
) -> None:
    """Import tau-bench runs; failed runs keep their reward and are never compiled from."""
    found = _tau_bench(episodes, strict, domain)
    _run(lambda _: found.conversations, episodes, out, f"; {found.summary()}")


@import_app.command("openai-chat")
@cli_errors
def openai_chat_command(
    log: Path = typer.Argument(
        ..., help="chat-completions log, one {messages: [...]} per line", dir_okay=False
    ),
    out: Path = _OUT,
) -> None:
    """Import an OpenAI chat-completions log (JSONL, one conversation per line)."""
    _run(openai_chat_conversations, log, out)


@import_app.command("otel")
@cli_errors
def otel_command(
    spans: Path = typer.Argument(
        ..., help="OTLP JSON (one document, or one per line)", dir_okay=False
    ),
    out: Path = _OUT,
) -> None:
    """Import OpenTelemetry spans of an agent (GenAI conventions or OpenInference, OTLP JSON)."""

    def read(path: Path) -> list[Conversation]:
        found = otel_conversations(path)
        for note in found.skipped:
            typer.echo(f"skipped {note}", err=True)
        if found.conversations and not _has_content(path):
            typer.echo(
                f"warning: {path} holds no message or tool-argument content (exported without "
                "--content), so `jdsl compile` finds no path in it: export with "
                "`jdsl export otel TRACES.jsonl --out FILE --content`",
                err=True,
            )
        return found.conversations

    _run(read, spans, out)
