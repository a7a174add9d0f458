"""The runs of a package's task family, as the commands that check a package against traces
(``jdsl package validate``, ``jdsl show --diff``) pick them."""

from __future__ import annotations

from collections.abc import Sequence

import typer

from jdsl.compiler import NormEpisode
from jdsl.compiler.families import family_members, recorded_domain
from jdsl.errors import JdslError
from jdsl.package import BehaviorPackage

__all__ = ["NoFamilyRunsError", "family_runs"]


class NoFamilyRunsError(JdslError):
    """No run given can be of the package's family: no grouping names it and no run makes
    at least half of its calls to tools the package requires (the traces are another family's or domain's)."""


def _tail(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _requires(tools: frozenset[str], call: str) -> bool:
    """Whether ``call`` is one of ``tools``: by id when both name a domain (``retail.`` and
    ``airline.get_user_details`` are two tools), else by host name."""
    if call in tools:
        return True
    if "." in call:
        return _tail(call) in tools
    return any(_tail(tool) == call for tool in tools)


def _package_domains(pkg: BehaviorPackage, tools: frozenset[str]) -> set[str]:
    """The package's domain: the one its manifest records (``source.domain``, the domain of
    every run it was compiled from), else its tools' namespaces (``retail`` of
    ``retail.get_user_details``); empty when neither says."""
    source = pkg.manifest.get("source") or {}
    recorded = source.get("domain") if isinstance(source, dict) else None
    if isinstance(recorded, str) and recorded:
        return {recorded}
    return {tool.split(".", 1)[0] for tool in tools if "." in tool}


def _could_be_its_run(episode: NormEpisode, tools: frozenset[str], domains: set[str]) -> bool:
    """Whether at least half of ``episode``'s calls are to tools the package requires
    (:func:`_requires`: a run that diverged calls a tool or two the package never does; a run
    of another domain shares at most a generic read or two with it), and it is of no domain
    other than the package's (``domains``; the run's :func:`~jdsl.compiler.families.
    recorded_domain`: a run that names none is not refused by it)."""
    domain = recorded_domain(episode)
    if domains and domain and domain not in domains:
        return False
    ours = sum(_requires(tools, s.logical_tool) for s in episode.steps)
    return bool(episode.steps) and 2 * ours >= len(episode.steps)


def family_runs(
    normalized: Sequence[NormEpisode], pkg: BehaviorPackage, *, doing: str, all_does: str
) -> list[NormEpisode]:
    """The runs of ``pkg``'s family (:func:`~jdsl.compiler.families.family_members`), with a
    note on stderr of how many runs of other families were skipped.

    Args:
        normalized: every run the command read.
        pkg: the package whose manifest names the family (``task_family``).
        doing: what the command does to the runs it keeps (``"diffing"``), for the note.
        all_does: what ``--all`` does with the skipped runs (``"diffs them too"``).
    """
    family = str(pkg.manifest.get("task_family") or "")
    members, by = family_members(normalized, family)
    tools = frozenset(getattr(pkg, "required_capabilities", ()) or ())
    calling = [e for e in members if e.steps]  # a run with no call tells nothing
    domains = _package_domains(pkg, tools)
    if (by is None and tools and calling
            and not any(_could_be_its_run(e, tools, domains) for e in calling)):  # fmt: skip
        domain = f" of domain {', '.join(sorted(domains))}" if domains else ""
        raise NoFamilyRunsError(
            f"none of the {len(members)} run(s) given is of family {family!r}{domain}: no "
            "grouping names it and none of that domain makes half its calls to the package's tools "
            f"({', '.join(sorted(tools)[:4])}{' ...' if len(tools) > 4 else ''}) — pass the "
            "traces of that family's runs (the same domain as the package)"
        )
    if by is not None and len(members) < len(normalized):
        skipped = len(normalized) - len(members)
        typer.echo(
            f"{doing} the {len(members)} run(s) of family {family!r} (grouped by {by}); "
            f"{skipped} run(s) of other families skipped (--all {all_does})",
            err=True,
        )
    return members
