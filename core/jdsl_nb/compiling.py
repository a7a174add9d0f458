"""From what a notebook holds (a Trace, episodes, events, a JSONL file) to ``compile_behavior``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jdsl_nb._coerce import as_events

__all__ = ["compile_trace", "episodes_of", "read_trace"]


def read_trace(path: str | Path) -> Any:
    """A trace file (JSONL, one event per line) as ``jdsl.trace.read_events`` reads it.

    Falls back to a list of event dicts when the trace package has no reader yet.
    """
    try:
        from jdsl.trace import read_events
    except ImportError:
        return as_events(Path(path).read_text(encoding="utf-8"))
    return read_events(path)


def episodes_of(source: Any) -> list[Any]:
    """The episodes of a Trace (``.episodes``), a list of episodes, or raw events.

    Raw events are typed as ``TraceEvent`` and split with ``jdsl.trace.segment_episodes``.
    """
    episodes = getattr(source, "episodes", None)
    if callable(episodes):
        episodes = episodes()
    if episodes is not None:
        return list(episodes)
    if (
        isinstance(source, list | tuple)
        and source
        and hasattr(source[0], "episode_id")
        and hasattr(source[0], "events")
    ):
        return list(source)
    from jdsl.trace import TraceEvent, segment_episodes

    events = [TraceEvent.from_dict(e) for e in as_events(source)]
    return list(segment_episodes(events))


def compile_trace(source: Any, *, name: str = "behavior", **options: Any) -> Any:
    """Run ``jdsl.compiler.compile_behavior`` over the episodes of ``source``.

    Raises:
        whatever ``compile_behavior`` raises (the magic reports it as a UsageError).
    """
    from jdsl.compiler import compile_behavior

    return compile_behavior(episodes_of(source), name=name, **options)
