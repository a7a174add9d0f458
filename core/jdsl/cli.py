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

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from jdsl import __version__
from jdsl.commands.boundary import command_app
from jdsl.lazy import lazy_getattr

if TYPE_CHECKING:
    from jdsl.commands.inputs import parse_inputs, read_tools
    from jdsl.commands.package import package_app

__all__ = ["app", "package_app", "parse_inputs", "read_tools"]

_COMMANDS = MappingProxyType({
    "demo": ("jdsl.commands.demo", "demo_command"),
    "run": ("jdsl.commands.run", "run_command"),
    "show": ("jdsl.commands.show", "show_command"),
    "doctor": ("jdsl.commands.doctor", "doctor_command"),
    "compile": ("jdsl.commands.compile", "compile_command"),
    "package": ("jdsl.commands.package", "package_app"),
    "import": ("jdsl.commands.imports", "import_app"),
    "export": ("jdsl.commands.export", "export_app"),
})  # fmt: skip
"""Each command (in ``--help``'s order): the module and name of its typer app or function,
imported only when the command runs (or ``--help`` lists them): ``jdsl --version`` and every
command's start import no other command's modules (the compiler, the demo, jsonschema)."""


class _LazyCommands(TyperGroup):
    """The ``jdsl`` group: its commands are :data:`_COMMANDS`, each imported when asked for."""

    def list_commands(self, ctx: Any) -> list[str]:  # typer's own click types
        return [*super().list_commands(ctx), *_COMMANDS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in _COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, name = _COMMANDS[cmd_name]
        target = getattr(importlib.import_module(module), name)
        command: Any
        if isinstance(target, typer.Typer):  # a group, even of one command (export otel)
            command = typer.main.get_group(target)
        else:  # a command function: an app of that one is that command
            single = command_app(cmd_name, "")
            single.command(cmd_name)(target)
            command = typer.main.get_command(single)
        command.name = cmd_name
        return command


app = command_app(
    "jdsl",
    "Behavior trees for LLM agents: compile traces into verified, portable packages.",
    cls=_LazyCommands,
)


__getattr__ = lazy_getattr(
    __name__,
    MappingProxyType(
        {
            "package_app": "jdsl.commands.package",
            "parse_inputs": "jdsl.commands.inputs",
            "read_tools": "jdsl.commands.inputs",
        }
    ),
)
"""``package_app``, ``parse_inputs``, ``read_tools``: imported on first use."""


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
