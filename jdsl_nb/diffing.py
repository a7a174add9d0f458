"""The episodes ``%behavior diff`` compares: a trace's (normalized with the package's
capability names), else the ones a compile result was compiled from."""

from __future__ import annotations

from typing import Any

__all__ = ["episode_diffs"]


def episode_diffs(held: Any, package: Any, trace: Any = None, *,
                  episode: str | None = None) -> list[Any]:  # fmt: skip
    """:func:`jdsl.compiler.stepdiff.step_diff` of each episode against ``package``.

    Raises:
        LookupError: no episode (or none with id ``episode``).
    """
    from jdsl.compiler import normalize_all
    from jdsl.compiler.stepdiff import step_diff

    if trace is None:
        normalized = list(getattr(held, "normalized", None) or [])
    else:
        episodes = getattr(trace, "episodes", None)
        if episodes is None:
            from jdsl.trace import Trace

            episodes = Trace(list(trace)).episodes
        mapping = {c.rsplit(".", 1)[-1]: c for c in package.required_capabilities if "." in c}
        normalized = normalize_all(list(episodes), canonical=mapping)
    if episode is not None:
        normalized = [n for n in normalized if n.episode_id == episode]
    if not normalized:
        raise LookupError(
            "no episodes to compare"
            + (f" with id {episode!r}" if episode else "")
            + "; give a trace: %behavior diff RESULT TRACE_VAR_OR_FILE"
        )
    return [step_diff(package.ir, n) for n in normalized]
