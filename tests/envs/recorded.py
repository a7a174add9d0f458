"""Checks shared by the initial-state tests: what a domain's ``initial_reads`` answers against
what recorded runs saw."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from jdsl.compiler.families import is_write
from jdsl.compiler.stream import normalize_stream
from jdsl.expr import MISSING


def compare_reads_before_writes(
    reads: Callable[[str, dict[str, Any]], Any], episodes: Iterable[Any]
) -> int:
    """Assert that every lookup a run made before its first successful write, and ``reads``
    answers, got that answer; return how many were compared."""
    compared = 0
    for episode in normalize_stream(episodes):
        for step in episode.steps:
            if is_write(step.logical_tool, None) and step.ok:
                break
            answer = reads(step.logical_tool, step.arguments)
            if step.ok and answer is not MISSING:
                assert answer == step.result, (episode.episode_id, step.index)
                compared += 1
    return compared
