"""``jdsl import ...``: the typer sub-app that turns foreign traces into jdsl trace files.

Mounted by the main CLI as ``app.add_typer(import_app, name="import")``::

    jdsl import tau-bench RESULTS.json -o TRACES.jsonl [--strict] [--domain airline]
    jdsl import openai-chat LOG.jsonl -o TRACES.jsonl
    jdsl import otel SPANS.otlp.json -o TRACES.jsonl   # OTLP JSON (GenAI / OpenInference)
    jdsl import tau-bench EPISODES.json -o DIR/        # writes DIR/EPISODES.jsonl
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import typer

from jdsl.commands.boundary import (
    choice,
    cli_errors,
    cli_fail,
    command_app,
    out_path,
    require_parent,
)
from jdsl.importers.common import emit_conversations
from jdsl.importers.conversation import Conversation
from jdsl.importers.openai_chat import openai_chat_conversations, raw_argument_calls
from jdsl.importers.otel import otel_conversations
from jdsl.importers.tau_bench import (
    DOMAINS,
    ImportSkipWarning,
    TauImport,
    read_tau_bench,
)
from jdsl.trace import EventKind, JsonlTraceSink, TraceEvent, blob_dir_for
from jdsl.trace.atomic import temp_beside
from jdsl.trace.filenames import path_inside, safe_file_name

__all__ = ["import_app"]

import_app = command_app(
    "import",
    "Import foreign agent traces (tau-bench episodes, OpenAI chat logs, OpenTelemetry OTLP JSON) "
    "as jdsl traces.",
)

_OUT = typer.Option(
    ...,
    "-o",
    "--out",
    help="The jdsl trace file to write (JSONL, replaced; large values in <file>.blobs/), or "
    "a directory to write SOURCE's name with .jsonl in.",
)


def _source(help: str) -> Any:
    """The SOURCE argument of an import: a file that must exist (checked before ``-o``)."""
    return typer.Argument(..., metavar="SOURCE", help=help, exists=True, dir_okay=False)


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


def _in_dir(out: Path, source: Path) -> Path:
    """``out/<source stem>.jsonl``, the stem made one safe file name."""
    return path_inside(out, safe_file_name(source.stem, suffix=".jsonl"))


def _target(source: Path, out: Path) -> Path:
    """``out``, or ``out/<source stem>.jsonl`` when ``out`` is a directory; never ``source``."""
    target = _in_dir(out, source) if out.is_dir() else require_parent(out, "-o")
    if target.exists() and target.resolve() == source.resolve():
        raise cli_fail(f"-o {target} is the source file", "write the trace to another file")
    return target


def _run(
    reader: Callable[[Path], Sequence[Conversation]], source: Path, out: str, note: str = ""
) -> None:
    """Read every conversation first (a bad source writes nothing), then replace the target
    (``-o DIR/`` names a directory, made once there is something to write)."""
    as_dir = out.endswith(("/", os.sep)) and not Path(out).exists()
    if as_dir:
        require_parent(Path(out), "-o")
    target = _in_dir(Path(out), source) if as_dir else _target(source, Path(out))
    conversations = reader(source)
    if not conversations:
        raise cli_fail(
            f"no episodes in {source}", "check that it is the right file; nothing was written"
        )
    if as_dir:
        out_path(out, "-o")
    events = _write_atomic(conversations, target)
    typer.echo(f"{source} -> {target}: {_summary(events)}{note}")


def _write_atomic(conversations: Sequence[Conversation], target: Path) -> Sequence[TraceEvent]:
    """Emit the conversations to a temp file beside ``target``, then rename it over ``target``:
    a failure or Ctrl-C part-way leaves the old file as it was and no partial trace (blobs are
    content-addressed, so the ones written go straight to ``target``'s blob store)."""
    temp = temp_beside(target)
    sink = None
    try:
        sink = JsonlTraceSink(temp, resume=False, blob_dir=blob_dir_for(target))
        events = emit_conversations(conversations, sink)
        sink.close()
        os.replace(temp, target)
    except BaseException:
        if sink is not None:  # its buffer written now, not by its timer after the unlink
            with contextlib.suppress(Exception):
                sink.close()
        temp.unlink(missing_ok=True)
        raise
    return events


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
    episodes: Path = _source(
        "a tau-bench results file (what its run.py writes: tool-calling, act or react runs) or "
        "jdsl's extraction format (tau_airline/episodes.json); detected per run"
    ),
    out: str = _OUT,
    strict: bool = typer.Option(
        False, "--strict", help="Stop at the first malformed run (default: skip it, warn)."
    ),
    domain: str | None = typer.Option(
        None,
        "--domain",
        parser=choice(DOMAINS),
        metavar=f"<{'|'.join(DOMAINS)}>",
        help=f"The domain ({' or '.join(DOMAINS)}) when the runs do not tell.",
    ),
) -> None:
    """Import tau-bench runs; failed runs keep their reward and are never compiled from."""
    found = _tau_bench(episodes, strict, domain)
    _run(lambda _: found.conversations, episodes, out, f"; {found.summary()}")


@import_app.command("openai-chat")
@cli_errors
def openai_chat_command(
    log: Path = _source("chat-completions log, one {messages: [...]} per line"),
    out: str = _OUT,
) -> None:
    """Import an OpenAI chat-completions log (JSONL, one conversation per line)."""

    def read(path: Path) -> list[Conversation]:
        found = openai_chat_conversations(path)
        raw = raw_argument_calls(found)
        if raw:
            typer.echo(
                f"warning: {len(raw)} tool call(s) have arguments that are not a JSON object "
                f'(kept as {{"_raw_arguments": text}}; first: {raw[0]})',
                err=True,
            )
        return found

    _run(read, log, out)


@import_app.command("otel")
@cli_errors
def otel_command(
    spans: Path = _source("OTLP JSON (one document, or one per line)"),
    out: str = _OUT,
) -> None:
    """Import OpenTelemetry spans of an agent (GenAI conventions or OpenInference, OTLP JSON)."""

    def read(path: Path) -> list[Conversation]:
        found = otel_conversations(path)
        for note in found.skipped:
            typer.echo(f"warning: skipped {note}", err=True)  # as tau-bench tells a skip
        if found.conversations and not _has_content(path):
            typer.echo(
                f"warning: {path} holds no message or tool-argument content (exported without "
                "--content), so `jdsl compile` finds no path in it: export with "
                "`jdsl export otel TRACES.jsonl --out FILE --content`",
                err=True,
            )
        return found.conversations

    _run(read, spans, out)
