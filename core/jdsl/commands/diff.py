"""``jdsl show --diff PKG TRACES...``: each recorded episode against its replay by a package.

One step-aligned diff per episode (:mod:`jdsl.compiler.stepdiff`): the teacher's calls and the
package's side by side, reads and writes marked, the first divergence flagged ``>>``, a
fallback's hand-over shown; a run is *matched* only with the same writes and the same outcome,
one the compiled program handed to its fallback after matching writes is counted apart; a
recorded run that failed is skipped (never compiled from) unless ``--episode`` names it.
``--html OUT`` also writes the static HTML view. Exits 1 when an episode diverged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from jdsl.commands.boundary import cli_fail
from jdsl.commands.families import family_runs
from jdsl.commands.kinds import refuse_behavior
from jdsl.commands.repeats import distinct_episodes, note_repeats
from jdsl.commands.show import named_episodes
from jdsl.commands.torn import warn_edited, without_torn
from jdsl.commands.validate import finished_runs, initial_state
from jdsl.compiler import normalize_all
from jdsl.compiler.stepdiff import (
    compared_episodes,
    diff_html,
    diff_summary,
    diff_text,
    package_diffs,
)
from jdsl.package import load_package
from jdsl.trace import SkippedLines, read_events

__all__ = ["show_diff"]


def show_diff(package: Path, traces: Sequence[Path], html: Path | None = None,
              only: Sequence[str] = (), *, skip_log: SkippedLines | None = None,
              every: bool = False) -> None:  # fmt: skip
    """Print (and with ``html`` write) the step-aligned diff of the episodes in ``traces``:
    those of the package's family (as ``jdsl package validate`` picks them), every one with
    ``every`` or when no grouping names the family, or the ones ``only`` names, failed or not
    (``skip_log``: skip trace lines that are not events, counted there; None: strict)."""
    if not traces:
        raise cli_fail("jdsl show --diff needs a package and traces", "jdsl show --diff PKG "
                       "TRACES.jsonl...")  # fmt: skip
    if not (package.is_dir() or package.suffix == ".jdsl"):
        raise cli_fail(f"{package} is not a package", "give the .jdsl package first, then the "
                       "traces: jdsl show --diff PKG TRACES.jsonl")  # fmt: skip
    for trace in traces:
        refuse_behavior(trace, "jdsl show --diff PKG")
    pkg = load_package(package)
    mapping = {c.rsplit(".", 1)[-1]: c for c in pkg.required_capabilities if "." in c}
    repeats: list[str] = []
    episodes = list(distinct_episodes((e for trace in traces for e in read_events(
                    trace, strict=skip_log is None, skipped=skip_log).episodes), repeats))  # fmt: skip
    note_repeats(repeats)
    if not episodes:
        raise cli_fail(f"no episodes in {', '.join(map(str, traces))}", "pass jdsl traces")
    episodes = without_torn(named_episodes(episodes, only, traces), skip_log, "diff",
                            ", ".join(map(str, traces)))  # fmt: skip
    warn_edited(episodes)
    normalized = finished_runs(normalize_all(episodes, canonical=mapping), bool(only), traces)
    if not only and not every:
        normalized = family_runs(normalized, pkg, doing="diffing", all_does="diffs them too")
    compared, skipped = (normalized, 0) if only else compared_episodes(normalized)
    # one verdict per run: the execution ``jdsl package validate`` judges it by (its reads),
    # on the run as the package reads it (jdsl.compiler.reading), as the compile verified it
    diffs = package_diffs(pkg, compared, reads=initial_state(None, compared))
    if diffs:
        typer.echo("\n\n".join(diff_text(d) for d in diffs))
    diverged = sum(d.kind == "diverged" for d in diffs)
    typer.echo(f"\n{diff_summary(diffs, skipped)}")
    if html is not None:
        body = "".join(f"<section>{diff_html(d)}</section>" for d in diffs)
        html.write_text(f"<!doctype html><meta charset='utf-8'><title>jdsl diff {pkg.name}</title>"
                        f"<body>{body}</body>", encoding="utf-8")  # fmt: skip
        typer.echo(f"html: {html}", err=True)
    if diverged:
        raise typer.Exit(code=1)
