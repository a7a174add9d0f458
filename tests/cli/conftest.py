"""Fixtures of the ``jdsl`` command tests: traced retail runs, packages, a host tools module."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.envs.fixtures import RetailWorld
from jdsl.testing import ScriptedModel
from jdsl.trace import JsonlTraceSink
from typer.testing import CliRunner


def _interrupt(email: str) -> dict:
    raise KeyboardInterrupt  # the run closes its episode as "cancelled", then re-raises


def _teacher(world: RetailWorld, *, cancelled: bool = False):
    tools = {t.name: t for t in world.tools()}
    lookup = _interrupt if cancelled else tools["lookup"]
    return root("cancel").do(
        seq(
            act(lookup, email=ref("email")) >> "customer",
            act(tools["list_orders"], customer_id=ref("customer.id")) >> "orders",
            predict("request, orders -> selected_index: int", id="resolve_target"),
            act(tools["get_order"], order_id=ref("orders[$selected_index].id")) >> "order",
        )
    )


def record(path: Path, worlds: range, *, outcome: str = "success") -> Path:
    """Trace the retail teacher on ``worlds`` into ``path``; ``outcome`` "failure" runs with
    an unknown email, "cancelled" is interrupted at its first call."""
    sink = JsonlTraceSink(path)
    for i in worlds:
        world = RetailWorld.numbered(i)
        email = world.email if outcome != "failure" else "nobody@x.com"
        with contextlib.suppress(KeyboardInterrupt):
            _teacher(world, cancelled=outcome == "cancelled").run(
                model=ScriptedModel("1"), trace_sink=sink, episode_id=f"ep_{outcome}_{i}",
                raise_errors=False, email=email, request="cancel my order",
            )  # fmt: skip
    return path


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def traces(tmp_path: Path) -> Callable[..., Path]:
    """``traces(n, outcome="success", name="t.jsonl")``: a trace file of n retail runs."""

    def make(n: int, outcome: str = "success", name: str = "t.jsonl") -> Path:
        return record(tmp_path / name, range(n), outcome=outcome)

    return make


@pytest.fixture
def host_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], str]:
    """``host_module(name, source)``: an importable module written to tmp_path; its name."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(name: str, source: str) -> str:
        (tmp_path / f"{name}.py").write_text(source)
        return name

    return make
