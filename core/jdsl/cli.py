"""The ``jdsl`` command (typer). A thin layer: every command calls library functions.

::

    jdsl compile TRACES... -o OUT.jdsl [--name N] [--group-by task|sequence] [--holdout N]
    jdsl package inspect PKG
    jdsl package verify PKG
    jdsl package validate PKG TRACES...   (jdsl.validate_cli)
    jdsl package run PKG --tools module:NAME [--input KEY=VALUE ...] [--model ID | --reply TEXT]
    jdsl demo ...            (jdsl.demo.cli)
    jdsl import ...          (jdsl.importers.cli)
    jdsl --version

Every failure prints ``error: <what> — <how to fix>`` and exits non-zero (usage errors exit 2);
a failed compile writes no package.

Run inputs (``--input``): ``KEY=VALUE`` is the string VALUE, unless the package records the
type of KEY: a tool argument that reads KEY whole (``tools.json``) or a typed input field of a
model leaf's signature. Then VALUE is read as that type (``zip=77209`` stays the string
``"77209"`` for ``find_user(zip: str)``, ``count=3`` is the integer 3 for ``count: int``) and
checked against it. ``KEY:=JSON`` (as in httpie) always gives the JSON value, unchecked.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import typer

from jdsl import __version__
from jdsl.compiler import (
    MIN_BRANCH_SUPPORT,
    CompileError,
    CompileResult,
    NormEpisode,
    check_chains,
    compile_normalized,
    group_episodes,
    normalize_all,
)
from jdsl.compiler.families import GroupBy
from jdsl.demo.cli import demo_command
from jdsl.errors import BindingError, PackageError
from jdsl.importers.cli import MODEL_FIX, cli_advice, cli_errors, cli_fail, import_app
from jdsl.ir.nodes import walk_ir
from jdsl.package import SUFFIX, BehaviorPackage, InputUse, export_jdsl, input_types, load_package
from jdsl.trace import Episode, TraceFormatError, read_events
from jdsl.validate_cli import HOLDOUT_OPTION, compile_holdout, validate_command

__all__ = ["app", "package_app", "parse_inputs", "read_tools"]


app = typer.Typer(
    name="jdsl",
    help="Behavior trees for LLM agents: compile traces into verified, portable packages.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
package_app = typer.Typer(
    name="package",
    help="Inspect, verify and run behavior packages.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
app.add_typer(package_app, name="package")
app.add_typer(import_app, name="import")
app.command("demo")(demo_command)
package_app.command("validate")(validate_command)

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


# -- run inputs -------------------------------------------------------------------------------
def parse_inputs(
    pairs: Sequence[str],
    *,
    option: str = "--input",
    types: Mapping[str, Sequence[InputUse]] | None = None,
) -> dict[str, Any]:
    """``["k=v", "n:=3", ...]`` -> ``{k: "v", n: 3}`` (the rule in the module docstring).

    Args:
        pairs: ``KEY=VALUE`` (a string, or the type ``types`` records for KEY) or
            ``KEY:=JSON`` (a JSON value).
        option: the option the pairs came from, named in errors.
        types: ``{key: [(where, JSON Schema)]}``, e.g. from :func:`input_types`.

    Raises:
        typer.BadParameter: an item without ``=``, bad JSON after ``:=``, or a value that does
            not fit the recorded type.
    """
    inputs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        as_json = key.endswith(":")
        key = key.removesuffix(":").strip()
        if not sep or not key:
            raise typer.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint=option)
        if as_json:
            inputs[key] = _json(key, text, option)
        else:
            inputs[key] = _typed(key, text, (types or {}).get(key, ()), option)
    return inputs


def _json(key: str, text: str, option: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise typer.BadParameter(
            f"{key}:={text} is not JSON; write {key}={text} for a string", param_hint=option
        ) from None


def _allows_string(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind)


def _typed(key: str, text: str, uses: Sequence[InputUse], option: str) -> Any:
    value: Any = text
    if not all(_allows_string(schema) for _, schema in uses):
        try:
            value = json.loads(text)
        except ValueError:
            pass  # the check below names the type wanted
    for where, schema in uses:
        from jsonschema.exceptions import best_match  # lazy: jsonschema costs ~1 s to import
        from jsonschema.validators import validator_for

        error = best_match(validator_for(schema)(schema).iter_errors(value))
        if error is not None:
            raise typer.BadParameter(
                f"{key}={text!r} does not fit {where} ({error.message}); pass a value of its "
                f"type, or {key}:=JSON to pass a JSON value unchecked",
                param_hint=option,
            )
    return value


# -- host tools -------------------------------------------------------------------------------
def read_tools(spec: str) -> Mapping[str, Callable[..., Any]] | Sequence[Callable[..., Any]]:
    """Import ``module:NAME``: a ``{capability: fn}`` mapping, a list of tools, or a function
    without required parameters returning one of those.

    Raises:
        typer.BadParameter: a malformed spec, a missing module or name, or the wrong kind.
        BindingError: importing the module or calling the factory raised.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise typer.BadParameter(f"{spec!r} is not module:NAME", param_hint="--tools")
    try:
        value = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise typer.BadParameter(f"cannot load {spec!r}: {exc}", param_hint="--tools") from exc
    except Exception as exc:  # the user's module: any failure is reported, never a traceback
        raise _user_code_error(f"importing {module_name}", spec, exc) from exc
    if callable(value) and not isinstance(value, Mapping):
        required = [
            p
            for p in inspect.signature(value).parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        try:
            value = value() if not required else [value]
        except Exception as exc:  # the user's factory
            raise _user_code_error(f"the tool factory {spec}", spec, exc) from exc
    if isinstance(value, Mapping) or isinstance(value, list | tuple):
        return value
    raise typer.BadParameter(f"{spec!r} is not a mapping or list of tools", param_hint="--tools")


def _user_code_error(what: str, spec: str, exc: Exception) -> BindingError:
    return BindingError(
        f"{what} raised {type(exc).__name__}: {exc} — fix it, or pass --tools another "
        "module:NAME (a {capability: fn} mapping, a list of tools, or a function returning one)",
        name=spec,
        kind="tool",
    )


# -- compile ----------------------------------------------------------------------------------
@app.command("compile")
@cli_errors
def compile_command(
    traces: list[Path] = typer.Argument(
        ..., exists=True, dir_okay=False, metavar="TRACES", help="JSONL trace files."
    ),
    out: Path = typer.Option(
        ...,
        "-o",
        "--out",
        metavar="OUT",
        help="The package file to write (replaced), or a directory to write NAME.jdsl in; with "
        "--group-by, the directory that gets one package per family.",
    ),
    name: str | None = typer.Option(
        None, "-n", "--name", metavar="NAME", help="Behavior name (default: skill)."
    ),
    task_family: str = typer.Option(
        "", "--task-family", metavar="FAMILY", help="Recorded in the manifest."
    ),
    group_by: GroupBy | None = typer.Option(
        None, "--group-by", help="Compile each family on its own into the directory -o."
    ),
    canonical: list[str] = typer.Option(
        [],
        "--canonical",
        metavar="HOST=LOGICAL",
        help="HOST=LOGICAL tool name mapping (repeatable).",
    ),
    skip_bad_lines: bool = typer.Option(
        False, "--skip-bad-lines", help="Skip trace lines that are not events (e.g. torn ones)."
    ),
    holdout: int | None = HOLDOUT_OPTION,
    min_support: int = typer.Option(
        MIN_BRANCH_SUPPORT,
        "--min-support",
        min=1,
        metavar="N",
        help="Successful episodes a branch alternative needs; thinner paths are reported and "
        "left out.",
    ),
) -> None:
    """Compile traced episodes into a verified behavior package.

    Exit 1, writing nothing, when there is no successful episode, the trace's hash chain is
    broken, verification fails (a ref or guard does not replay, or the package executed on an
    episode does not make its calls), or it is unverified (nothing to replay or execute).
    """
    mapping = {k: str(v) for k, v in parse_inputs(canonical, option="--canonical").items()}
    if (group_by is not None or holdout) and out.exists() and not out.is_dir():
        fix = f"with {'--holdout' if group_by is None else '--group-by'}, -o is a directory; pass one"
        raise cli_fail(f"-o {out} is a file", fix)
    episodes = _read_episodes(traces, strict=not skip_bad_lines)
    check_chains(episodes)
    normalized = normalize_all(episodes, canonical=mapping)
    _require_success(normalized, traces)
    base = name or next(
        (str(e.metadata["skill"]) for e in normalized if e.metadata.get("skill")), traces[0].stem
    )
    if holdout is not None:
        return compile_holdout(normalized, group_by, base, task_family, out, holdout, min_support)
    if group_by is None:
        result = compile_normalized(
            normalized, name=base, task_family=task_family, min_support=min_support
        )
        typer.echo(str(result.report()))
        if not result.ok:
            raise _verification_fail(result.verification.status)
        target = out / f"{base}{SUFFIX}" if out.is_dir() else out
        typer.echo(f"package: {_write_package(result.package, target)}")
        return
    _compile_families(normalized, group_by, base, task_family, out, min_support)


def _compile_families(
    normalized: Sequence[NormEpisode],
    by: GroupBy,
    base: str,
    task_family: str,
    out: Path,
    min_support: int,
) -> None:
    rows, ok = [], True
    for family, members in sorted(group_episodes(normalized, by), key=_natural):
        try:
            result = compile_normalized(
                members, name=f"{base}-{family}", task_family=task_family or family,
                min_support=min_support,
            )  # fmt: skip
        except CompileError:  # no successful episode in this family
            rows.append(f"{family[:40]:<40} {len(members):>5} {'refused':<10}{'not written':>30}")
            ok = False
            continue
        written = _write_package(result.package, out / f"{family}{SUFFIX}") if result.ok else None
        rows.append(_family_row(family, result, written))
        ok = ok and result.ok
    typer.echo(
        f"{'family':<40} {'eps':>5} {'verify':<10} {'replay':>7} {'exec':>7} {'model':>5}"
        f" {'RDB':>6}  package"
    )
    typer.echo("\n".join(rows))
    if not ok:
        raise cli_fail(
            "some families failed verification or had nothing to replay (unverified); their "
            "packages were not written",
            "'failed' rows: run `jdsl compile` on that family's episodes alone to see its problems; "
            "'unverified' rows: nothing in them is deterministic, so there is nothing to package",
        )


def _natural(item: tuple[str, Any]) -> list[Any]:
    """Sort key for family names: ``task-2`` before ``task-12``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", item[0])]


def _verification_fail(status: str) -> Exception:
    """Exit 1 for ``failed`` and for ``unverified`` (0 replay checks prove nothing)."""
    if status == "unverified":
        return cli_fail(
            "unverified: nothing to replay or execute (no ref or guard compiled from the "
            "episodes, no episode executed); no package written",
            "compile the episodes of one task family (--group-by) so their calls align",
        )
    return cli_fail("verification failed; no package written", "see the problems above")


def _read_episodes(paths: Sequence[Path], *, strict: bool) -> list[Episode]:
    episodes: list[Episode] = []
    for path in paths:
        try:
            episodes += read_events(path, strict=strict).episodes
        except UnicodeDecodeError as exc:
            raise TraceFormatError(
                f"not UTF-8 text ({exc.reason} at byte {exc.start}); pass a jdsl trace (JSONL "
                "written by a JsonlTraceSink or `jdsl import`)",
                path=str(path),
                line=1 + exc.object[: exc.start].count(b"\n"),
            ) from None
    return episodes


def _require_success(normalized: Sequence[NormEpisode], paths: Sequence[Path]) -> None:
    """The compiler builds from successful episodes (or ones of unknown outcome)."""
    files = ", ".join(str(p) for p in paths)
    if not normalized:
        raise cli_fail(
            f"no episodes in {files}",
            "record runs with a JsonlTraceSink, or convert other logs with `jdsl import`",
        )
    if all(e.success is False for e in normalized):
        raise cli_fail(
            f"no successful episode in {files} ({len(normalized)} failed or cancelled)",
            "a package is compiled from runs that succeeded; add traces of successful runs",
        )


def _write_package(package: BehaviorPackage, target: Path) -> Path:
    """Write the ``.jdsl`` archive at exactly ``target`` (atomic; see ``export_jdsl``)."""
    try:
        return export_jdsl(package, target, add_suffix=False)
    except PackageError as exc:
        raise PackageError(f"{exc} — choose a writable path for -o", path=exc.path) from None


def _coverage(verification: dict[str, Any]) -> str:
    """Replay coverage, ``n/a`` when nothing was replayed."""
    coverage = verification["replay_coverage"]
    return "n/a" if coverage is None else str(coverage)


def _family_row(family: str, result: CompileResult, written: Path | None) -> str:
    report = result.report()
    v, m = report["verification"], report["metrics"]
    executed = f"{v['matched']}/{v['executed']}"
    return (
        f"{family[:40]:<40} {report['episodes']:>5} {v['status']:<10} {_coverage(v):>7}"
        f" {executed:>7}"
        f" {m['model_dependent_decisions']:>5} {m['residual_decision_burden']:>6.2f}  "
        f"{written or 'not written'}"
    )


# -- package ----------------------------------------------------------------------------------
@package_app.command("inspect")
@cli_errors
def inspect_command(
    path: Path = typer.Argument(..., metavar="PKG", help="A .jdsl archive or package dir."),
) -> None:
    """Show a package: name, verification, inputs, permissions, metrics and the tree."""
    from jdsl.text import format_behavior

    pkg = load_package(path)
    m = pkg.manifest
    verification = m.get("verification") or {}
    perms = pkg.permissions()
    types, source = input_types(pkg), m.get("source") or {}

    def typed(keys: Sequence[str]) -> str:
        return ", ".join(
            k + "".join(sorted({f" ({s['type']})" for _, s in types.get(k, ()) if "type" in s}))
            for k in keys
        )

    inputs = [typed(source.get("inputs") or [])] + [
        "one of: " + " | ".join(typed(alt) for alt in branch)
        for branch in source.get("input_alternatives") or []
    ]
    lines = [
        f"{m.get('name')} {m.get('version')} ({m.get('format')})",
        f"task family   {m.get('task_family') or '-'}",
        f"verification  {verification.get('status')} (replay coverage "
        f"{verification.get('replay_coverage', '-')}; executed "
        f"{verification.get('executed', '-')} episode(s), {verification.get('matched', '-')}"
        " matched)",
        f"run inputs    {'; '.join(i for i in inputs if i) or '-'}",
        f"reads         {', '.join(perms['reads']) or '-'}",
        f"writes        {', '.join(perms['writes']) or '-'}",
        f"destructive   {', '.join(perms['destructive']) or '-'}",
        f"metrics       {json.dumps(m.get('metrics') or {}, sort_keys=True)}",
        "",
        format_behavior(pkg.ir),
    ]
    typer.echo("\n".join(lines))


@package_app.command("verify")
@cli_errors
def verify_command(
    path: Path = typer.Argument(..., metavar="PKG", help="A .jdsl archive or package dir."),
) -> None:
    """Check format, every digest and the IR (exit 1 on any problem)."""
    pkg = load_package(path)
    typer.echo(f"ok: {pkg.name} {pkg.version}: {len(pkg.files)} files, digests match, IR valid")


@package_app.command("run")
@cli_errors
def run_command(
    path: Path = typer.Argument(..., metavar="PKG", help="A .jdsl archive or package dir."),
    tools: str = typer.Option(
        ..., "--tools", "-t", metavar="module:NAME", help="module:NAME of the host tools."
    ),
    inputs: list[str] = typer.Option(
        [],
        "--input",
        "-i",
        metavar="KEY=VALUE",
        help="Run input (repeatable). KEY=VALUE is a string, or the type the package records "
        "for KEY (a tool argument or a typed signature field); KEY:=JSON is a JSON value.",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", metavar="ID", help="Provider model id."
    ),
    reply: list[str] = typer.Option(
        [], "--reply", metavar="TEXT", help="Scripted model reply (offline; repeatable)."
    ),
) -> None:
    """Bind host tools to a package and run it once; print status and blackboard."""
    if model and reply:
        raise typer.BadParameter("give --model or --reply, not both", param_hint="--reply")
    pkg = load_package(path)
    seeds = parse_inputs(inputs, types=input_types(pkg))
    root = pkg.as_root(read_tools(tools), model_id=model)
    missing = pkg.missing_inputs(seeds)
    if missing:
        raise cli_fail(f"missing run inputs: {'; '.join(missing)}", "pass --input KEY=VALUE")
    run_model = _run_model(pkg, root.model_id, reply)
    ctx = root.run(model=run_model, raise_errors=False, **seeds)
    typer.echo(f"status: {ctx.status.value}")
    if ctx.error is not None:
        typer.echo(f"error: {cli_advice(str(ctx.error))}", err=True)
    elif ctx.failure is not None:
        typer.echo(f"failed at {ctx.failure}", err=True)
    typer.echo(json.dumps(dict(ctx.blackboard), indent=2, sort_keys=True, default=str))
    raise typer.Exit(code=0 if ctx.status.value == "success" and ctx.error is None else 1)


def _run_model(pkg: BehaviorPackage, model_id: str | None, reply: Sequence[str]) -> Any:
    """Scripted replies, else the provider model of ``model_id`` when the package has a model
    leaf (resolved here, so a bad id or a missing key stops before the run), else None."""
    if reply:
        from jdsl.testing import ScriptedModel

        return ScriptedModel(*reply)
    leaves = [str(n.get("id") or n["kind"]) for n in walk_ir(pkg.ir["root"])
              if n.get("kind") in ("predict", "react")]  # fmt: skip
    if not leaves:
        return None
    if not model_id:
        raise cli_fail(f"model leaves {', '.join(leaves)} have no model", MODEL_FIX)
    from jdsl.providers import resolve_model

    return resolve_model(model_id)
