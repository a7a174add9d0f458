"""The episodes ``%behavior diff`` compares: a trace's (normalized with the package's
capability names), else the ones a compile result was compiled from; recorded runs that failed
are skipped unless ``--episode`` names one."""

from __future__ import annotations

from typing import Any

__all__ = ["episode_diffs"]


def episode_diffs(held: Any, package: Any, trace: Any = None, *,
                  episode: str | None = None) -> tuple[list[Any], int]:  # fmt: skip
    """:func:`jdsl.compiler.stepdiff.package_diffs` of the episodes against ``package`` (each
    run read and judged as ``jdsl package validate`` reads and judges it), and how
    many failed recorded runs were skipped (:func:`jdsl.compiler.stepdiff.compared_episodes`).

    Raises:
        LookupError: no episode (or none with id ``episode``).
    """
    from jdsl.compiler import normalize_all
    from jdsl.compiler.stepdiff import compared_episodes, package_diffs

    if trace is None:
        normalized = list(getattr(held, "normalized", None) or [])
    else:
        episodes = getattr(trace, "episodes", None)
        if episodes is None:
            from jdsl.trace import Trace

            episodes = Trace(list(trace)).episodes
        mapping = {c.rsplit(".", 1)[-1]: c for c in package.required_capabilities if "." in c}
        normalized = normalize_all(list(episodes), canonical=mapping)
    compared, skipped = compared_episodes(normalized, episode)
    if not compared:
        raise LookupError(
            "no episodes to compare"
            + (f" with id {episode!r}" if episode else "")
            + (
                f" ({skipped} failed recorded run(s) skipped; --episode ID shows one)"
                if skipped
                else ""
            )
            + "; give a trace: %behavior diff RESULT TRACE_VAR_OR_FILE"
        )
    return package_diffs(package, compared), skipped  # the verdict validation gives each run
