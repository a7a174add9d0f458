"""Interpreter: cost per node tick of jdsl against py_trees, untraced and traced.

Shapes (the same in both libraries):

- ``seq``: a sequence of 1,000 no-op actions (1,000 leaves + the sequence = 1,001 ticks).
- ``sel``: selectors nested 10 deep; each level holds a failing no-op action and the next
  level, the innermost a succeeding no-op action (10 selectors + 11 leaves = 21 ticks).

JSONL tracing is judged on ``sel`` (<= 5x untraced); on ``seq``, 1,000 no-op tools, it is
reported as what tracing adds per event (a real tool takes milliseconds, an event microseconds).

jdsl is timed through its public API (``root(...).do(...)``, ``Root.run``), so a figure includes
what one run costs besides ticking (a fresh blackboard and context, binding checks); py_trees is
timed with ``tick_once`` on a tree set up once. Traced runs use a fresh ``ListTraceSink`` /
``JsonlTraceSink`` (a new temp file) per sample; the py_trees peer for tracing records every
visited behaviour and its status in a list through a visitor (``BehaviourTree.tick``).

Figures are medians of process CPU time (``time.process_time``, which counts the JSONL sink's
write, as system time, and any thread the run starts), over samples taken in turn (untraced,
py_trees, ..., JSONL-traced, then again): a burst of load on the shared machine (CI, 2 cores
for several jobs) slows neighbouring samples of every contender alike. A ratio is the ratio
of the two medians; the traced rows' notes also give the median of the per-round ratios,
which a burst moves less. Medians, not the best sample: a run a few hundred microseconds long
is short enough to dodge the other jobs now and then, a traced one (five times longer) less
often, so the best samples favoured the shorter contender (on one loaded machine, best-of
ratios read 5.4-5.7x where medians and per-round ratios read 4.6-5.4x).
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.table import Row
from bench.timing import Timed, interleaved_samples, paired_ratio

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


def _failing_tool() -> Callable[[], Any]:
    from jdsl import Status

    def fail() -> Any:
        """A no-op tool that fails (returns ``Status.FAILURE``)."""
        return Status.FAILURE

    return fail


def jdsl_tree(shape: Shape) -> Any:
    """The jdsl tree of ``shape`` (a ``Root``)."""
    from jdsl import act, root, sel, seq

    if shape.key == "seq":
        return root("seq").do(seq(*(act(noop) for _ in range(shape.ticks - 1))))
    node: Any = act(noop)
    fail = _failing_tool()
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


def _contenders(shape: Shape, tmp: Path) -> tuple[dict[str, Timed], int]:
    """What :func:`measure_shape` times, by name, and the events one traced run emits."""
    from jdsl import Blackboard, RunContext
    from jdsl.trace import JsonlTraceSink, ListTraceSink

    tree, peer = jdsl_tree(shape), py_trees_tree(shape)
    sinks: list[Any] = []
    files = iter(range(10**9))
    ctx = RunContext(Blackboard({}), bindings=tree.resolved_bindings())
    tree.run()  # assigns the runtime ids Root.tick needs
    tick, reset = _py_trees_traced(shape)
    probe = ListTraceSink()
    tree.run(trace_sink=probe)

    def traced() -> Any:
        return tree.run(trace_sink=sinks[-1])

    def traced_and_read() -> Any:
        tree.run(trace_sink=sinks[-1])
        return sinks[-1].events  # builds, hashes and thaws what the run recorded

    return {
        "untraced": Timed(tree.run),
        "py_trees": Timed(peer.tick_once),
        "tick": Timed(lambda: tree.tick(ctx)),
        "list": Timed(traced, lambda: sinks.append(ListTraceSink())),
        "list_read": Timed(traced_and_read, lambda: sinks.append(ListTraceSink())),
        "jsonl": Timed(
            traced, lambda: sinks.append(JsonlTraceSink(tmp / f"{shape.key}{next(files)}.jsonl"))
        ),
        "py_traced": Timed(tick, reset),
    }, len(probe.events)


def measure_shape(shape: Shape, *, repeats: int, tmp: Path) -> list[Row]:
    """Rows for one shape: untraced vs py_trees, list-traced vs untraced, JSONL-traced."""
    contenders, events = _contenders(shape, tmp)
    samples = interleaved_samples(
        contenders, repeats=repeats, number=shape.number, clock=time.process_time
    )
    t = {name: statistics.median(values) for name, values in samples.items()}
    per = {name: seconds / shape.ticks for name, seconds in t.items()}
    rounds = {name: paired_ratio(samples[name], samples["untraced"]) for name in ("list", "jsonl")}
    how = f"medians of {repeats} interleaved samples of {shape.number} runs (CPU time)"
    title = shape.title
    return [
        Row(SECTION, f"{title}: untraced, per node tick", per["untraced"], "s",
            per["py_trees"], "py_trees", "<= py_trees", per["untraced"] <= per["py_trees"],
            f"Root.run vs tick_once; {shape.ticks} ticks per run; {how}"),
        Row(SECTION, f"{title}: untraced, Root.tick only, per node tick", per["tick"], "s",
            per["py_trees"], "py_trees",
            note="Root.tick on a prepared RunContext: the ticks without run set-up"),
        Row(SECTION, f"{title}: traced to ListTraceSink, per node tick", per["list"], "s",
            per["untraced"], "jdsl untraced", "<= 2x untraced",
            per["list"] <= 2 * per["untraced"],
            f"{events} events per run; per-round ratio {rounds['list']:.2f}x; {how}"),
        Row(SECTION, f"{title}: traced to ListTraceSink and its events read, per node tick",
            per["list_read"], "s", per["untraced"], "jdsl untraced",
            note="the list sink hashes the chain and makes payload dicts when .events is read"),
        _jsonl_row(shape, per, t, events, f"per-round ratio {rounds['jsonl']:.2f}x; {how}"),
        Row(SECTION, f"{title}: traced to a list, against py_trees, per node tick", per["list"],
            "s", per["py_traced"], "py_trees + list visitor",
            note="py_trees keeps (id, status) per visited behaviour; jdsl stamped TraceEvents"),
    ]  # fmt: skip


def _jsonl_row(
    shape: Shape, per: dict[str, float], t: dict[str, float], events: int, how: str
) -> Row:
    """JSONL tracing: judged on the selector shape (<= 5x untraced), whose leaves stand for
    tools that do some work; on the no-op shape, where a tick costs next to nothing, the
    figure is what tracing adds per event (traced minus untraced run, over its events)."""
    note = f"a fresh temp file per sample; default redaction and blobs; buffered writes; {how}"
    if shape.key == "sel":
        return Row(
            SECTION,
            f"{shape.title}: traced to JsonlTraceSink, per node tick",
            per["jsonl"],
            "s",
            per["untraced"],
            "jdsl untraced",
            "<= 5x untraced",
            per["jsonl"] <= 5 * per["untraced"],
            note,
        )
    added = (t["jsonl"] - t["untraced"]) / events
    return Row(
        SECTION,
        f"{shape.title}: traced to JsonlTraceSink, added per event",
        added,
        "s",
        note=f"{events} events per run; no-op tools, so the cost of an event itself; "
        f"{per['jsonl'] / per['untraced']:.1f}x untraced; {note}",
    )


def measure(*, quick: bool) -> list[Row]:
    """All interpreter rows; ``quick`` takes fewer samples (9 instead of 15) of half the runs."""
    repeats = 9 if quick else 15
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="jdsl-bench-") as tmp:
        for shape in SHAPES:
            if quick:
                shape = dataclasses.replace(shape, number=max(1, shape.number // 2))
            rows += measure_shape(shape, repeats=repeats, tmp=Path(tmp))
    return rows
