"""``jdsl package validate PKG TRACES...`` and ``jdsl compile --holdout N``: held-out validation
from the command line (:mod:`jdsl.compiler.holdout` does the work).

``validate`` prints one row per episode (matched, diverged, unreplayable, fallback with the step
where it took over, refused, failed run) and the summary, and exits 1 when an episode diverged
or none is a reference (every run given failed: :class:`~jdsl.compiler.errors.NoReferenceError`);
an episode ``--episode`` names that was cut off mid-run is refused, saying so.
``compile --holdout N`` compiles each family on all but its last N successful episodes,
validates the package on those, writes the verified packages and prints one row per family
(held, served end to end, matched, fallback, refused, diverged, constants contradicted; ``too
few``: no successful episode is left once N are held out); it exits 1 when a family failed
verification or a held-out episode diverged. Both take ``--initial-state DOMAIN``: a read a run
never made is answered, before its first write, from the database every run of the domain
starts from (:mod:`jdsl.compiler.lookups`; ``tau_airline``: the shipped db).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from jdsl.commands.boundary import cli_errors, cli_fail, count, reporting_skips
from jdsl.commands.families import family_runs
from jdsl.commands.inputs import parse_inputs
from jdsl.commands.kinds import refuse_behavior, refuse_non_package, refuse_package_as_traces
from jdsl.commands.repeats import distinct_episodes, note_repeats
from jdsl.commands.torn import warn_edited, without_torn
from jdsl.compiler import (
    HeldOutReport,
    NormEpisode,
    compile_normalized,
    group_episodes,
    normalize_all,
    validate_package,
)
from jdsl.compiler.admit import cut_note, finished_only
from jdsl.compiler.branches import MIN_BRANCH_SUPPORT
from jdsl.compiler.errors import NoReferenceError
from jdsl.compiler.families import GroupBy
from jdsl.compiler.holdout import holdout_families
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.store import heads
from jdsl.envs.tau_airline import initial_reads
from jdsl.envs.tau_retail import initial_reads as retail_reads
from jdsl.errors import JdslError
from jdsl.package import SUFFIX, BehaviorPackage, export_jdsl, load_package
from jdsl.trace import SkippedLines, read_events
from jdsl.trace.filenames import file_names, path_inside, prefixed

__all__ = [
    "HOLDOUT_OPTION",
    "INITIAL_STATE_OPTION",
    "compile_holdout",
    "family_cell",
    "family_files",
    "family_width",
    "finished_runs",
    "first_problem",
    "initial_state",
    "recorded_initial_state",
    "validate_command",
]


def _holdout_at_least_one(value: int | None) -> int | None:
    """``--holdout N`` below 1 is a usage error that names the fix (the option's own ``min``
    answered only "Input should be greater than or equal to 1")."""
    if value is not None and value < 1:
        raise typer.BadParameter(
            f"--holdout {value} holds out no run; pass --holdout 1 or more (the number of each "
            "family's last successful runs to validate on), or leave --holdout out to compile "
            "from every run"
        )
    return value


HOLDOUT_OPTION = typer.Option(
    None,
    "--holdout",
    parser=count("--holdout"),
    callback=_holdout_at_least_one,
    metavar="N",
    help="Compile each family without its last N "
    "successful episodes and validate the package on those; -o is a directory.",
)
"""``jdsl compile --holdout N`` (the option, declared here with the code it runs)."""

INITIAL_STATES: dict[str, Callable[[], ReadAnswers]] = {
    "tau_airline": initial_reads,
    "tau_retail": retail_reads,
}
"""``--initial-state`` names: the state every run of a domain starts from."""

INITIAL_STATE_OPTION = typer.Option(
    None,
    "--initial-state",
    metavar="DOMAIN",
    help="Answer a read a run never made, before its first write, from the database every run of DOMAIN starts from "
    f"({', '.join(INITIAL_STATES)}: the shipped db; default: the one the runs record (jdsl "
    "import tau-bench records their domain's) when known; none: never).",
)
"""``--initial-state DOMAIN`` of ``jdsl package validate`` (``jdsl compile`` declares its own,
which also serves verification)."""


class InitialStateMismatchError(JdslError):
    """``--initial-state`` names another domain's database than the runs record: their reads
    would be answered from the wrong one."""


def initial_state(name: str | None, episodes: Sequence[NormEpisode] = ()) -> ReadAnswers | None:
    """The :data:`~jdsl.compiler.lookups.ReadAnswers` of ``--initial-state``: ``none`` for
    none; when not given, the one every episode records (:func:`recorded_initial_state`) when
    it is known (a note on stderr says so), else none.

    Raises:
        InitialStateMismatchError: ``name`` is a known state but a run records another one.
    """
    if name == "none":
        return None
    recorded = {recorded_initial_state(e) for e in episodes}
    if name is None:
        name = recorded.pop() if len(recorded) == 1 and recorded <= set(INITIAL_STATES) else None
        if name is None:
            return None
        typer.echo(f"reads the runs never made are answered from the {name} db every tau-bench "
                   "run starts from (--initial-state none: leave them unreplayable)",
                   err=True)  # fmt: skip
    elif name in INITIAL_STATES and (others := sorted(recorded & set(INITIAL_STATES) - {name})):
        raise InitialStateMismatchError(
            f"--initial-state {name}, but the runs record {', '.join(others)} (another domain's "
            f"runs: their reads would be answered from the wrong database) — omit "
            "--initial-state (each run's own is used), or pass --initial-state none"
        )
    if name not in INITIAL_STATES:
        raise typer.BadParameter(
            f"{name!r} is not a known domain; pass one of: {', '.join(INITIAL_STATES)}",
            param_hint="--initial-state",
        )
    return INITIAL_STATES[name]()


def initial_states(
    name: str | None, episodes: Sequence[NormEpisode]
) -> Callable[[Sequence[NormEpisode]], ReadAnswers | None]:
    """``family -> reads`` for a corpus of families: :func:`initial_state` of the corpus when
    ``name`` is given or every run records the same state; else, for each family, the state
    its own runs record (a family never answers its reads from another domain's database)."""
    states = {recorded_initial_state(e) for e in episodes}
    if name is not None or len(states) <= 1 or not states & set(INITIAL_STATES):
        reads = initial_state(name, episodes)
        return lambda _family: reads
    known = sorted(states & set(INITIAL_STATES))
    typer.echo(f"reads the runs never made are answered from the db their domain's tau-bench runs "
               f"start from ({', '.join(known)}; --initial-state none: leave them unreplayable)",
               err=True)  # fmt: skip
    made: dict[str, ReadAnswers] = {}

    def of(family: Sequence[NormEpisode]) -> ReadAnswers | None:
        named = {recorded_initial_state(e) for e in family}
        if len(named) != 1 or not named <= set(INITIAL_STATES):
            return None
        (state,) = named
        if state not in made:
            made[state] = INITIAL_STATES[state]()
        return made[state]

    return of


def recorded_initial_state(episode: NormEpisode) -> str:
    """The initial state ``episode`` names: its ``initial_state`` metadata (``jdsl import
    tau-bench`` records it, :mod:`jdsl.importers.tau_bench`), else, for a run imported before
    it did, ``tau_<domain>`` of its ``tau_bench.<domain>`` skill."""
    recorded = episode.metadata.get("initial_state")
    if recorded:
        return str(recorded)
    return f"tau_{str(episode.metadata.get('skill') or '').removeprefix('tau_bench.')}"


@cli_errors
def validate_command(
    path: Path = typer.Argument(..., metavar="PKG", help="A .jdsl archive or package dir."),
    traces: list[Path] = typer.Argument(
        ..., exists=True, dir_okay=False, metavar="TRACES", help="JSONL traces of other runs."
    ),
    canonical: list[str] = typer.Option(
        [], "--canonical", metavar="HOST=LOGICAL", help="HOST=LOGICAL tool names (repeatable)."
    ),
    state: str | None = INITIAL_STATE_OPTION,
    every: bool = typer.Option(
        False,
        "--all",
        help="Validate on every run given, not only the runs of the package's family.",
    ),
    only: list[str] = typer.Option(
        [], "--episode", "-e", metavar="ID", help="Validate on this episode only (repeatable)."
    ),
    skip_bad_lines: bool = typer.Option(
        False, "--skip-bad-lines", help="Skip trace lines that are not events (e.g. torn ones)."
    ),
) -> None:
    """Would the package have served these runs, and done what they did? (exit 1 on a
    divergence). By default only the runs of the package's family are checked (the family
    its manifest names, grouped as the compile grouped them); --all checks every run. A run
    cut off mid-run (no episode.finished) is left out under a note."""
    pairs = {k: str(v) for k, v in parse_inputs(canonical, option="--canonical").items()}
    refuse_non_package(path, "jdsl package validate")
    for trace in traces:
        refuse_package_as_traces(trace, "jdsl package validate")
        refuse_behavior(trace, "jdsl package validate PKG")
    pkg = load_package(path)
    # Host names as compile canonicalized them: a trace recorded against the host's tools
    # names ``cancel_pending_order`` where the package requires ``retail.cancel_pending_order``
    # (the rule PackageBundle.bind hints with); --canonical pairs override it.
    mapping = {c.rsplit(".", 1)[-1]: c for c in pkg.required_capabilities if "." in c}
    mapping.update(pairs)
    with reporting_skips(skip_bad_lines) as skipped:
        _validate(pkg, traces, mapping, state, every, only, skipped)


def _validate(
    pkg: BehaviorPackage, traces: Sequence[Path], mapping: dict[str, str], state: str | None,
    every: bool, only: Sequence[str], skipped: SkippedLines | None,
) -> None:  # fmt: skip
    """``jdsl package validate`` once its arguments are checked (``skipped``: the lines
    ``--skip-bad-lines`` skips, None: strict)."""
    repeats: list[str] = []
    episodes = list(distinct_episodes(
        (e for trace in traces
         for e in read_events(trace, strict=skipped is None, skipped=skipped).episodes),
        repeats))  # fmt: skip
    note_repeats(repeats)
    episodes = without_torn(episodes, skipped, "validate", ", ".join(map(str, traces)))
    warn_edited(episodes)
    if not episodes:
        raise cli_fail(f"no episodes in {', '.join(map(str, traces))}", "pass jdsl traces")
    normalized = normalize_all(episodes, canonical=mapping)
    if only:
        normalized = _chosen(normalized, only)
    normalized = finished_runs(normalized, bool(only), traces)
    if not only and not every:
        normalized = family_runs(normalized, pkg, doing="validating on", all_does="checks them too")
    reads = initial_state(state, normalized)
    report = validate_package(pkg, normalized, canonical=mapping, reads=reads)
    report = replace(report, compiled_from=_compiled_from(pkg, report.rows))
    typer.echo(report.text)
    if not report.references:
        failed = [r.episode_id for r in report.rows]
        shown = ", ".join(failed[:3]) + (f" and {len(failed) - 3} more" if len(failed) > 3 else "")
        raise NoReferenceError(
            f"none of the {len(failed)} run(s) validated on is a reference: each one failed "
            f"({shown}), and a failed run is listed, never compared, so nothing says what the "
            "package should have done; pass successful runs of the package's family",
            episodes=failed,
        )
    if not report.ok:
        raise cli_fail(
            f"{report.divergences} episode(s) diverged from what the package did",
            "see each divergence above: the package would not have done what those runs did",
        )


def _compiled_from(pkg: BehaviorPackage, rows: Sequence[Any]) -> tuple[str, ...]:
    """The rows' successful episodes ``pkg`` was compiled from (its ``tests/replay.jsonl``), in
    order: a failed run there was evidence only, never compiled from (as ``jdsl show --diff``
    says), and is listed as a failed run, never compared."""
    raw = pkg.files.get("tests/replay.jsonl", b"").decode("utf-8")
    own = {json.loads(line).get("episode") for line in raw.splitlines() if line.strip()}
    return tuple(r.episode_id for r in rows if r.episode_id in own and r.reference)


def finished_runs(
    normalized: list[NormEpisode], named: bool, traces: Sequence[Path]
) -> list[NormEpisode]:
    """The runs that ended (episode.finished), those cut off mid-run left out under a note: a
    run that did not end leaves nothing to compare a package with (``jdsl package validate``
    and ``jdsl show --diff``). A run ``--episode`` named (``named``) that was cut off is
    refused, saying so, not that it is not there.

    Raises:
        CompileError: every run is cut off (:func:`jdsl.compiler.admit.finished_only`).
    """
    if named:
        _refuse_cut(normalized)
    complete, cut = finished_only(normalized, which=f"in {', '.join(map(str, traces))}")
    if cut:
        typer.echo(f"note: {cut_note(cut)}", err=True)
        return list(complete)
    return normalized


def _refuse_cut(chosen: Sequence[NormEpisode]) -> None:
    """Refuse an episode ``--episode`` names that was cut off mid-run (no episode.finished)."""
    cut = [h.episode_id for h in heads(chosen) if not h.complete]
    if cut:
        raise cli_fail(
            f"episode {cut[0]!r} is cut off mid-run (no episode.finished): it did not end, so "
            "there is nothing to compare the package with",
            "pass the complete trace file, or record the run again",
        )


def _chosen(normalized: Sequence[NormEpisode], ids: Sequence[str]) -> list[NormEpisode]:
    """The episodes ``--episode`` names, in trace order; an unknown id is an error."""
    known = {e.episode_id for e in normalized}
    unknown = [i for i in ids if i not in known]
    if unknown:
        near = ", ".join(sorted(known)[:5]) + (", ..." if len(known) > 5 else "")
        raise cli_fail(f"no episode {unknown[0]!r} in the traces", f"pass one of: {near}")
    return [e for e in normalized if e.episode_id in set(ids)]


_COLUMNS = ("held", "served", "matched", "unrepl", "fallback", "refused", "diverged", "consts")


def _row(family: str, width: int, runs: str, status: str, counts: Sequence[int] | None,
         written: Path | None) -> str:  # fmt: skip
    cells = [str(c) for c in counts] if counts is not None else ["-"] * len(_COLUMNS)
    held = " ".join(f"{c:>{len(h)}}" for c, h in zip(cells, _COLUMNS, strict=True))
    return f"{family_cell(family, width)} {runs:>7} {status:<10} {held}  {written or 'not written'}"


def family_cell(family: str, width: int) -> str:
    """``family`` padded to ``width``; a longer name is never cut (two names could read the
    same): it takes its own line and the row goes on under it."""
    return f"{family:<{width}}" if len(family) <= width else f"{family}\n{'':<{width}}"


def family_width(families: Sequence[str]) -> int:
    """The family column's width: the longest name, at most 56."""
    return min(56, max(len("family"), *(len(f) for f in families)))


def first_problem(result: Any) -> str:
    """``    not written: verification failed: <its first problem>`` for a family's row;
    ``    fallback only: ...`` for one written as a package handing every run to its fallback
    (``result.fallback_only``, :mod:`jdsl.compiler.fallback_only`)."""
    problems = result.verification.problems
    first = f": {problems[0]}" if problems else ""
    how = "fallback only" if result.fallback_only else "not written"
    return f"    {how}: verification {result.verification.status}{first}"


def _counts(report: HeldOutReport | None, held: Sequence[NormEpisode]) -> list[int]:
    """The row's counts; without a report (no verified package) every reference is refused."""
    if report is None:
        references = sum(e.success is not False for e in held)
        return [references, 0, 0, 0, 0, references, 0, 0]
    return [report.references, report.served, report.matched, report.unreplayable,
            report.fallbacks, report.refused, report.divergences,
            report.contradicted]  # fmt: skip


def _held_line(report: HeldOutReport | None, held: Sequence[NormEpisode]) -> str | None:
    """``  held out: ID outcome, ...`` under a family's row (None when it held none out)."""
    if report is not None:
        named = [f"{r.episode_id} {r.outcome}" for r in report.rows if r.reference]
    else:
        named = [f"{e.episode_id} refused" for e in held if e.success is not False]
    return f"    held out: {', '.join(named)}" if named else None


def _too_few(family: str, members: Sequence[NormEpisode], n: int, why: str) -> str:
    """Why a family compiled nothing, and the --holdout that would leave it something (when
    one would; when runs were left, ``why`` they compiled to nothing)."""
    ok = sum(e.success is not False for e in members)
    if ok == 0:
        return f"    {family}: no successful run to compile from"
    if ok <= 1:
        return f"    {family}: one successful run: nothing is left to compile once it is held out"
    if ok > n:  # runs were left: their count is not why
        return (f"    {family}: {ok} successful runs; the {ok - n} run(s) left after --holdout "
                f"{n} compile to nothing: {why}")  # fmt: skip
    return (f"    {family}: {ok} successful runs; --holdout {n} leaves none to compile from "
            f"(use --holdout {ok - 1} or less)")  # fmt: skip


def family_files(families: Iterable[str], prefix: str | None) -> dict[str, str]:
    """Each family -> the file name of its package: ``<prefix>-<family>.jdsl`` as the package
    is named (``jdsl compile -n``), else ``<family>.jdsl``; one safe name each (a family never
    names a path)."""
    labels = {family: prefixed(prefix, family, suffix=SUFFIX) for family in families}
    names = file_names(labels.values(), suffix=SUFFIX)
    return {family: names[label] for family, label in labels.items()}


def compile_holdout(
    normalized: Sequence[NormEpisode], by: GroupBy | None, base: str, task_family: str,
    out: Path, n: int, min_support: int = MIN_BRANCH_SUPPORT,
    reads: Callable[[Sequence[NormEpisode]], ReadAnswers | None] = lambda _family: None,
    prefix: str | None = None,
) -> None:  # fmt: skip
    """Compile each family (all episodes when ``by`` is None) without its last ``n``
    successful episodes, validate on those, write the verified packages into ``out``
    (``prefix``: ``jdsl compile -n``, each family's package named ``<prefix>-<family>``). A
    family whose package fails verification is written fallback only (the line under its row
    says so: :mod:`jdsl.compiler.fallback_only`), its held-out runs handed to the fallback;
    without a fallback it writes none and they count as refused.
    Exit 1 when a family failed verification, a held-out run diverged, or no run could be
    held out (every family too small for ``n``)."""
    families = group_episodes(normalized, by) if by is not None else [(base, list(normalized))]
    families.sort(
        key=lambda item: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", item[0])]
    )
    width = family_width([f for f, _ in families])
    out.mkdir(parents=True, exist_ok=True)
    files = family_files((f for f, _ in families), prefix if by else None)
    rows, notes, totals, failed, small = [], [], [0] * len(_COLUMNS), False, False
    most = 0  # the most successful runs of a family too small for n

    def compile_family(family: str, kept: list[NormEpisode], peers: list[NormEpisode]) -> Any:
        named = prefixed(prefix, family, suffix=SUFFIX)
        return compile_normalized(kept, name=named if by else base,
                                  task_family=task_family or family, min_support=min_support,
                                  reads=reads(kept), peers=peers)  # fmt: skip

    for one in holdout_families(families, n, compile_family, reads_of=reads):
        family, members, result, report = one.family, one.members, one.result, one.report
        runs = f"{sum(e.success is not False for e in members)}/{len(members)}"
        if result is None:  # nothing successful left to compile from
            rows.append(_row(family, width, runs, "too few", None, None))
            notes.append(_too_few(family, members, n, one.refused))
            small = small or sum(e.success is not False for e in members) <= n
            most = max(most, sum(e.success is not False for e in members))
            continue
        file = path_inside(out, files[family])
        package = result.package if result.ok else result.fallback_package  # fallback only
        written = export_jdsl(package, file, add_suffix=False) if package is not None else None
        counts = _counts(report, one.held)
        rows.append(_row(family, width, runs, result.verification.status, counts, written))
        if (line := _held_line(report, one.held)) is not None:
            rows.append(line)
        if not result.ok:
            rows.append(first_problem(result))
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        failed = failed or not result.ok or (report is not None and not report.ok)
    typer.echo(f"{'family':<{width}} {'ok/runs':>7} {'verify':<10} {' '.join(_COLUMNS)}  package")
    typer.echo("\n".join(rows))
    if notes:
        typer.echo("too few:\n" + "\n".join(notes))
    total, served, matched, unrepl, fallback, refused, diverged, consts = totals
    typer.echo(f"held out {total} episode(s): {served} served end to end ({matched} matched, "
               f"{unrepl} unreplayable), {fallback} fallback, {refused} refused, {diverged} "
               f"diverged, {consts} constants contradicted")  # fmt: skip
    if not total and not small:
        raise cli_fail(
            f"--holdout {n} held out no run: no family compiled from the runs left",
            "see 'too few' above for why",
        )
    if not total:
        fits = (f"use --holdout {most - 1} or less (see 'too few' above), or add runs"
                if most > 1 else "add runs: a family needs 2 successful runs to hold one out "
                "(or compile without --holdout)")  # fmt: skip
        raise cli_fail(
            f"--holdout {n} held out no run: every family has {n} or fewer successful runs",
            fits,
        )
    if failed:
        raise cli_fail(
            "a family failed verification or a held-out episode diverged",
            "see the rows above; for a written package, `jdsl package validate PKG TRACES "
            "-e ID` shows a held-out run's divergence",
        )
