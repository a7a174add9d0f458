"""``jdsl package inspect|verify|run|validate PKG``: look into, check and run behavior packages.

::

    jdsl package inspect PKG
    jdsl package verify PKG [--digest sha256:HEX]
    jdsl package validate PKG TRACES...   (jdsl.commands.validate)
    jdsl package run PKG --tools module:NAME|file.py:NAME [--input KEY=VALUE ...] [--model ID | --reply TEXT]
        [--digest sha256:HEX] [--trace OUT.jsonl]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from jdsl.commands.boundary import cli_errors, cli_fail, command_app, require_parent
from jdsl.commands.inputs import (
    INPUT_OPTION,
    REPLY_OPTION,
    TRACE_OPTION,
    parse_inputs,
    read_tools,
    refuse_model_and_reply,
    tools_option,
)
from jdsl.commands.kinds import refuse_non_package
from jdsl.commands.run import report_run, run_model
from jdsl.commands.show import package_summary
from jdsl.commands.validate import validate_command
from jdsl.compiler.fallback import split_fallback, takeover_note
from jdsl.inputs import unread_inputs_note
from jdsl.package import input_types, load_package
from jdsl.trace import FanoutSink, JsonlTraceSink, ListTraceSink, TraceEvent

__all__ = ["package_app"]

package_app = command_app("package", "Inspect, verify and run behavior packages.")
package_app.command("validate")(validate_command)

_PKG = typer.Argument(..., metavar="PKG", help="A .jdsl archive or package dir.")
_DIGEST = typer.Option(
    None,
    "--digest",
    metavar="sha256:HEX",
    help="The package digest its author published: refuse any other package.",
)


@package_app.command("inspect")
@cli_errors
def inspect_command(path: Path = _PKG) -> None:
    """Show a package: name, verification, inputs, permissions, metrics and the tree."""
    refuse_non_package(path, "jdsl package inspect")
    typer.echo(package_summary(load_package(path)))


@package_app.command("verify")
@cli_errors
def verify_command(path: Path = _PKG, digest: str | None = _DIGEST) -> None:
    """Check format, every digest and the IR (exit 1 on any problem); with --digest, also that
    it is the package its author published (digests alone prove integrity, not authorship)."""
    refuse_non_package(path, "jdsl package verify")
    pkg = load_package(path, digest=digest)
    pinned = ", the pinned digest" if digest else ""
    typer.echo(
        f"ok: {pkg.name} {pkg.version}: {len(pkg.files)} files, digests match{pinned}, IR valid"
    )


@package_app.command("run")
@cli_errors
def run_command(
    path: Path = _PKG,
    tools: str | None = tools_option(" (required)"),
    inputs: list[str] = INPUT_OPTION,
    model: str | None = typer.Option(
        None, "--model", "-m", metavar="ID", help="Provider model id."
    ),
    reply: list[str] = REPLY_OPTION,
    digest: str | None = _DIGEST,
    trace: Path | None = TRACE_OPTION,
) -> None:
    """Bind host tools to a package and run it once; print status and blackboard.

    A missing run input is refused only when the package has no fallback; with one, the run
    starts, the compiled program stops at the guard that needs the input, and the fallback
    takes the rest of the run (a note on stderr says which inputs were missing). When the
    fallback takes over, a note on stderr names the step where the compiled program stopped
    and why. An input the package never reads gets a warning (a typo'd key)."""
    refuse_non_package(path, "jdsl package run")
    refuse_model_and_reply(model, reply)
    if trace is not None:
        require_parent(trace, "--trace")
    pkg = load_package(path, digest=digest)
    if tools is None:  # asked once the package is known to be one: it names what to bind
        raise cli_fail(
            f"no --tools: {pkg.name} calls {', '.join(pkg.required_capabilities) or 'no tool'}",
            "pass --tools module:NAME (or file.py:NAME) holding them: a {capability: fn} "
            "mapping, a list of tools, or a function returning one",
        )
    seeds = parse_inputs(inputs, types=input_types(pkg))
    host = read_tools(tools)
    if unbound := pkg.unbound(host):  # before binding: CLI advice, not bind()'s Python advice
        raise cli_fail(
            f"--tools {tools} gives no tool for {', '.join(unbound)} ({pkg.name} calls "
            f"{', '.join(pkg.required_capabilities)})",
            "pass --tools module:NAME holding a mapping keyed by those names (`jdsl package "
            "inspect PKG` lists them under reads and writes)",
        )
    root = pkg.as_root(host, model_id=model)
    if note := unread_inputs_note(root, list(seeds)):
        typer.echo(f"warning: {note}", err=True)
    missing = pkg.missing_inputs(seeds)
    if missing and split_fallback(pkg.ir)[1] is None:  # nothing could take the run
        raise cli_fail(f"missing run inputs: {'; '.join(missing)}", "pass --input KEY=VALUE")
    if missing:
        typer.echo(f"note: missing run inputs: {'; '.join(missing)}; the package's fallback "
                   "takes the run where the compiled program needs them (pass --input "
                   "KEY=VALUE to run the compiled program)", err=True)  # fmt: skip
    kept = ListTraceSink()
    jsonl = JsonlTraceSink(trace) if trace is not None else None
    sink = kept if jsonl is None else FanoutSink(kept, jsonl)
    chosen = run_model(pkg.ir, root.model_id, reply)
    try:
        ctx = root.run(model=chosen, trace_sink=sink, raise_errors=False, **seeds)
    finally:
        if jsonl is not None:
            jsonl.close()
    if trace is not None:
        typer.echo(f"trace: {trace}", err=True)
    if note := fallback_note(kept.events):
        typer.echo(note, err=True)
    report_run(ctx)


def fallback_note(events: Sequence[TraceEvent]) -> str | None:
    """The note for a run whose compiled program stopped and whose fallback took over
    (:func:`jdsl.compiler.fallback.takeover_note`, the notebook's wording too); None
    otherwise."""
    said = takeover_note(events)
    return None if said is None else f"note: {said}"
