"""Interpreter: cost per node tick of jdsl against py_trees, untraced and traced.

Shapes (the same in both libraries):

- ``seq``: a sequence of 1,000 no-op actions (1,000 leaves + the sequence = 1,001 ticks).
- ``sel``: selectors nested 10 deep; each level holds a failing no-op action and the next
  level, the innermost a succeeding no-op action (10 selectors + 11 leaves = 21 ticks).

jdsl is timed through its public API (``root(...).do(...)``, ``Root.run``), so a figure includes
what one run costs besides ticking (a fresh blackboard and context, binding checks); py_trees is
timed with ``tick_once`` on a tree set up once. Traced runs use a fresh ``ListTraceSink`` /
``JsonlTraceSink`` (a new temp file) per sample; the py_trees peer for tracing records every
visited behaviour and its status in a list through a visitor (``BehaviourTree.tick``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.table import Row
from bench.timing import median_seconds

__all__ = ["SHAPES", "Shape", "jdsl_tree", "measure", "py_trees_tree"]

SECTION = "interpreter"


@dataclass(frozen=True)
class Shape:
    """A tree shape: ``key`` ("seq" or "sel"), a title, the nodes one run ticks, runs per sample.

    ``seq`` has ``ticks - 1`` leaves; ``sel`` nests ``(ticks - 1) // 2`` selectors.
    """

    key: str
    title: str
    ticks: int
    number: int  # runs per timing sample

    def __post_init__(self) -> None:
        if self.key not in ("seq", "sel") or self.ticks < 2 or self.number < 1:
            raise ValueError(
                f"shape {self.key!r} with {self.ticks} ticks and {self.number} runs per sample: "
                "the key is 'seq' or 'sel', ticks >= 2 and runs >= 1"
            )


SHAPES = (
    Shape("seq", "sequence of 1,000 no-op actions", 1001, 2),
    Shape("sel", "selectors nested 10 deep", 21, 100),
)


def noop() -> None:
    """A no-op tool (succeeds)."""


def fail() -> Any:
    """A no-op tool that fails (returns ``Status.FAILURE``)."""
    from jdsl import Status

    return Status.FAILURE


def jdsl_tree(shape: Shape) -> Any:
    """The jdsl tree of ``shape`` (a ``Root``)."""
    from jdsl import act, root, sel, seq

    if shape.key == "seq":
        return root("seq").do(seq(*(act(noop) for _ in range(shape.ticks - 1))))
    node: Any = act(noop)
    for _ in range((shape.ticks - 1) // 2):
        node = sel(act(fail), node)
    return root("sel").do(node)


def py_trees_tree(shape: Shape) -> Any:
    """The py_trees tree of ``shape`` (its root behaviour, set up)."""
    import py_trees

    success, failure = py_trees.behaviours.Success, py_trees.behaviours.Failure
    if shape.key == "seq":
        kids = [success(name=f"noop{i}") for i in range(shape.ticks - 1)]
        node: Any = py_trees.composites.Sequence(name="seq", memory=False, children=kids)
    else:
        node = success(name="noop")
        for level in range((shape.ticks - 1) // 2):
            node = py_trees.composites.Selector(
                name=f"sel{level}", memory=False, children=[failure(name=f"fail{level}"), node]
            )
    node.setup_with_descendants()
    return node


def _py_trees_traced(shape: Shape) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """A py_trees tree whose every visited behaviour is recorded in a list; (tick, reset)."""
    import py_trees

    class ListVisitor(py_trees.visitors.VisitorBase):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(full=False)
            self.events: list[tuple[Any, Any]] = []

        def run(self, behaviour: Any) -> None:
            self.events.append((behaviour.id, behaviour.status))

    visitor = ListVisitor()
    tree = py_trees.trees.BehaviourTree(py_trees_tree(shape))
    tree.add_visitor(visitor)
    return tree.tick, visitor.events.clear


def _per_node(seconds: float, shape: Shape) -> float:
    return seconds / shape.ticks


def measure_shape(shape: Shape, *, repeats: int, tmp: Path) -> list[Row]:
    """Rows for one shape: untraced vs py_trees, list-traced vs untraced, JSONL-traced."""
    from jdsl.trace import JsonlTraceSink, ListTraceSink

    tree = jdsl_tree(shape)
    peer = py_trees_tree(shape)
    n = shape.number
    untraced = median_seconds(tree.run, repeats=repeats, number=n)
    py_untraced = median_seconds(peer.tick_once, repeats=repeats, number=n)
    sinks: list[Any] = []
    listed = median_seconds(
        lambda: tree.run(trace_sink=sinks[-1]),
        repeats=repeats,
        number=n,
        setup=lambda: sinks.append(ListTraceSink()),
    )
    files = iter(range(10**6))
    jsonl = median_seconds(
        lambda: tree.run(trace_sink=sinks[-1]),
        repeats=repeats,
        number=n,
        setup=lambda: sinks.append(JsonlTraceSink(tmp / f"{shape.key}{next(files)}.jsonl")),
    )
    tick, reset = _py_trees_traced(shape)
    py_traced = median_seconds(tick, repeats=repeats, number=n, setup=reset)
    probe = ListTraceSink()
    tree.run(trace_sink=probe)
    events = len(probe.events)
    title, per = shape.title, _per_node
    return [
        Row(
            SECTION,
            f"{title}: untraced, per node tick",
            per(untraced, shape),
            "s",
            per(py_untraced, shape),
            "py_trees",
            "<= py_trees",
            untraced <= py_untraced,
            f"Root.run vs tick_once; {shape.ticks} ticks per run",
        ),
        Row(
            SECTION,
            f"{title}: traced to ListTraceSink, per node tick",
            per(listed, shape),
            "s",
            per(untraced, shape),
            "jdsl untraced",
            "<= 2x untraced",
            listed <= 2 * untraced,
            f"{events} events per run",
        ),
        Row(
            SECTION,
            f"{title}: traced to JsonlTraceSink, per node tick",
            per(jsonl, shape),
            "s",
            per(untraced, shape),
            "jdsl untraced",
            note="temp file, default redaction and blobs",
        ),
        Row(
            SECTION,
            f"{title}: py_trees traced to a list (visitor), per node tick",
            per(py_traced, shape),
            "s",
            per(listed, shape),
            "jdsl list-traced",
            note="ratio = py_trees / jdsl",
        ),
    ]


def measure(*, quick: bool) -> list[Row]:
    """All interpreter rows; ``quick`` takes fewer samples (5 instead of 9)."""
    repeats = 5 if quick else 9
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="jdsl-bench-") as tmp:
        for shape in SHAPES:
            rows += measure_shape(shape, repeats=repeats, tmp=Path(tmp))
    return rows
