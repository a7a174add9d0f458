"""``jdsl compile TRACES... -o OUT``: traced episodes -> a verified behavior package.

::

    jdsl compile TRACES... -o OUT.jdsl [--name N] [--group-by intent|task|sequence] [--holdout N]
                 [--min-support N] [--engine local|dask [--scheduler ADDRESS]]

A failed compile writes no package; ``--holdout`` is :mod:`jdsl.commands.validate`.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, Literal, cast, get_args

import typer

from jdsl.commands.boundary import (
    choice,
    cli_errors,
    cli_fail,
    count,
    out_path,
    reporting_skips,
    require_parent,
)
from jdsl.commands.inputs import parse_inputs
from jdsl.commands.kinds import refuse_behavior, refuse_package
from jdsl.commands.repeats import distinct_episodes, note_repeats, refuse_repeated_ids
from jdsl.commands.torn import note_torn
from jdsl.commands.validate import (
    HOLDOUT_OPTION,
    INITIAL_STATES,
    compile_holdout,
    family_cell,
    family_files,
    family_width,
    first_problem,
    initial_state,
    initial_states,
)
from jdsl.compiler import CompileResult, NormEpisode, compile_normalized
from jdsl.compiler.admit import cut_note, finished_only
from jdsl.compiler.branches import MIN_BRANCH_SUPPORT
from jdsl.compiler.dask_engine import compile_reduced, dask_client, reduce_shards
from jdsl.compiler.families import GroupBy, recommended_grouping
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.pipeline import compile_families
from jdsl.compiler.stream import leave_out_torn, normalize_stream
from jdsl.errors import PackageError
from jdsl.package import SUFFIX, BehaviorPackage, export_jdsl
from jdsl.trace import iter_episodes
from jdsl.trace.filenames import MAX_NAME_BYTES, path_inside, safe_file_name

__all__ = ["compile_command"]

Engine = Literal["local", "dask"]


def _package_name(value: str) -> str:
    """A typer ``parser=`` for ``-n``: a name that is one safe file name as it is (the package
    and its file are named by it), else typer's usage error saying what a name is."""
    if safe_file_name(value, suffix=SUFFIX) != f"{value}{SUFFIX}":
        safe = safe_file_name(value, suffix=SUFFIX).removesuffix(SUFFIX)
        raise typer.BadParameter(
            f"{value!r} is not a package name: a name is one file name (no '/' or '\\', no "
            "'..', no leading dot, none of <>:\"|?*, at most "
            f"{MAX_NAME_BYTES - len(SUFFIX)} bytes), e.g. -n {safe}"
        )
    return value


def _trace_files(traces: list[Path]) -> list[Path]:
    """The TRACES argument's check, made before any option's (a behavior file or a package
    is named as such, not met with a missing ``-o``)."""
    for path in traces:
        refuse_package(path, "jdsl compile")
        refuse_behavior(path, "jdsl compile")
    return traces


