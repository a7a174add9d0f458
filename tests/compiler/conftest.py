"""The retail fixture of docs/design.md appendix B, traced by the real runtime; and the check
that no package any test here compiles freezes a name, an id or a list position (``frozen.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.envs.fixtures import RetailWorld
from jdsl.testing import ScriptedModel
from jdsl.trace import Episode, JsonlTraceSink, ListTraceSink, TraceSink, segment_episodes
from jdsl.tree import Root


def teacher(world: RetailWorld, *, cancel: bool = False) -> Root:
    """lookup -> list_orders -> predict(selected_index) -> get_order [-> cancel].

    The teacher reads seeded inputs (``customer_id``, ``target_order_id``) that equal the
    values the tools return, so only lineage can explain them.
    """
    tools = {t.name: t for t in world.tools()}
    steps = [
        act(tools["lookup"], email=ref("email")) >> "customer",
        act(tools["list_orders"], customer_id=ref("customer_id")) >> "orders",
        predict("request, orders -> selected_index: int", id="resolve_target"),
        act(tools["get_order"], order_id=ref("target_order_id")) >> "order",
    ]
    if cancel:
        steps.append(
            act(tools["cancel"], order_id=ref("target_order_id"), reason="no longer needed")
            >> "receipt"
        )
    return root("cancel").do(seq(*steps))


def run_teacher(sink: TraceSink, worlds: range | list[int], *, reply: str = "1", **kw: Any) -> None:
    for i in worlds:
        world = RetailWorld.numbered(i)
        index = int(reply)
        teacher(world, **kw).run(
            model=ScriptedModel(reply),
            trace_sink=sink,
            capture_id="cap_test",
            episode_id=f"ep_{i}",
            email=world.email,
            customer_id=world.customer_id,
            target_order_id=world.orders[index]["id"],
            request="cancel my order",
        )


@pytest.fixture
def retail_episodes() -> Callable[..., list[Episode]]:
    """``retail_episodes(n, reply="1", cancel=False)``: n traced teacher episodes."""

    def make(n: int, *, reply: str = "1", cancel: bool = False) -> list[Episode]:
        sink = ListTraceSink()
        run_teacher(sink, range(n), reply=reply, cancel=cancel)
        return segment_episodes(sink.events)

    return make


@pytest.fixture
def retail_trace(tmp_path: Path) -> Callable[..., Path]:
    """``retail_trace(n, name="traces.jsonl")``: a JSONL trace file of n teacher episodes."""

    def make(n: int, name: str = "traces.jsonl", start: int = 0) -> Path:
        path = tmp_path / name
        run_teacher(JsonlTraceSink(path), range(start, start + n))
        return path

    return make


@pytest.fixture(autouse=True, scope="session")
def _nothing_frozen() -> Any:
    """Every package compiled in these tests passes :func:`frozen.frozen_problems`."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from frozen import checking_packages

    with checking_packages():
        yield
