"""Fixtures for the runtime tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from jdsl import RunContext, Status
from jdsl.tree import Bindings, Node


@pytest.fixture
def tick() -> Callable[..., tuple[Status, RunContext]]:
    """Tick a node once on a hand-built RunContext: ``tick(node, **blackboard)``."""

    def run(
        node: Node, *, bindings: Bindings | None = None, **values: Any
    ) -> tuple[Status, RunContext]:
        ctx = RunContext(dict(values), bindings=bindings)
        return node.tick(ctx), ctx

    return run


@pytest.fixture
def counter() -> Callable[..., Any]:
    """A tool that counts its calls (``.calls``) and returns a scripted sequence of values."""

    def make(*results: Any) -> Callable[..., Any]:
        def counted(**kwargs: Any) -> Any:
            counted.calls.append(kwargs)  # type: ignore[attr-defined]
            index = min(len(counted.calls), len(results)) - 1  # type: ignore[attr-defined]
            return results[index] if results else None

        counted.calls = []  # type: ignore[attr-defined]
        return counted

    return make