@cli_errors
def compile_command(
    traces: list[Path] = typer.Argument(
        ...,
        exists=True,
        dir_okay=False,
        metavar="TRACES",
        help="JSONL trace files.",
        callback=_trace_files,
    ),
    out_text: str = typer.Option(
        ...,
        "-o",
        "--out",
        metavar="OUT",
        help="The package file to write (replaced), or a directory to write NAME.jdsl in. "
        "With --holdout or --group-by, a directory (not NAME.jdsl) that gets one package per "
        "family; so it is for runs whose importer recommends grouping (tau-bench's).",
    ),
    name: str | None = typer.Option(
        None,
        "-n",
        "--name",
        metavar="NAME",
        parser=_package_name,
        help="Behavior name (default: the episodes' skill, else the first file's name); with "
        "--group-by, packages and their files are named NAME-FAMILY (NAME-FAMILY.jdsl; "
        "default: FAMILY, as the demo names them).",
    ),
    task_family: str = typer.Option(
        "", "--task-family", metavar="FAMILY", help="Recorded in the manifest."
    ),
    group_by: str | None = typer.Option(
        None,
        "--group-by",
        parser=choice(get_args(GroupBy)),
        metavar="<intent|task|sequence>",
        help="Compile each family on its own into the directory -o: intent "
        "(what runs change: their ordered write calls), task (the recorded task) or sequence "
        "(the tool sequence). Default: what the importer recommends (tau-bench runs: intent), "
        "else one package.",
    ),
    canonical: list[str] = typer.Option(
        [],
        "--canonical",
        metavar="HOST=LOGICAL",
        help="HOST=LOGICAL tool name mapping (repeatable).",
    ),
    skip_bad_lines: bool = typer.Option(
        False,
        "--skip-bad-lines",
        help="Skip trace lines that are not events (e.g. torn ones); an episode whose event "
        "was skipped is left out, under a note naming it.",
    ),
    holdout: int | None = HOLDOUT_OPTION,
    state: str | None = typer.Option(
        None,
        "--initial-state",
        metavar="DOMAIN",
        help="Verification (and --holdout's validation): answer a read a run never made, "
        "before its first write, from the database every run of DOMAIN starts from "
        f"({', '.join(INITIAL_STATES)}: the shipped db; default: the runs' own tau-bench domain "
        "when it has one; none: never).",
    ),
    min_support: int = typer.Option(
        MIN_BRANCH_SUPPORT,
        "--min-support",
        parser=count("--min-support", 1),
        metavar="N",
        help="Successful episodes a branch alternative needs; thinner paths are reported and "
        "left out.",
    ),
    engine: str = typer.Option(
        "local",
        "--engine",
        parser=choice(get_args(Engine)),
        metavar="<local|dask>",
        help="local: stream in this process; dask: map over the trace "
        "files on a dask.distributed cluster (pip install 'jdsl[dask]').",
    ),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        metavar="ADDRESS",
        help="--engine dask: the scheduler "
        "(tcp://host:8786); default: a 2-worker LocalCluster on 127.0.0.1, closed after.",
    ),
) -> None:
    """Compile traced episodes into a verified behavior package.

    Episodes are streamed: read, checked and normalized one at a time. Exit 1, writing
    nothing, when a file is given twice, there is no successful episode, the trace's hash chain is
    broken, verification fails (a ref or guard does not replay, or the package executed on an
    episode does not make its calls), or it is unverified (nothing to replay or execute). With
    --group-by: exit 0 when every family that could be packaged was written and the rest are
    only unverified or too few (no successful run: as with --holdout); exit 1 when a family
    failed or was refused (its successful runs compile to nothing), or none could be packaged.
    """
    _refuse_repeats(traces)
    out = Path(out_text)
    require_parent(out, "-o")
    if state not in (None, "none", *INITIAL_STATES):
        initial_state(state)  # an unknown domain: the usage error, before any work
    mapping = {k: str(v) for k, v in parse_inputs(canonical, option="--canonical").items()}
    if group_by is not None or holdout:
        _refuse_one_package(out, "--holdout" if group_by is None else "--group-by")
    made = out_text.endswith(("/", os.sep)) and not out.exists()
    out = out_path(out_text, "-o")  # -o DIR/: a directory, made now (gone again if unused)
    options = (
        traces,
        out,
        name,
        cast("GroupBy | None", group_by),
        holdout,
        task_family,
        min_support,
        state,
    )
    with reporting_skips(skip_bad_lines) as skipped, _dropped_if_empty(out, made=made):
        left: list[str] = []  # episodes a torn line broke (--skip-bad-lines)
        if engine == "dask":  # the workers read the files and count what they skip
            with dask_client(scheduler) as client:
                reduced = reduce_shards(client, traces, mapping, strict=skipped is None,
                                        skipped=skipped, left=left)  # fmt: skip
                refuse_repeated_ids(reduced.normalized)
                note_torn(left)
                compile_all = partial(compile_reduced, client, reduced)
                return _compile(reduced.normalized, compile_all, *options)
        repeats: list[str] = []
        read = iter_episodes(traces, strict=skipped is None, skipped=skipped)
        episodes = leave_out_torn(read, skipped, left)
        normalized = normalize_stream(distinct_episodes(episodes, repeats), canonical=mapping)
        note_repeats(repeats)
        note_torn(left)
        return _compile(normalized, partial(compile_normalized, normalized), *options)


