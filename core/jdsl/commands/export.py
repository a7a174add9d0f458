"""``jdsl export otel``: a recorded jdsl trace as OpenTelemetry spans.

::

    jdsl export otel runs.jsonl --endpoint http://127.0.0.1:6006     # a local Phoenix
    jdsl export otel runs.jsonl --out runs.otlp.json                 # OTLP JSON file
    jdsl export otel runs.jsonl --endpoint URL --header "api_key=..." --content
    jdsl export otel torn.jsonl --out runs.otlp.json --skip-bad-lines  # as compile reads it

Without ``--endpoint`` or ``--out`` the SDK's ``OTEL_EXPORTER_OTLP_ENDPOINT`` is used. With
``--skip-bad-lines``, lines that are not events are skipped (told as every command tells them)
and an episode one of them belonged to is left out under ``jdsl compile``'s note.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from jdsl.commands.boundary import (
    cli_errors,
    cli_fail,
    command_app,
    reporting_skips,
    require_parent,
)
from jdsl.commands.inputs import parse_inputs

if TYPE_CHECKING:
    from jdsl.trace import SkippedLines, Trace

__all__ = ["export_app", "otel_command"]

_ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
"""The variables the OTLP exporter reads an endpoint from when --endpoint is not given."""

export_app = command_app("export", "Export jdsl traces to other tools (OpenTelemetry).")


@export_app.command("otel")
@cli_errors
def otel_command(
    traces: Path = typer.Argument(
        ..., exists=True, dir_okay=False, metavar="TRACES.jsonl", help="A jdsl trace file."
    ),
    endpoint: str | None = typer.Option(
        None, "--endpoint", metavar="URL", help="OTLP/HTTP endpoint (e.g. http://127.0.0.1:6006)."
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", metavar="FILE", help="Write OTLP JSON to FILE instead of sending."
    ),
    header: list[str] = typer.Option(
        [], "--header", metavar="KEY=VALUE", help="HTTP header for the endpoint (repeatable)."
    ),
    content: bool = typer.Option(
        False, "--content", help="Include messages, tool arguments and results (off by default)."
    ),
    service_name: str = typer.Option("jdsl", "--service-name", help="The service.name resource."),
    skip_bad_lines: bool = typer.Option(
        False,
        "--skip-bad-lines",
        help="Skip trace lines that are not events (e.g. torn ones); an episode whose event "
        "was skipped is left out, under a note naming it.",
    ),
) -> None:
    """Export a trace as GenAI semantic-convention spans over OTLP/HTTP, or to an OTLP JSON file."""
    from jdsl.commands.kinds import refuse_behavior

    refuse_behavior(traces, "jdsl export otel")
    if out is not None and endpoint is not None:
        raise typer.BadParameter("give --endpoint or --out, not both", param_hint="--out")
    if out is None and endpoint is None and not any(os.environ.get(v) for v in _ENDPOINT_VARS):
        raise typer.BadParameter(
            "give --endpoint URL or --out FILE (or set OTEL_EXPORTER_OTLP_ENDPOINT): there is "
            "nowhere to send the spans",
            param_hint="--endpoint",
        )
    if out is not None:
        require_parent(out, "--out")
    if out is not None and out.is_dir():
        raise cli_fail(
            f"--out {out} is a directory",
            f"name the file to write, e.g. --out {out / 'trace.otlp.json'}",
        )
    with reporting_skips(skip_bad_lines) as skipped:
        events = _read(traces, content, skipped)
        _export(traces, events, endpoint, out, header, content, service_name)


def _read(traces: Path, content: bool, skipped: SkippedLines | None) -> Trace:
    """The events to export: ``traces`` read (``content``: blob values loaded, not markers;
    ``skipped``: lines that are not events skipped there, None: strict), less the events of
    the episodes a skipped line broke, left out as ``jdsl compile`` leaves them out."""
    from jdsl.commands.torn import without_torn
    from jdsl.trace import Trace, read_events

    trace = read_events(traces, resolve_blobs=content, strict=skipped is None, skipped=skipped)
    episodes = [e for e in trace.episodes if not e.is_control]
    if not episodes:
        raise cli_fail(
            f"{traces} holds no episodes, so there is nothing to export",
            "pass a trace recorded by `jdsl run` or converted by `jdsl import`",
        )
    kept = {id(e) for e in without_torn(episodes, skipped, "export", str(traces))}
    dropped = {id(event) for e in episodes if id(e) not in kept for event in e.events}
    if not dropped:
        return trace
    return Trace(
        [event for event in trace if id(event) not in dropped], blob_store=trace.blob_store
    )


def _export(
    traces: Path, events: Trace, endpoint: str | None, out: Path | None,
    header: list[str], content: bool, service_name: str,
) -> None:  # fmt: skip
    """Write ``events`` as OTLP JSON to ``out``, else send them to ``endpoint``."""
    from jdsl.trace.otel import export_otel, trace_spans, write_otlp_json

    if out is not None:
        spans = trace_spans(events, capture_content=content, service_name=service_name)
        typer.echo(f"{traces} -> {write_otlp_json(spans, out)}: {len(spans)} spans")
        return
    headers = {k: str(v) for k, v in parse_inputs(header, option="--header").items()}
    count = export_otel(
        events, endpoint=endpoint, headers=headers or None,
        capture_content=content, service_name=service_name,
    )  # fmt: skip
    typer.echo(f"{traces} -> {endpoint or 'OTEL_EXPORTER_OTLP_ENDPOINT'}: {count} spans")
