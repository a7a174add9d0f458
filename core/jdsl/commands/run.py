"""``jdsl run FILE.behavior``: run behavior text once against host tools and a model.

::

    jdsl run cancel.behavior --tools tools:TOOLS --model claude-sonnet-4-5 \\
        --input email=c1@x.com --input request="cancel my order" --trace runs.jsonl
    jdsl run cancel.behavior --tools tools:TOOLS --reply 1 --reply "no longer needed"
    jdsl run cancel.behavior --tools tools:TOOLS --reply 1 --otel http://127.0.0.1:6006

Prints the status and the final blackboard; exits 1 when the run does not succeed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import typer

from jdsl.commands.boundary import MODEL_FIX, cli_advice, cli_errors, cli_fail, require_parent
from jdsl.commands.inputs import (
    INPUT_OPTION,
    REPLY_OPTION,
    TRACE_OPTION,
    parse_inputs,
    read_tools,
    refuse_model_and_reply,
    tools_option,
)
from jdsl.errors import JdslError
from jdsl.ir.walk import walk_ir
from jdsl.trace import FanoutSink, JsonlTraceSink, Redactor, TraceSink, jsonable

__all__ = ["report_run", "run_command", "run_model"]


def run_model(ir: Mapping[str, Any], model_id: str | None, reply: Sequence[str]) -> Any:
    """The model a run needs: scripted ``reply`` s, else the provider model of ``model_id``
    when the tree has a model leaf (resolved now, so a bad id or a missing key stops before the
    run), else None.

    Raises:
        typer.Exit: a model leaf and neither ``--model`` nor ``--reply`` (printed first).
        BindingError / AuthenticationError: ``model_id`` names no provider, or its key is unset.
    """
    if reply:
        from jdsl.testing import ScriptedModel

        return ScriptedModel(*reply)
    root = ir.get("root", ir)
    leaves = [str(n.get("id") or n["kind"]) for n in walk_ir(root)
              if n.get("kind") in ("predict", "react")]  # fmt: skip
    if not leaves:
        return None
    if not model_id:
        raise cli_fail(f"model leaves {', '.join(leaves)} have no model", MODEL_FIX)
    from jdsl.providers import resolve_model

    return resolve_model(model_id)


def report_run(ctx: Any) -> None:
    """Print a finished run (status, where it failed, blackboard) and exit 0 on success.

    A run a react took over from a failure (a compiled package's fallback) says so on its
    status line, where and why: ``status: success (fallback took over at order_is_pending:
    guard order.status == "pending" was false (...))`` (``ctx.takeover``); a bare
    ``status: success`` is a run the tree served without a takeover. A run that failed after
    the takeover says why the react failed too (``; the fallback failed: react stopped:
    max_tokens (...)``).

    What is printed goes through the default :class:`~jdsl.trace.Redactor`, as a trace file's
    payloads do: a value under a key such as ``api_key`` or ``password``, and a substring that
    looks like a credential (``sk-...``), print as ``«redacted»``; so does a value hidden on
    the blackboard wherever the error text repeats it (:meth:`Redactor.follow`).
    """
    redactor = Redactor()
    board = redactor.redact(jsonable(dict(ctx.blackboard)))  # first: learns what to follow
    served = "" if ctx.takeover is None else f" ({redactor.redact_text(_taken(ctx))})"
    typer.echo(f"status: {ctx.status.value}{served}")
    if ctx.error is not None:
        # A host tool's own exception (a KeyError's text is only the key) is shown as the run's
        # failure, which names the node and the exception type; jdsl's errors carry their fix.
        shown = (
            ctx.error if isinstance(ctx.error, JdslError) or ctx.failure is None else ctx.failure
        )
        typer.echo(f"error: {cli_advice(redactor.redact_text(str(shown)))}", err=True)
    elif ctx.failure is not None:
        typer.echo(f"failed at {redactor.redact_text(str(ctx.failure))}", err=True)
    typer.echo(json.dumps(board, indent=2, sort_keys=True, default=str))
    raise typer.Exit(code=0 if ctx.status.value == "success" and ctx.error is None else 1)


def _taken(ctx: Any) -> str:
    """Where and why a react took the run over, and, when the run still failed after it
    (its own model reply cut at the token limit, its step budget spent), why it failed."""
    said = str(ctx.takeover)
    failure = ctx.failure
    if ctx.status.value == "failure" and failure is not None and failure != ctx.takeover.failure:
        said += f"; the {ctx.takeover.by} failed: {failure.reason}"
    return said


def _sink(trace: Path | None, otel: str | None) -> tuple[TraceSink | None, list[Any]]:
    """The run's sink (JSONL and/or OpenTelemetry) and what to close after the run."""
    sinks: list[Any] = []
    if trace is not None:
        sinks.append(JsonlTraceSink(trace))
    if otel is not None:
        from jdsl.trace.otel import OtelSink

        sinks.append(OtelSink(otel))
    if not sinks:
        return None, []
    return (sinks[0] if len(sinks) == 1 else FanoutSink(*sinks)), sinks


@cli_errors
def run_command(
    behavior: Path = typer.Argument(
        ..., exists=True, dir_okay=False, metavar="FILE.behavior", help="Behavior text."
    ),
    tools: str | None = tools_option(),
    inputs: list[str] = INPUT_OPTION,
    model: str | None = typer.Option(
        None, "--model", "-m", metavar="ID", help="Provider model id (overrides the root's)."
    ),
    reply: list[str] = REPLY_OPTION,
    trace: Path | None = TRACE_OPTION,
    otel: str | None = typer.Option(
        None, "--otel", metavar="URL", help="Also send the run's spans to this OTLP/HTTP URL."
    ),
) -> None:
    """Run behavior text once with host tools; print status and blackboard (exit 1 unless it
    succeeds)."""
    from jdsl.commands.kinds import refuse_package, refuse_trace
    from jdsl.inputs import tree_input_types, unread_inputs_note
    from jdsl.text import parse_behavior

    refuse_package(behavior, "jdsl run")
    refuse_trace(behavior, "jdsl run")
    if trace is not None:
        require_parent(trace, "--trace")
    refuse_model_and_reply(model, reply)
    tree = parse_behavior(behavior.read_text(encoding="utf-8"), name=behavior.stem)
    if model:
        tree.model(model)
    bound = read_tools(tools) if tools else None
    resolved = tree.resolved_bindings(bound)  # the parameters' annotations type the inputs
    seeds = parse_inputs(inputs, types=tree_input_types(tree, resolved.tools, resolved.predicates))
    note = unread_inputs_note(tree, list(seeds))
    if note:
        typer.echo(f"warning: {note}", err=True)
    chosen = run_model(tree.to_ir(), tree.model_id, reply)
    sink, opened = _sink(trace, otel)
    try:
        ctx = tree.run(model=chosen, tools=bound, trace_sink=sink, raise_errors=False, **seeds)
    finally:
        for each in opened:
            each.close()
    if trace is not None:
        typer.echo(f"trace: {trace}", err=True)
    report_run(ctx)
