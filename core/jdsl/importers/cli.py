"""``jdsl import ...``: the typer sub-app that turns foreign traces into jdsl trace files.

Mounted by the main CLI as ``app.add_typer(import_app, name="import")``::

    jdsl import tau-bench EPISODES.json -o TRACES.jsonl
    jdsl import openai-chat LOG.jsonl -o TRACES.jsonl
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import typer

from jdsl.importers.common import ImportFormatError, write_jsonl
from jdsl.importers.openai_chat import import_openai_chat
from jdsl.importers.tau_bench import import_tau_bench
from jdsl.trace import EventKind, TraceEvent

__all__ = ["import_app"]

import_app = typer.Typer(
    name="import",
    help="Import foreign agent traces (tau-bench episodes, OpenAI chat logs) as jdsl traces.",
    no_args_is_help=True,
    add_completion=False,
)

_OUT = typer.Option(..., "-o", "--out", help="The jdsl trace file to write (JSONL, replaced).")


def _summary(events: Sequence[TraceEvent]) -> str:
    def count(kind: str) -> int:
        return sum(event.kind == kind for event in events)

    return (
        f"{count(EventKind.EPISODE_STARTED)} episodes, "
        f"{count(EventKind.TOOL_CALL_STARTED)} tool calls "
        f"({count(EventKind.TOOL_CALL_FAILED)} failed), "
        f"{count(EventKind.MODEL_RESPONDED)} model turns"
    )


def _run(importer: Callable[[Path], list[TraceEvent]], source: Path, out: Path) -> None:
    try:
        events = importer(source)
    except ImportFormatError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from exc
    write_jsonl(events, out)
    typer.echo(f"{source} -> {out}: {_summary(events)}")


@import_app.command("tau-bench")
def tau_bench_command(
    episodes: Path = typer.Argument(..., help="tau-bench episodes (a JSON list)", dir_okay=False),
    out: Path = _OUT,
) -> None:
    """Import tau-bench episodes (the format of tau_airline/episodes.json)."""
    _run(import_tau_bench, episodes, out)


@import_app.command("openai-chat")
def openai_chat_command(
    log: Path = typer.Argument(
        ..., help="chat-completions log, one {messages: [...]} per line", dir_okay=False
    ),
    out: Path = _OUT,
) -> None:
    """Import an OpenAI chat-completions log (JSONL, one conversation per line)."""
    _run(import_openai_chat, log, out)
