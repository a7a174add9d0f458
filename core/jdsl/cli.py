"""The ``jdsl`` command (typer): this module only assembles it; every command lives in
:mod:`jdsl.commands`, and shares its boundary (:mod:`jdsl.commands.boundary`).

::

    jdsl compile TRACES... -o OUT.jdsl ...   (jdsl.commands.compile)
    jdsl package inspect|verify|validate|run (jdsl.commands.package)
    jdsl demo ...            (jdsl.commands.demo)
    jdsl import ...          (jdsl.commands.imports)
    jdsl run FILE.behavior --tools module:NAME [--input KEY=VALUE ...] [--trace OUT.jsonl]
    jdsl show TRACES.jsonl | PKG | FILE.behavior
    jdsl doctor
    jdsl export otel TRACES.jsonl --endpoint URL | --out FILE
    jdsl --version           (run, show, doctor, export: jdsl.commands)

Every failure prints ``error: <what> — <how to fix>`` and exits non-zero (usage errors exit 2);
a failed compile writes no package. ``--input`` is read as :mod:`jdsl.inputs` says, ``--tools``
as :mod:`jdsl.commands.inputs` does.
"""

from __future__ import annotations

import typer

from jdsl import __version__
from jdsl.commands import (
    compile_command,
    demo_command,
    doctor_command,
    export_app,
    import_app,
    package_app,
    run_command,
    show_command,
)
from jdsl.commands.inputs import parse_inputs, read_tools

__all__ = ["app", "package_app", "parse_inputs", "read_tools"]

app = typer.Typer(
    name="jdsl",
    help="Behavior trees for LLM agents: compile traces into verified, portable packages.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
app.add_typer(package_app, name="package")
app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")
app.command("demo")(demo_command)
app.command("run")(run_command)
app.command("show")(show_command)
app.command("doctor")(doctor_command)
app.command("compile")(compile_command)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"jdsl {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Behavior trees for LLM agents: compile traces into verified, portable packages."""
