"""``jdsl export otel``: a recorded jdsl trace as OpenTelemetry spans.

::

    jdsl export otel runs.jsonl --endpoint http://127.0.0.1:6006     # a local Phoenix
    jdsl export otel runs.jsonl --out runs.otlp.json                 # OTLP JSON file
    jdsl export otel runs.jsonl --endpoint URL --header "api_key=..." --content

Without ``--endpoint`` or ``--out`` the SDK's ``OTEL_EXPORTER_OTLP_ENDPOINT`` is used.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from jdsl.commands.boundary import cli_errors, cli_fail, command_app, require_parent
from jdsl.commands.inputs import parse_inputs

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
) -> None:
    """Export a trace as GenAI semantic-convention spans over OTLP/HTTP, or to an OTLP JSON file."""
    from jdsl.commands.kinds import refuse_behavior
    from jdsl.trace import read_events
    from jdsl.trace.otel import export_otel, trace_spans, write_otlp_json

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
    events = read_events(traces, resolve_blobs=content)  # content: the values, not blob markers
    if not any(not e.is_control for e in events.episodes):
        raise cli_fail(
            f"{traces} holds no episodes, so there is nothing to export",
            "pass a trace recorded by `jdsl run` or converted by `jdsl import`",
        )
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