@contextmanager
def _dropped_if_empty(out: Path, *, made: bool) -> Iterator[None]:
    """Remove the directory ``-o DIR/`` made when the compile wrote nothing into it (an error,
    such as a --holdout no family is large enough for): a failed compile leaves no trace."""
    try:
        yield
    finally:
        if made and out.is_dir() and not any(out.iterdir()):
            out.rmdir()


def _not_a_directory(out: Path) -> str | None:
    """Why ``-o`` cannot be the directory of one package per family (it is a file, or names
    one package, ``x.jdsl``, and is no directory yet), or None."""
    if out.is_dir():
        return None
    if out.exists():
        return "is a file"
    return f"names one package ({SUFFIX})" if out.suffix == SUFFIX else None


def _refuse_one_package(out: Path, option: str) -> None:
    """Exit 1 when ``-o`` is no directory (:func:`_not_a_directory`) where ``option`` writes one
    package per family into a directory."""
    what = _not_a_directory(out)
    if what == "is a file":
        raise cli_fail(f"-o {out} is a file", f"with {option}, -o is a directory; pass one")
    if what is not None:
        raise cli_fail(
            f"-o {out} {what}, but {option} writes one package per family into a directory",
            "pass a directory, e.g. -o packages/",
        )


def _compile(
    normalized: Sequence[NormEpisode],
    compile_all: Callable[..., CompileResult],
    traces: Sequence[Path],
    out: Path,
    name: str | None,
    group_by: GroupBy | None,
    holdout: int | None,
    task_family: str,
    min_support: int,
    state: str | None,
) -> None:
    """The normalized episodes into a package, one per family, or held out; ``compile_all``
    compiles all of them (the engine's :func:`~jdsl.compiler.compile_normalized`, which leaves
    out the episodes cut off mid-run and notes them in its report; the families and held-out
    compiles get only the complete episodes, under a note)."""
    normalized, cut = _require_success(normalized, traces)
    if group_by is None and (recommended := recommended_grouping(normalized)) is not None:
        if (what := _not_a_directory(out)) is not None:
            raise cli_fail(f"-o {out} {what}", f"these runs compile by {recommended} (their "
                           "importer recommends it), one package per family, into a directory; "
                           "pass a directory, e.g. -o packages/, or --group-by")  # fmt: skip
        typer.echo(f"grouping by {recommended} (the importer's recommendation; --group-by to "
                   "change)", err=True)  # fmt: skip
        group_by = recommended
    if cut and (group_by is not None or holdout is not None):  # else compile_all's report does
        typer.echo(f"note: {cut_note(cut)}", err=True)  # as validate tells it: not a result
    if group_by is not None:  # each family's reads from its own domain's db
        reads_of = initial_states(state, normalized)
        if holdout is None:  # families name their packages
            _compile_families(normalized, group_by, name, task_family, out, min_support, reads_of)
            return
    else:
        reads = initial_state(state, normalized)  # as the demo verifies tau-bench runs
        reads_of = lambda _family: reads  # noqa: E731 (one corpus: one db)
    base = name or _safe_name(
        next((str(e.metadata["skill"]) for e in normalized if e.metadata.get("skill")), None),
        traces[0].stem,
    )
    if holdout is not None:
        return compile_holdout(normalized, group_by, base, task_family, out, holdout, min_support,
                               reads=reads_of, prefix=name)  # fmt: skip
    result = compile_all(
        name=base, task_family=task_family, min_support=min_support, reads=reads_of(normalized)
    )
    typer.echo(str(result.report()))
    if not result.ok:
        raise _verification_fail(result.verification.status)
    target = path_inside(out, f"{base}{SUFFIX}") if out.is_dir() else out
    typer.echo(f"package: {_write_package(result.package, target)}")


