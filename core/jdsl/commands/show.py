"""``jdsl show``: a readable text view of a trace, a package or behavior text.

::

    jdsl show runs.jsonl                 # episodes, then each one's timeline
    jdsl show runs.jsonl --episode ID    # one episode
    jdsl show runs.jsonl --compile       # and what compiling them would give (nothing written)
    jdsl show cancel.jdsl                # the package summary (as `jdsl package inspect`)
    jdsl show cancel.behavior            # the canonical tree text and what it needs
    jdsl show --diff cancel.jdsl runs.jsonl  # each episode against the package's replay
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import typer

from jdsl.commands.boundary import cli_errors, cli_fail, reporting_skips, require_parent
from jdsl.ir.walk import walk_ir
from jdsl.package import BehaviorPackage, input_types, load_package
from jdsl.trace import Episode, EventKind, SkippedLines, TraceEvent, read_events
from jdsl.trace.addresses import redact_address

__all__ = ["episode_timeline", "named_episodes", "package_summary", "show_command"]

E = TypeVar("E", bound=Episode)

K = EventKind


def _short(value: Any, limit: int = 60) -> str:
    """``value`` on one line for a terminal: JSON with its text readable (``ü``, not
    ``\\u00fc``), every control or format character escaped (a recorded ``\\x1b[2J`` must not
    clear the screen), cut to ``limit``."""
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    text = _escaped(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _escaped(value: Any) -> str:
    """``str(value)`` with every control or format character escaped (``\\x1b``, ``\\n``), for
    any recorded text a line shows: header fields (episode id, skill, status, a manifest's
    name) as well as values."""
    text = str(value)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _expression(expression: Any) -> Any:
    """A guard's IR expression as guard text (``exists(email)``), else as it was recorded."""
    from jdsl.text.expression import format_expression

    try:
        return format_expression(expression)
    except Exception:  # noqa: BLE001 - an imported or malformed expression is shown raw
        return expression


def _tool(payload: dict[str, Any]) -> str:
    tool = payload.get("tool") or {}
    return str(tool.get("host_name") or tool.get("logical_id") or "?")


def _line(event: TraceEvent) -> str | None:
    """One timeline line for an event worth showing, else None."""
    p, kind = event.payload, event.kind
    if kind == K.NODE_EXIT:
        return f"{p.get('label')}  -> {p.get('status')}"
    if kind == K.TOOL_CALL_STARTED:
        return f"call {_tool(p)}({_short(p.get('arguments') or {})})"
    if kind == K.TOOL_CALL_COMPLETED:
        return f"  = {_short(p.get('result'))}"
    if kind == K.TOOL_CALL_FAILED:
        return f"  ! {_short(p.get('error'))}"
    if kind == K.MODEL_RESPONDED:
        calls = _short(", ".join(str(c.get("name")) for c in p.get("tool_calls") or []), 40)
        said = _short(p.get("raw_output") or "") + (f" [calls {calls}]" if calls else "")
        usage = p.get("usage") or {}
        tokens = (
            f" ({usage.get('input_tokens')}/{usage.get('output_tokens')} tokens)" if usage else ""
        )
        return f"model {p.get('kind') or ''}: {said}{tokens}"
    if kind == K.GUARD_EVALUATED:
        return f"{p.get('type')} {_short(_expression(p.get('expression')))} -> {p.get('result')}"
    if kind == K.BLACKBOARD_WRITE:
        if p.get("source") is not None:  # a for_each's item: the element of this pass
            return f"  {p.get('key')} := {_escaped(str(p['source']))} = {_short(p.get('value'))}"
        return f"  {p.get('key')} := {_short(p.get('value'))}"
    if kind in (K.USER_MESSAGE, K.ASSISTANT_MESSAGE):
        return f"{kind.split('.')[0]}: {_short(p.get('content') or '')}"
    if kind == K.ENVIRONMENT_REWARD:
        return f"reward {p.get('reward')}"
    return None


def _status_word(episode: Episode) -> str:
    """How an episode ended, one word wherever ``jdsl show`` prints it: its recorded status,
    ``unfinished`` when cut off mid-run (no ``episode.finished``: a truncated file, a killed
    run), ``unknown`` when it finished without recording one."""
    return episode.status or ("unknown" if episode.complete else "unfinished")


def episode_timeline(episode: Episode) -> str:
    """An episode as text: a header, then one line per step, indented by tree depth.

    A line is never cut as a whole (that dropped the closing ``)`` of a deep tool call): each
    value in it is cut, ending in ``…``, by :func:`_short`."""
    started, finished = episode.started, episode.finished
    head = (
        f"episode {episode.episode_id}  skill={started.get('skill')}  "
        f"status={_status_word(episode)}  events={len(episode)}"
    )
    lines, depth = [_escaped(head)], 0
    for event in episode.ordered():
        if event.kind == K.NODE_EXIT:
            depth = max(depth - 1, 0)
        text = _line(event)
        if text is not None:
            lines.append(f"  {event.sequence:>4}  " + "  " * depth + _escaped(text))
        if event.kind == K.NODE_ENTER:
            depth += 1
    if finished.get("error_message"):
        error = f"{finished.get('error_type')}: {finished['error_message']}"
        lines.append(f"  error: {_escaped(error)}")
    return "\n".join(lines)


def _episodes_table(episodes: Iterable[Episode]) -> str:
    rows = [f"{'episode':<36} {'skill':<20} {'status':<10} {'tools':>5} {'model':>5}"]
    for e in episodes:
        rows.append(
            f"{_escaped(e.episode_id)[:36]:<36} {_escaped(e.skill)[:20]:<20} "
            f"{_escaped(_status_word(e))[:10]:<10} {len(e.tool_calls()):>5} {len(e.model_calls()):>5}"
        )
    return "\n".join(rows)


def named_episodes(episodes: Sequence[E], only: Sequence[str], traces: Sequence[Path]) -> list[E]:
    """The episodes ``--episode`` names (all of them when none), in trace order; an id the
    traces lack is an error naming it and the ids there are."""
    if not only:
        return list(episodes)
    known = [e.episode_id for e in episodes]
    unknown = [i for i in only if i not in set(known)]
    if unknown:
        near = ", ".join(_escaped(k) for k in known[:5]) + (
            f", ... ({len(known)} in all)" if len(known) > 5 else ""
        )
        files = " ".join(map(str, traces))
        raise cli_fail(f"no episode {unknown[0]!r} in {', '.join(map(str, traces))}",
                       f"pass one of: {near} (`jdsl show {files}` lists them all)")  # fmt: skip
    return [e for e in episodes if e.episode_id in set(only)]


def _show_trace(
    path: Path, only: Sequence[str], compile_preview: bool, skipped: SkippedLines | None
) -> None:
    from jdsl.commands.torn import warn_edited, without_torn  # the compiler's: on first use

    trace = read_events(path, strict=skipped is None, skipped=skipped)
    episodes = [e for e in trace.episodes if not e.is_control]
    if not episodes:
        raise cli_fail(
            f"{path} holds no episodes",
            "pass a trace recorded by `jdsl run` or converted by `jdsl import` "
            "(`jdsl show` also takes a .jdsl package file and a .behavior text file)",
        )
    episodes = named_episodes(episodes, only, [path])
    warn_edited(episodes, "shown", skipped)
    typer.echo(_episodes_table(episodes))
    for episode in episodes:
        typer.echo("\n" + episode_timeline(episode))
    if compile_preview:  # as `jdsl compile` reads them: the episodes a torn line broke left out
        _compile_preview(without_torn(episodes, skipped, "compile", str(path)), path)


def _compile_preview(episodes: Sequence[Episode], path: Path) -> None:
    """What ``jdsl compile`` gives for ``episodes``, nothing written: the same default (the
    grouping the importer recommends, :func:`~jdsl.compiler.families.recommended_grouping`;
    the reads answered from the initial state the runs record) and the same compile
    (:func:`~jdsl.compiler.pipeline.compile_families`, else one
    :func:`~jdsl.compiler.compile_normalized`)."""
    from jdsl.commands.validate import (
        family_cell,
        family_width,
        first_problem,
        initial_state,
        initial_states,
    )
    from jdsl.compiler import compile_normalized
    from jdsl.compiler.families import recommended_grouping
    from jdsl.compiler.pipeline import compile_families
    from jdsl.compiler.stream import normalize_stream

    normalized = normalize_stream(episodes)
    by = recommended_grouping(normalized)
    if by is None:
        name = next((str(e.skill) for e in episodes if e.skill), path.stem)
        reads = initial_state(None, normalized)
        typer.echo("\n" + str(compile_normalized(normalized, name=name, reads=reads).report()))
        return
    typer.echo(f"grouping by {by} (the importer's recommendation, as `jdsl compile` does)")
    compiled = compile_families(normalized, by, reads_of=initial_states(None, normalized))
    width = family_width(list(compiled.members))
    rows = [f"\n{'family':<{width}} {'ok/runs':>7} {'verify':<10} {'matched':>7}"]
    for family, members in sorted(compiled.members.items()):
        result = compiled.results.get(family)
        ok = sum(e.success is not False for e in members)
        runs = f"{ok}/{len(members)}"
        if result is None:  # too few (no successful run), or refused as jdsl compile says
            rows.append(f"{family_cell(family, width)} {runs:>7} {'refused' if ok else 'too few'}")
            continue
        v = result.verification
        matched = f"{v.matched}/{v.executed}"
        rows.append(f"{family_cell(family, width)} {runs:>7} {v.status:<10} {matched:>7}")
        if v.status == "failed":
            rows.append(first_problem(result))
    typer.echo("\n".join(rows))


def _show_behavior(path: Path) -> None:
    from jdsl.text import format_behavior, parse_behavior

    tree = parse_behavior(path.read_text(encoding="utf-8"), name=path.stem)
    nodes = list(walk_ir(tree.to_ir()))
    tools = sorted({n["tool"] for n in nodes if n.get("kind") == "action"}
                   | {t for n in nodes if n.get("kind") == "react" for t in n.get("tools", [])})  # fmt: skip
    models = [str(n.get("id") or n["kind"]) for n in nodes if n["kind"] in ("predict", "react")]
    typer.echo(format_behavior(tree).rstrip())
    typer.echo(f"\nnodes         {len(nodes)}")
    typer.echo(f"tools         {', '.join(tools) or '-'}")
    typer.echo(f"model leaves  {', '.join(models) or '-'} (model {tree.model_id or 'not set'})")


def package_summary(pkg: BehaviorPackage) -> str:
    """A package as text: name, verification, inputs (typed), permissions, metrics, tree."""
    from jdsl.text import format_behavior

    m = pkg.manifest
    verification = m.get("verification") or {}
    perms = pkg.permissions()
    types, source = input_types(pkg), m.get("source") or {}

    def typed(keys: Sequence[str]) -> str:
        return ", ".join(
            k + "".join(sorted({f" ({s['type']})" for _, s in types.get(k, ()) if "type" in s}))
            for k in keys
        )

    branches = source.get("input_alternatives") or []
    # a branch one of whose ways reads no run input requires nothing: its inputs are optional
    optional = dict.fromkeys(k for b in branches if [] in b for alt in b for k in alt)
    inputs = [typed(source.get("inputs") or [])] + [
        "one of: " + " | ".join(typed(alt) for alt in branch)
        for branch in branches
        if [] not in branch
    ]
    inputs += ["optional: " + typed(list(optional))] if optional else []
    lines = [
        f"{m.get('name')} {m.get('version')} ({m.get('format')})",
        f"digest        {m.get('manifest_digest')} (compare with the author's; --digest pins it)",
        f"task family   {m.get('task_family') or '-'}",
        verification_line(verification),
        f"run inputs    {'; '.join(i for i in inputs if i) or '-'}",
        f"reads         {', '.join(perms['reads']) or '-'}",
        f"writes        {', '.join(perms['writes']) or '-'}",
        f"destructive   {', '.join(perms['destructive']) or '-'}",
        f"metrics       {json.dumps(m.get('metrics') or {}, sort_keys=True)}",
        f"model hint    {pkg.model_hint or '-'}{_ignored(pkg.model_addresses())}",
        f"external refs {', '.join(_external(pkg)) or 'none'}",
    ]
    return "\n".join([*map(_escaped, lines), "", format_behavior(pkg.ir)])


def verification_line(verification: Mapping[str, Any]) -> str:
    """``verification  passed (replay coverage 1.0; executed 3 episode(s), 3 matched)``
    (``n/a`` when nothing was replayed)."""
    coverage = verification.get("replay_coverage", "-")
    return (
        f"verification  {verification.get('status')} (replay coverage "
        f"{'n/a' if coverage is None else coverage}; executed "
        f"{verification.get('executed', '-')} episode(s), {verification.get('matched', '-')}"
        f" matched{_unmatched(verification)})"
    )


def _unmatched(verification: Mapping[str, Any]) -> str:
    """``, 1 handed to the fallback, 1 unreplayable``: how the executed runs that were not
    matched ended (empty when every one matched)."""
    parts = [(verification.get("fallback"), "handed to the fallback"),
             (verification.get("unreplayable"), "unreplayable")]  # fmt: skip
    return "".join(f", {n} {what}" for n, what in parts if n)


def _ignored(addresses: Sequence[str]) -> str:
    if not addresses:
        return ""
    shown = ", ".join(redact_address(a) for a in addresses)
    return f" (address {shown} in the package ignored: --model and your environment choose)"


def _external(pkg: BehaviorPackage) -> list[str]:
    """Every address the package names outside itself: its model ids' addresses and any
    schema reference that is not a ``#...`` pointer (loading refuses the latter)."""
    from jdsl.interaction.schemas import external_references

    schemas = [c.input_schema for c in pkg.tools.values()] + [
        o.get("schema") for r in pkg.signatures.values() for o in r.get("outputs") or ()
        if isinstance(o, Mapping)
    ]  # fmt: skip
    refs = [ref for schema in schemas for ref in external_references(schema)]
    return [redact_address(a) for a in [*pkg.model_addresses(), *refs]]


@cli_errors
def show_command(
    path: Path = typer.Argument(
        ..., exists=True, metavar="TRACES.jsonl|PKG|FILE.behavior", help="What to show."
    ),
    episode: list[str] = typer.Option(
        [], "--episode", "-e", metavar="ID", help="Show only this episode (repeatable)."
    ),
    compile_preview: bool = typer.Option(
        False, "--compile", help="Also show what compiling the episodes gives (writes nothing)."
    ),
    traces: list[Path] = typer.Argument(
        None, exists=True, dir_okay=False, metavar="[TRACES.jsonl...]", help="With --diff."
    ),
    diff: bool = typer.Option(
        False,
        "--diff",
        help="PKG TRACES...: each episode side by side with the package's "
        "replay, step by step (exit 1 on a divergence).",
    ),
    html: Path | None = typer.Option(
        None, "--html", metavar="OUT.html", help="With --diff: also write the static HTML view."
    ),
    every: bool = typer.Option(
        False,
        "--all",
        help="With --diff: every run given, not only the runs of the package's family.",
    ),
    skip_bad_lines: bool = typer.Option(
        False, "--skip-bad-lines", help="Skip trace lines that are not events (e.g. torn ones)."
    ),
) -> None:
    """Show a trace (episodes and timelines), a package (its summary) or behavior text."""
    if diff:
        from jdsl.commands.diff import show_diff

        if html is not None:  # before the diff runs: a typo here must not cost the whole diff
            require_parent(html, "--html")
            if html.is_dir():
                raise cli_fail(f"--html {html} is a directory",
                               f"name the file to write, e.g. --html {html / 'diff.html'}")  # fmt: skip
        with reporting_skips(skip_bad_lines) as skipped:
            show_diff(path, traces or [], html, episode, skip_log=skipped, every=every)
        return
    if html is not None:
        raise cli_fail(
            "--html writes the --diff view", "add --diff PKG TRACES.jsonl, or drop --html"
        )
    if traces:
        raise cli_fail("more than one path without --diff", "give one path, or --diff PKG TRACES")
    if path.suffix == ".behavior":
        _show_behavior(path)
    elif path.is_dir() or path.suffix == ".jdsl":
        typer.echo(package_summary(load_package(path)))
    else:
        with reporting_skips(skip_bad_lines) as skipped:
            _show_trace(path, episode, compile_preview, skipped)
