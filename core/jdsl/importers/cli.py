"""``jdsl import ...``: the typer sub-app that turns foreign traces into jdsl trace files.

Mounted by the main CLI as ``app.add_typer(import_app, name="import")``::

    jdsl import tau-bench EPISODES.json -o TRACES.jsonl
    jdsl import openai-chat LOG.jsonl -o TRACES.jsonl
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import typer

from jdsl.importers.common import ImportFormatError, emit_conversations
from jdsl.importers.conversation import Conversation
from jdsl.importers.openai_chat import openai_chat_conversations
from jdsl.importers.tau_bench import tau_bench_conversations
from jdsl.trace import EventKind, JsonlTraceSink, TraceEvent

__all__ = ["import_app"]

import_app = typer.Typer(
    name="import",
    help="Import foreign agent traces (tau-bench episodes, OpenAI chat logs) as jdsl traces.",
    no_args_is_help=True,
    add_completion=False,
)

_OUT = typer.Option(
    ...,
    "-o",
    "--out",
    help="The jdsl trace file to write (JSONL, replaced; large values in <file>.blobs/).",
)


def _summary(events: Sequence[TraceEvent]) -> str:
    def count(kind: str) -> int:
        return sum(event.kind == kind for event in events)

    return (
        f"{count(EventKind.EPISODE_STARTED)} episodes, "
        f"{count(EventKind.TOOL_CALL_STARTED)} tool calls "
        f"({count(EventKind.TOOL_CALL_FAILED)} failed), "
        f"{count(EventKind.MODEL_RESPONDED)} model turns"
    )


def _run(reader: Callable[[Path], list[Conversation]], source: Path, out: Path) -> None:
    """Read every conversation first (a bad source writes nothing), then replace ``out``."""
    try:
        conversations = reader(source)
    except ImportFormatError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from exc
    out.unlink(missing_ok=True)
    events = emit_conversations(conversations, JsonlTraceSink(out, resume=False))
    typer.echo(f"{source} -> {out}: {_summary(events)}")


@import_app.command("tau-bench")
def tau_bench_command(
    episodes: Path = typer.Argument(..., help="tau-bench episodes (a JSON list)", dir_okay=False),
    out: Path = _OUT,
) -> None:
    """Import tau-bench episodes (the format of tau_airline/episodes.json)."""
    _run(tau_bench_conversations, episodes, out)


@import_app.command("openai-chat")
def openai_chat_command(
    log: Path = typer.Argument(
        ..., help="chat-completions log, one {messages: [...]} per line", dir_okay=False
    ),
    out: Path = _OUT,
) -> None:
    """Import an OpenAI chat-completions log (JSONL, one conversation per line)."""
    _run(openai_chat_conversations, log, out)