def _safe_name(skill: str | None, stem: str) -> str:
    """The package name when ``-n`` is not given: the episodes' ``skill``, else the first
    file's ``stem``, made one safe file name (a note on stderr when that changed it)."""
    text = stem if skill is None else skill
    name = safe_file_name(text, suffix=SUFFIX).removesuffix(SUFFIX)
    if name != text:
        what = "the first trace file's name" if skill is None else "the episodes' skill"
        typer.echo(f"note: {what} {text!r} is not a safe file name; the package "
                   f"is named {name!r} (-n NAME to choose)", err=True)  # fmt: skip
    return name


def _refuse_repeats(traces: Sequence[Path]) -> None:
    """Exit 1 when one file is given twice (by two names, a link, or a shell glob that
    overlaps another): its episodes would count twice as evidence."""
    seen: dict[tuple[int, int], Path] = {}
    for path in traces:
        stat = path.stat()
        first = seen.setdefault((stat.st_dev, stat.st_ino), path)
        if first is not path:
            again = "" if str(first) == str(path) else f" (as {first} and {path})"
            raise cli_fail(
                f"trace file {path} is given twice{again}",
                "its episodes would count twice as evidence; pass each file once",
            )


def _compile_families(
    normalized: Sequence[NormEpisode],
    by: GroupBy,
    base: str | None,
    task_family: str,
    out: Path,
    min_support: int,
    reads_of: Callable[[Sequence[NormEpisode]], ReadAnswers | None] | None = None,
) -> None:
    """One package per family (``reads_of``: :func:`~jdsl.commands.validate.initial_states`).
    Exit 0 when every family that could be packaged was written and the others are only
    unverified or too few (no successful run); 1 when a family failed verification or was
    refused (its successful runs compile to nothing), or when nothing could be packaged."""
    compiled = compile_families(
        normalized,
        by,
        prefix=base,
        task_family=task_family,
        min_support=min_support,
        reads_of=reads_of,
    )
    rows, notes, failed, written = [], [], False, 0
    width = family_width(list(compiled.members))
    files = family_files(compiled.members, base)
    for family, members in sorted(compiled.members.items(), key=_natural):
        result = compiled.results.get(family)
        runs = f"{sum(e.success is not False for e in members)}/{len(members)}"
        if result is None and not any(e.success is not False for e in members):
            # too few, as --holdout says: every real results file has a failed-only family
            rows.append(f"{family_cell(family, width)} {runs:>7} {'too few':<10}"
                        f"{'not written':>39}")  # fmt: skip
            notes.append(f"    {family}: no successful run to compile from")
            continue
        if result is None:  # refused: its successful runs compile to nothing
            rows.append(f"{family_cell(family, width)} {runs:>7} {'refused':<10}"
                        f"{'not written':>39}")  # fmt: skip
            rows.append(f"    {compiled.refused.get(family, '')}")
            failed = True
            continue
        file = path_inside(out, files[family])
        package = result.package if result.ok else result.fallback_package  # fallback only
        target = _write_package(package, file) if package is not None else None
        rows.append(_family_row(family, width, members, result, target))
        if result.verification.status == "failed":
            rows.append(first_problem(result))
        if (serves_none := _serves_none(result)) is not None:
            rows.append(serves_none)
        failed = failed or result.verification.status == "failed"
        written += target is not None
    typer.echo(
        f"{'family':<{width}} {'ok/runs':>7} {'verify':<10} {'replay':>7} {'matched':>7}"
        f" {'fallback':>8} {'model':>5}"
        f" {'RDB':>6}  package"
    )
    typer.echo("\n".join(rows))
    if notes:
        typer.echo("too few:\n" + "\n".join(notes))
    if failed:
        raise cli_fail(
            "some families failed verification or were refused; their programs were not "
            "written: a failed family's package is 'fallback only' (it hands every run to its "
            "fallback), a refused one has none",
            "the line under each 'failed' or 'refused' row names its first problem",
        )
    if not written:
        raise cli_fail(
            "no family could be packaged (every one is unverified: replay had nothing to check)",
            "nothing in their episodes is deterministic, so there is nothing to package",
        )
    typer.echo(f"{written} packages in {out}", err=True)


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


