"""The ``jdsl`` command (typer). A thin layer: every command calls library functions.

::

    jdsl compile TRACES... -o OUT.jdsl [--name N] [--group-by task|sequence]
    jdsl package inspect PKG
    jdsl package verify PKG
    jdsl package run PKG --tools module:NAME [--input KEY=VALUE ...] [--model ID | --reply TEXT]
    jdsl demo ...            (jdsl.demo.cli)
    jdsl import ...          (jdsl.importers.cli)
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from jdsl.compiler import (
    CompileResult,
    compile_normalized,
    group_episodes,
    normalize_all,
)
from jdsl.demo.cli import demo_command
from jdsl.errors import JdslError
from jdsl.importers.cli import import_app
from jdsl.package import BehaviorPackage, export_jdsl, load_package
from jdsl.trace import read_events

__all__ = ["app", "package_app", "parse_inputs", "read_tools"]

app = typer.Typer(
    name="jdsl",
    help="Behavior trees for LLM agents: compile traces into verified, portable packages.",
    no_args_is_help=True,
    add_completion=False,
)
package_app = typer.Typer(
    name="package", help="Inspect, verify and run behavior packages.", no_args_is_help=True
)
app.add_typer(package_app, name="package")
app.add_typer(import_app, name="import")
app.command("demo")(demo_command)


class GroupBy(StrEnum):
    task = "task"
    sequence = "sequence"


def _fail(exc: Exception) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(code=1)


def parse_inputs(pairs: Sequence[str]) -> dict[str, Any]:
    """``["k=v", ...]`` -> ``{k: v}``; a value that parses as JSON is JSON, else a string.

    Raises:
        typer.BadParameter: an item without ``=``.
    """
    inputs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--input")
        try:
            inputs[key.strip()] = json.loads(text)
        except ValueError:
            inputs[key.strip()] = text
    return inputs


def read_tools(spec: str) -> Mapping[str, Callable[..., Any]] | Sequence[Callable[..., Any]]:
    """Import ``module:NAME``: a ``{capability: fn}`` mapping, a list of tools, or a function
    without required parameters returning one of those.

    Raises:
        typer.BadParameter: a malformed spec, a missing module or name, or the wrong kind.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise typer.BadParameter(f"{spec!r} is not module:NAME", param_hint="--tools")
    try:
        value = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise typer.BadParameter(f"cannot load {spec!r}: {exc}", param_hint="--tools") from exc
    if callable(value) and not isinstance(value, Mapping):
        required = [
            p
            for p in inspect.signature(value).parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        value = value() if not required else [value]
    if isinstance(value, Mapping) or isinstance(value, list | tuple):
        return value
    raise typer.BadParameter(f"{spec!r} is not a mapping or list of tools", param_hint="--tools")


# -- compile ----------------------------------------------------------------------------------
@app.command("compile")
def compile_command(
    traces: list[Path] = typer.Argument(..., exists=True, dir_okay=False, help="JSONL traces."),
    out: Path = typer.Option(..., "-o", "--out", help="OUT.jdsl, or a directory with --group-by."),
    name: str | None = typer.Option(None, "-n", "--name", help="Behavior name (default: skill)."),
    task_family: str = typer.Option("", "--task-family", help="Recorded in the manifest."),
    group_by: GroupBy | None = typer.Option(
        None, "--group-by", help="Compile each family on its own into the directory -o."
    ),
    canonical: list[str] = typer.Option(
        [], "--canonical", help="HOST=LOGICAL tool name mapping (repeatable)."
    ),
) -> None:
    """Compile traced episodes into a verified behavior package (exit 1 if verification fails)."""
    mapping = {k: str(v) for k, v in parse_inputs(canonical).items()}
    try:
        episodes = [e for path in traces for e in read_events(path).episodes]
        normalized = normalize_all(episodes, canonical=mapping)
    except (JdslError, OSError) as exc:
        raise _fail(exc) from exc
    base = name or next(
        (str(e.metadata["skill"]) for e in normalized if e.metadata.get("skill")), traces[0].stem
    )
    if group_by is None:
        result = compile_normalized(normalized, name=base, task_family=task_family)
        written = export_jdsl(result.package, out)
        typer.echo(str(result.report()))
        typer.echo(f"package: {written}")
        raise typer.Exit(code=0 if result.ok else 1)
    rows, ok = [], True
    for family, members in group_episodes(normalized, group_by.value):
        result = compile_normalized(
            members, name=f"{base}-{family}", task_family=task_family or family
        )
        written = export_jdsl(result.package, out / family)
        rows.append(_family_row(family, result, written))
        ok = ok and result.ok
    typer.echo(
        f"{'family':<40} {'eps':>5} {'verify':<7} {'replay':>7} {'model':>5} {'RDB':>6}  package"
    )
    typer.echo("\n".join(rows))
    raise typer.Exit(code=0 if ok else 1)


def _family_row(family: str, result: CompileResult, written: Path) -> str:
    report = result.report()
    v, m = report["verification"], report["metrics"]
    return (
        f"{family[:40]:<40} {report['episodes']:>5} {v['status']:<7} {v['replay_coverage']:>7}"
        f" {m['model_dependent_decisions']:>5} {m['residual_decision_burden']:>6}  {written}"
    )


# -- package ----------------------------------------------------------------------------------
def _load(path: Path) -> BehaviorPackage:
    try:
        return load_package(path)
    except JdslError as exc:
        raise _fail(exc) from exc


@package_app.command("inspect")
def inspect_command(
    path: Path = typer.Argument(..., help="A .jdsl archive or package dir."),
) -> None:
    """Show a package: name, verification, inputs, permissions, metrics and the tree."""
    from jdsl.text import format_behavior

    pkg = _load(path)
    m = pkg.manifest
    verification = m.get("verification") or {}
    perms = pkg.permissions()
    lines = [
        f"{m.get('name')} {m.get('version')} ({m.get('format')})",
        f"task family   {m.get('task_family') or '-'}",
        f"verification  {verification.get('status')} (replay coverage "
        f"{verification.get('replay_coverage', '-')})",
        f"run inputs    {', '.join((m.get('source') or {}).get('inputs') or []) or '-'}",
        f"reads         {', '.join(perms['reads']) or '-'}",
        f"writes        {', '.join(perms['writes']) or '-'}",
        f"destructive   {', '.join(perms['destructive']) or '-'}",
        f"metrics       {json.dumps(m.get('metrics') or {}, sort_keys=True)}",
        "",
        format_behavior(pkg.ir),
    ]
    typer.echo("\n".join(lines))


@package_app.command("verify")
def verify_command(
    path: Path = typer.Argument(..., help="A .jdsl archive or package dir."),
) -> None:
    """Check format, every digest and the IR (exit 1 on any problem)."""
    pkg = _load(path)
    typer.echo(f"ok: {pkg.name} {pkg.version}: {len(pkg.files)} files, digests match, IR valid")


@package_app.command("run")
def run_command(
    path: Path = typer.Argument(..., help="A .jdsl archive or package dir."),
    tools: str = typer.Option(..., "--tools", "-t", help="module:NAME of the host tools."),
    inputs: list[str] = typer.Option([], "--input", "-i", help="KEY=VALUE run input (repeatable)."),
    model: str | None = typer.Option(None, "--model", "-m", help="Provider model id."),
    reply: list[str] = typer.Option(
        [], "--reply", help="Scripted model reply (offline; repeatable)."
    ),
) -> None:
    """Bind host tools to a package and run it once; print status and blackboard."""
    pkg = _load(path)
    seeds = parse_inputs(inputs)
    scripted = None
    if reply:
        from jdsl.testing import ScriptedModel

        scripted = ScriptedModel(*reply)
    try:
        root = pkg.as_root(read_tools(tools), model_id=model)
        ctx = root.run(model=scripted, raise_errors=False, **seeds)
    except JdslError as exc:
        raise _fail(exc) from exc
    board = dict(ctx.blackboard)
    typer.echo(f"status: {ctx.status.value}")
    if ctx.error is not None:
        typer.echo(f"error: {ctx.error}", err=True)
    typer.echo(json.dumps(board, indent=2, sort_keys=True, default=str))
    raise typer.Exit(code=0 if ctx.status.value == "success" and ctx.error is None else 1)
