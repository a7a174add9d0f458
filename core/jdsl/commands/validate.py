"""``jdsl package validate PKG TRACES...`` and ``jdsl compile --holdout N``: held-out validation
from the command line (:mod:`jdsl.compiler.holdout` does the work).

``validate`` prints one row per episode (matched, diverged, unreplayable, fallback with the step
where it took over, refused, failed run) and the summary, and exits 1 when an episode diverged.
``compile --holdout N`` compiles each family on all but its last N successful episodes,
validates the package on those, writes the verified packages and prints one row per family
(held, served end to end, matched, fallback, refused, diverged, constants contradicted; ``too
few``: no successful episode is left once N are held out); it exits 1 when a family failed
verification or a held-out episode diverged. Both take ``--initial-state DOMAIN``: a read a run
never made is answered, before its first write, from the database every run of the domain
starts from (:mod:`jdsl.compiler.lookups`; ``tau_airline``: the shipped db).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import typer

from jdsl.commands.boundary import cli_errors, cli_fail
from jdsl.compiler import (
    CompileError,
    HeldOutReport,
    NormEpisode,
    compile_normalized,
    group_episodes,
    holdout_split,
    validate_package,
)
from jdsl.compiler.branches import MIN_BRANCH_SUPPORT
from jdsl.compiler.families import GroupBy
from jdsl.compiler.lookups import ReadAnswers
from jdsl.envs.tau_airline import initial_reads
from jdsl.package import SUFFIX, export_jdsl, load_package
from jdsl.trace import read_events

__all__ = [
    "HOLDOUT_OPTION",
    "INITIAL_STATE_OPTION",
    "compile_holdout",
    "initial_state",
    "validate_command",
]

HOLDOUT_OPTION = typer.Option(
    None,
    "--holdout",
    min=1,
    metavar="N",
    help="Compile each family without its last N "
    "successful episodes and validate the package on those; -o is a directory.",
)
"""``jdsl compile --holdout N`` (the option, declared here with the code it runs)."""

INITIAL_STATES: dict[str, Callable[[], ReadAnswers]] = {"tau_airline": initial_reads}
"""``--initial-state`` names: the state every run of a domain starts from."""

INITIAL_STATE_OPTION = typer.Option(
    None,
    "--initial-state",
    metavar="DOMAIN",
    help="Held-out validation (and, with --holdout, verification): answer a read a run never "
    "made, before its first write, from the database every run of DOMAIN starts from "
    f"({', '.join(INITIAL_STATES)}: the shipped db).",
)
"""``--initial-state DOMAIN`` of ``jdsl package validate`` and ``jdsl compile --holdout``."""


def initial_state(name: str | None) -> ReadAnswers | None:
    """The :data:`~jdsl.compiler.lookups.ReadAnswers` of ``--initial-state`` (None: none)."""
    if name is None:
        return None
    if name not in INITIAL_STATES:
        raise typer.BadParameter(
            f"{name!r} is not a known domain; pass one of: {', '.join(INITIAL_STATES)}",
            param_hint="--initial-state",
        )
    return INITIAL_STATES[name]()


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
) -> None:
    """Would the package have served these runs, and done what they did? (exit 1 on a
    divergence)."""
    pairs = [item.partition("=") for item in canonical]
    bad = [item for item, (_, sep, _) in zip(canonical, pairs, strict=True) if not sep]
    if bad:
        raise typer.BadParameter(f"{bad[0]!r} is not HOST=LOGICAL", param_hint="--canonical")
    pkg = load_package(path)
    # Host names as compile canonicalized them: a trace recorded against the host's tools
    # names ``cancel_pending_order`` where the package requires ``retail.cancel_pending_order``
    # (the rule PackageBundle.bind hints with); --canonical pairs override it.
    mapping = {c.rsplit(".", 1)[-1]: c for c in pkg.required_capabilities if "." in c}
    mapping.update({host: logical for host, _, logical in pairs})
    episodes = [e for trace in traces for e in read_events(trace).episodes]
    if not episodes:
        raise cli_fail(f"no episodes in {', '.join(map(str, traces))}", "pass jdsl traces")
    report = validate_package(pkg, episodes, canonical=mapping, reads=initial_state(state))
    typer.echo(report.text)
    if not report.ok:
        raise cli_fail(
            f"{report.divergences} held-out episode(s) diverged from what the package did",
            "see each divergence above: the package would not have done what those runs did",
        )


_COLUMNS = ("held", "served", "matched", "fallback", "refused", "diverged", "consts")


def _row(family: str, episodes: int, status: str, counts: Sequence[int] | None,
         written: Path | None) -> str:  # fmt: skip
    cells = [str(c) for c in counts] if counts is not None else ["-"] * len(_COLUMNS)
    held = " ".join(f"{c:>{len(h)}}" for c, h in zip(cells, _COLUMNS, strict=True))
    return f"{family[:44]:<44} {episodes:>4} {status:<10} {held}  {written or 'not written'}"


def _counts(report: HeldOutReport | None, held: Sequence[NormEpisode]) -> list[int]:
    """The row's counts; without a report (no verified package) every reference is refused."""
    if report is None:
        references = sum(e.success is not False for e in held)
        return [references, 0, 0, 0, references, 0, 0]
    return [report.references, report.served, report.matched, report.fallbacks, report.refused,
            report.divergences, report.contradicted]  # fmt: skip


def compile_holdout(
    normalized: Sequence[NormEpisode], by: GroupBy | None, base: str, task_family: str,
    out: Path, n: int, min_support: int = MIN_BRANCH_SUPPORT, reads: ReadAnswers | None = None,
) -> None:  # fmt: skip
    """Compile each family (all episodes when ``by`` is None) without its last ``n``
    successful episodes, validate on those, write the verified packages into ``out``. A
    family whose package fails verification writes none: its held-out runs count as refused."""
    families = group_episodes(normalized, by) if by is not None else [(base, list(normalized))]
    families.sort(
        key=lambda item: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", item[0])]
    )
    out.mkdir(parents=True, exist_ok=True)
    rows, totals, failed = [], [0] * len(_COLUMNS), False
    for family, members in families:
        kept, held = holdout_split(members, n)
        try:
            result = compile_normalized(kept, name=family if by else base,
                                        task_family=task_family or family,
                                        min_support=min_support, reads=reads)  # fmt: skip
        except CompileError:  # nothing successful left to compile from
            rows.append(_row(family, len(members), "too few", None, None))
            continue
        report = validate_package(result.package, held, reads=reads) if result.ok else None
        written = export_jdsl(result.package, out / f"{family}{SUFFIX}", add_suffix=False) if (
            result.ok) else None  # fmt: skip
        counts = _counts(report, held)
        rows.append(_row(family, len(members), result.verification.status, counts, written))
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        failed = failed or not result.ok or (report is not None and not report.ok)
    typer.echo(f"{'family':<44} {'eps':>4} {'verify':<10} {' '.join(_COLUMNS)}  package")
    typer.echo("\n".join(rows))
    total, served, matched, fallback, refused, diverged, consts = totals
    typer.echo(f"held out {total} episode(s): {served} served end to end ({matched} matched), "
               f"{fallback} fallback, {refused} refused, {diverged} diverged, {consts} constants "
               "contradicted")  # fmt: skip
    if failed:
        raise cli_fail(
            "a family failed verification or a held-out episode diverged",
            "see the rows above; `jdsl package validate PKG TRACES` shows each divergence",
        )