def _require_success(
    normalized: Sequence[NormEpisode], paths: Sequence[Path]
) -> tuple[Sequence[NormEpisode], tuple[str, ...]]:
    """The compiler builds from successful episodes (or ones of unknown outcome), never from
    episodes cut off mid-run: ``(the complete episodes, the ids of the cut ones)``.

    Raises:
        CompileError: every episode is cut off mid-run (``finished_only``,
            :mod:`jdsl.compiler.admit`).
    """
    files = ", ".join(str(p) for p in paths)
    if not normalized:
        raise cli_fail(
            f"no episodes in {files}",
            "record runs with a JsonlTraceSink, or convert other logs with `jdsl import`",
        )
    complete, cut = finished_only(normalized)
    if all(e.success is False for e in complete):
        unfinished = f", {len(cut)} cut off mid-run" if cut else ""
        raise cli_fail(
            f"no successful episode in {files} ({len(complete)} failed or cancelled{unfinished})",
            "a package is compiled from runs that succeeded; add traces of successful runs",
        )
    return complete, cut


def _write_package(package: BehaviorPackage, target: Path) -> Path:
    """Write the ``.jdsl`` archive at exactly ``target`` (atomic; see ``export_jdsl``); an
    existing file is replaced only when it is a ``.jdsl`` archive (never ``-o README.md``)."""
    if target.is_file() and not (target.suffix == SUFFIX and zipfile.is_zipfile(target)):
        raise cli_fail(
            f"-o {target} exists and is not a {SUFFIX} package; it would be replaced",
            f"pass a new path or a {SUFFIX} file (or a directory to write NAME{SUFFIX} in)",
        )
    try:
        return export_jdsl(package, target, add_suffix=False)
    except PackageError as exc:
        raise PackageError(f"{exc} — choose a writable path for -o", path=exc.path) from None


def _coverage(verification: dict[str, Any]) -> str:
    """Replay coverage, ``n/a`` when nothing was replayed."""
    coverage = verification["replay_coverage"]
    return "n/a" if coverage is None else str(coverage)


def _serves_none(result: CompileResult) -> str | None:
    """The line under a family whose program hands every run it executed to the fallback
    (``guard false`` first): it fails verification (:attr:`~jdsl.compiler.verify.
    VerificationReport.serves_none`); the line says why (the compile note on where the runs
    part)."""
    if not result.verification.serves_none:
        return None
    report = result.report()
    why = next((n for n in report.get("notes", ()) if "part ways" in n), None)
    return "    serves none: every run is handed to the fallback" + (f" ({why})" if why else "")


def _family_row(
    family: str, width: int, members: Sequence[NormEpisode], result: CompileResult,
    written: Path | None,
) -> str:  # fmt: skip
    """A family's row: ``ok/runs`` successful and all runs, ``model`` the arguments that are a
    model output (``residual_refs``), as the demo's table and its legend say."""
    report = result.report()
    v, m = report["verification"], report["metrics"]
    executed = f"{v['matched']}/{v['executed']}"
    runs = f"{sum(e.success is not False for e in members)}/{len(members)}"
    return (
        f"{family_cell(family, width)} {runs:>7} {v['status']:<10} {_coverage(v):>7}"
        f" {executed:>7} {v.get('fallback') or 0:>8}"
        f" {m['residual_refs']:>5} {m['residual_decision_burden']:>6.2f}  "
        f"{written or 'not written'}"
    )
