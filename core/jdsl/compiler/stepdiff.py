"""A step-aligned diff of a recorded episode against its replay by a package.

Verification, held-out validation and the generalizing compiler's fallback all ask one
question: did the package do, call by call, what the teacher did? :func:`step_diff` answers it
side by side. It replays the episode through the package as :func:`jdsl.compiler.replay.execute`
does (recorded tool results and model decisions served back), with a trace, and lines up step
``k`` of each side: the teacher's ``k``-th expected call (:func:`~jdsl.compiler.replay.expected_calls`)
and the package's ``k``-th call. Each side lists the blackboard paths the call read and the key
it wrote; the first divergence (:class:`~jdsl.compiler.replay.Divergence`) is marked; a
fallback node taking over (a node whose id starts with ``fallback``, or a ``react``
leaf standing in for a compiled part: :func:`jdsl.compiler.fallback.takeover`) is shown where
it happens.

:func:`diff_text` prints it (``jdsl show --diff PKG TRACES``); :func:`diff_html` is the static
HTML the notebook's :class:`jdsl_nb.widgets.DiffView` also shows.

Example:
    >>> diff = step_diff(result.package.ir, result.normalized[0])  # doctest: +SKIP
    >>> print(diff_text(diff))  # doctest: +SKIP
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.decisions import TreeShape, decision_model, run_inputs
from jdsl.compiler.executions import UNREPLAYABLE, Execution
from jdsl.compiler.fallback import Fallback, takeover
from jdsl.compiler.holdout import package_effects, read_runs, validate_package
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.reads import unused_reads
from jdsl.compiler.replay import Divergence, ReplayTools, call_text, execute
from jdsl.ir import from_ir
from jdsl.trace import ListTraceSink
from jdsl.tree import Root, typed_equal

__all__ = [
    "DiffSide",
    "DiffStep",
    "StepDiff",
    "compared_episodes",
    "diff_html",
    "diff_summary",
    "diff_text",
    "package_diffs",
    "recorded_calls",
    "step_diff",
]


@dataclass(frozen=True)
class DiffSide:
    """One call on one side: its text, the node that made it, what it read and wrote."""

    tool: str
    arguments: dict[str, Any]
    node_id: str | None
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    fallback: bool = False

    @property
    def text(self) -> str:
        return call_text(self.tool, self.arguments)


@dataclass(frozen=True)
class DiffStep:
    """Step ``index``: the teacher's call and the package's (None where a side made none).

    ``state``: ``same``, ``differs``, ``missing`` (the package made no such call) or ``extra``
    (the episode made no more calls)."""

    index: int
    teacher: DiffSide | None
    package: DiffSide | None
    state: str


@dataclass(frozen=True)
class StepDiff:
    """A recorded episode against its replay (module docstring).

    Attributes:
        episode_id: the episode.
        steps: the aligned steps.
        divergence: the first divergence (:func:`jdsl.compiler.replay.execute`), or None.
        first: the index of the first step that is not ``same`` (None: all the same).
        teacher_outcome / package_outcome: how each ended (``success``, ``failure``, ``error``).
        fallback: ``(step index, node id)`` where a fallback node took over, else None.
        handed_over: where the compiled program ended FAILURE with every write so far matching
            (:attr:`jdsl.compiler.replay.Execution.fallback`: the package's fallback would
            finish the run), else None.
    """

    episode_id: str
    steps: tuple[DiffStep, ...]
    divergence: Divergence | None
    first: int | None
    teacher_outcome: str
    package_outcome: str
    fallback: tuple[int, str] | None = None
    handed_over: Fallback | None = None

    @property
    def matched(self) -> bool:
        """The same writes, in the same order, AND the same outcome, by the compiled program
        alone: a run handed to the fallback, or one that ended otherwise, is not matched."""
        return (
            self.divergence is None
            and self.handed_over is None
            and self.package_outcome == self.teacher_outcome
        )

    @property
    def kind(self) -> str:
        """``matched``, ``fallback`` (handed over after matching writes), ``unreplayable`` (a
        read or decision the record does not hold: what :meth:`~jdsl.compiler.executions.
        Execution.outcome` and ``jdsl package validate`` call it) or ``diverged``."""
        if self.matched:
            return "matched"
        if self.divergence is not None and self.divergence.kind in UNREPLAYABLE:
            return "unreplayable"
        return "fallback" if self.divergence is None and self.handed_over else "diverged"

    @property
    def verdict(self) -> str:
        """``matched``, ``handed to the fallback at step k (why)`` or ``DIVERGED at step k``."""
        if self.matched:
            return "matched"
        if self.kind == "fallback" and self.handed_over is not None:
            over = self.handed_over
            return (
                f"handed to the fallback at step {over.call_index} after {over.writes_done} "
                f"matching write(s) ({over.reason})"
            )
        if self.kind == "unreplayable" and self.divergence is not None:
            return f"unreplayable at step {self.first} ({self.divergence.reason})"
        return f"DIVERGED at step {self.first}"


def step_diff(
    tree: Root | Mapping[str, Any], episode: NormEpisode, execution: Execution | None = None,
    *, reads: ReadAnswers | None = None, effects: Mapping[str, Any] | None = None,
) -> StepDiff:  # fmt: skip
    """Replay ``episode`` through ``tree`` (a Root or a Behavior IR document) and align;
    ``execution``: the run's verdict as :func:`jdsl.compiler.holdout.validate_package` judged
    it (the same reads and effects: one verdict per run), else :func:`execute` here. ``reads``
    and ``effects`` serve the replay shown as they served that execution; ``episode`` is best
    the run as the package reads it (:func:`jdsl.compiler.holdout.read_runs`).

    Raises:
        ValidationError: ``tree`` is an IR document that does not load.
    """
    root = tree if isinstance(tree, Root) else from_ir(dict(tree))
    if execution is None:
        execution = execute(root, episode, effects=effects, reads=reads)
    shape = TreeShape.of(root)
    # a react fallback lists every tool of its family: they answer from the record too, or
    # the run would stop at binding before its first node (no call, no hand-over to show)
    reacts = [str(t) for n in shape.nodes if n.get("kind") == "react" for t in n.get("tools") or ()]
    replay = ReplayTools(episode, tools=tuple(dict.fromkeys([*shape.tools, *reacts])),
                         predicates=shape.predicates, failing=shape.failing, effects=effects,
                         unused=unused_reads(shape.nodes, effects), reads=reads)  # fmt: skip
    sink = ListTraceSink()
    root.run(model=decision_model(shape, episode), tools=replay.tools,
             predicates=replay.predicates, raise_errors=False, trace_sink=sink,
             episode_id=episode.episode_id or None, **run_inputs(shape, episode))  # fmt: skip
    package, fallback_node = _package_calls([e.to_dict() for e in sink.events])
    teacher = [_teacher_side(s) for s in recorded_calls(episode)]  # every call, reads too
    steps = []
    for index in range(max(len(teacher), len(package))):
        mine = teacher[index] if index < len(teacher) else None
        theirs = package[index] if index < len(package) else None
        steps.append(DiffStep(index, mine, theirs, _state(mine, theirs)))
    first = next((s.index for s in steps if s.state != "same"), None)
    if first is None and execution.divergence is not None:
        first = min(execution.divergence.call_index, max(len(steps) - 1, 0)) if steps else None
    fallback = None
    if fallback_node is not None:  # from the first call the fallback made (else after the last)
        at = next((i for i, call in enumerate(package) if call.fallback), len(package))
        fallback = (at, fallback_node)
    teacher_outcome = "failure" if episode.success is False else "success"
    return StepDiff(episode.episode_id, tuple(steps), execution.divergence, first,
                    teacher_outcome, execution.status, fallback, execution.fallback)  # fmt: skip


def package_diffs(
    package: Any, episodes: Sequence[NormEpisode], *, reads: ReadAnswers | None = None
) -> list[StepDiff]:
    """:func:`step_diff` of each episode against ``package`` (a loaded or compiled package),
    each run read as the package reads it and judged by the execution
    :func:`~jdsl.compiler.holdout.validate_package` judges it by (``reads``: the same): one
    verdict per run, as the compile's verification gave it (:mod:`jdsl.compiler.reading`)."""
    rows = validate_package(package, episodes, reads=reads).rows
    effects = package_effects(package)
    return [
        step_diff(package.ir, read, row.execution, reads=reads, effects=effects)
        for read, row in zip(read_runs(package, episodes), rows, strict=True)
    ]


def recorded_calls(episode: NormEpisode) -> list[NormStep]:
    """``episode``'s calls in the order it made them: its steps, and each call the package's
    reading set aside (:mod:`jdsl.compiler.reading`: an unused read, a no-op) before the step
    that followed it."""
    aside: dict[int, list[NormStep]] = {}
    for step in episode.dropped:
        aside.setdefault(step.index, []).append(step)
    found: list[NormStep] = []
    for step in episode.steps:
        found += aside.pop(step.index, [])
        found.append(step)
    return found + [step for k in sorted(aside) for step in aside[k]]


def _teacher_side(step: NormStep) -> DiffSide:
    unread = [key for arg, key in step.input_args.items() if arg not in step.arg_lineage]
    reads = tuple(dict.fromkeys([*step.arg_lineage.values(), *unread]))
    return DiffSide(step.logical_tool, dict(step.arguments), step.node_id, reads,
                    (step.store,) if step.store else ())  # fmt: skip


def _package_calls(events: list[dict[str, Any]]) -> tuple[list[DiffSide], str | None]:
    """The package's calls from its trace, each with the reads and writes of its node, and
    the node that took over for the compiled program (:func:`~jdsl.compiler.fallback.takeover`;
    the calls from there on are the fallback's)."""
    taken = takeover(events)
    calls: list[DiffSide] = []
    reads: dict[str, list[str]] = {}
    open_calls: dict[str, int] = {}
    for index, event in enumerate(events):
        kind, payload = event.get("kind"), event.get("payload") or {}
        if kind == "blackboard.read":
            reads.setdefault(str(payload.get("reader")), []).append(str(payload.get("path")))
        elif kind == "tool.call.started":
            node = str(payload.get("node_id") or "")
            tool = payload.get("tool") or {}
            name = (
                tool.get("logical_id") or tool.get("host_name") if isinstance(tool, dict) else tool
            )
            open_calls[node] = len(calls)
            calls.append(DiffSide(str(name), dict(payload.get("arguments") or {}), node,
                                  tuple(dict.fromkeys(reads.pop(node, []))), (),
                                  taken is not None and index > taken.event_index))  # fmt: skip
        elif kind == "blackboard.write" and str(payload.get("writer")) in open_calls:
            at = open_calls.pop(str(payload.get("writer")))
            side = calls[at]
            calls[at] = DiffSide(side.tool, side.arguments, side.node_id, side.reads,
                                 (*side.writes, str(payload.get("key"))), side.fallback)  # fmt: skip
    return calls, taken.fallback_id if taken is not None else None


def _state(teacher: DiffSide | None, package: DiffSide | None) -> str:
    if package is None:
        return "missing"
    if teacher is None:
        return "extra"
    same = package.tool in (teacher.tool, teacher.tool.rsplit(".", 1)[-1]) and typed_equal(
        package.arguments, teacher.arguments
    )
    return "same" if same else "differs"


# -- rendering ----------------------------------------------------------------------------------
_MARK = {"same": "=", "differs": "≠", "missing": "−", "extra": "+"}


def _side_text(side: DiffSide | None) -> str:
    if side is None:
        return "(no call)"
    marks = "".join([f" reads {', '.join(side.reads)}" if side.reads else "",
                     f" writes {', '.join(side.writes)}" if side.writes else ""])  # fmt: skip
    return side.text + (f"  [{marks.strip()}]" if marks else "")


def _package_side(diff: StepDiff) -> str:
    """How the package's side ended: ``fallback`` for a run handed to the fallback (the word
    ``jdsl package validate`` uses), else its outcome."""
    return "fallback" if diff.kind == "fallback" else diff.package_outcome


def diff_text(diff: StepDiff) -> str:
    """The diff as text: a header, one line per step (teacher | package), the outcome."""
    lines = [f"episode {diff.episode_id}: {diff.verdict}"]
    for step in diff.steps:
        flag = ">>" if step.index == diff.first else "  "
        lines.append(
            f"{flag} {step.index:>3} {_MARK[step.state]} teacher: {_side_text(step.teacher)}"
        )
        lines.append(f"{'':>8}package: {_side_text(step.package)}")
        if diff.fallback is not None and diff.fallback[0] == step.index:
            lines.append(f"{'':>8}-> fallback {diff.fallback[1]} takes over from here")
    if diff.fallback is not None and diff.fallback[0] >= len(diff.steps):
        lines.append(f"   -> fallback {diff.fallback[1]} took over after the last call")
    lines.append(f"   outcome: teacher {diff.teacher_outcome}, package {_package_side(diff)}")
    if diff.divergence is not None:
        lines.append(f"   first divergence: {diff.divergence.reason}")
    return "\n".join(lines)


def diff_summary(diffs: list[StepDiff], skipped: int = 0) -> str:
    """``N episode(s): a matched, b handed to the fallback, c diverged``, and how many failed
    recorded runs were left out (:func:`compared_episodes`)."""
    kinds = [d.kind for d in diffs]
    left_out = (
        f"; {skipped} failed recorded run{'s' if skipped != 1 else ''} skipped (never compiled "
        "from; --episode ID shows it)"
        if skipped
        else ""
    )
    return (
        f"{len(diffs)} episode(s): {kinds.count('matched')} matched, "
        f"{kinds.count('fallback')} handed to the fallback, {kinds.count('diverged')} diverged"
        + (f", {kinds.count('unreplayable')} unreplayable" if "unreplayable" in kinds else "")
        + left_out
    )


def compared_episodes(
    episodes: list[NormEpisode], episode: str | None = None
) -> tuple[list[NormEpisode], int]:
    """The episodes a diff compares and how many it skips: with ``episode``, the one with that
    id; else every one but the recorded runs that failed (never compiled from, so a package
    owes them nothing: a run that stopped before its first call is no divergence)."""
    if episode is not None:
        return [e for e in episodes if e.episode_id == episode], 0
    kept = [e for e in episodes if e.success is not False]
    return kept, len(episodes) - len(kept)


DIFF_CSS = """
.jdsl-diff table{border-collapse:collapse;font-size:13px}
.jdsl-diff td,.jdsl-diff th{border-bottom:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}
.jdsl-diff tr.jdsl-diff-differs td,.jdsl-diff tr.jdsl-diff-missing td,.jdsl-diff tr.jdsl-diff-extra td{background:#fdecea}
.jdsl-diff tr.jdsl-diff-first td{background:#f4a3a3;font-weight:bold}
.jdsl-diff tr.jdsl-diff-fallback td{background:#fff3cd}
.jdsl-diff .jdsl-read{color:#1a5fb4}.jdsl-diff .jdsl-write{color:#26a269}
"""


def _side_html(side: DiffSide | None) -> str:
    if side is None:
        return "<i>(no call)</i>"
    esc = html.escape
    reads = "".join(f"<div class='jdsl-read' title='read from the blackboard'>read {esc(r)}</div>"
                    for r in side.reads)  # fmt: skip
    writes = "".join(f"<div class='jdsl-write' title='written to the blackboard'>write {esc(w)}"
                     "</div>" for w in side.writes)  # fmt: skip
    node = f"<div><small>{esc(side.node_id or '')}</small></div>"
    return f"<code>{esc(side.text)}</code>{node}{reads}{writes}"


def diff_html(diff: StepDiff) -> str:
    """The diff as static HTML (no script): a summary line, then the side-by-side table."""
    esc = html.escape
    rows = []
    for step in diff.steps:
        cls = [f"jdsl-diff-{step.state}"]
        if step.index == diff.first:
            cls.append("jdsl-diff-first")
        if step.package is not None and step.package.fallback:
            cls.append("jdsl-diff-fallback")
        rows.append(
            f"<tr class='{' '.join(cls)}' data-step='{step.index}'><td>{step.index}</td>"
            f"<td title='{esc(step.state)}'>{esc(_MARK[step.state])}</td>"
            f"<td>{_side_html(step.teacher)}</td><td>{_side_html(step.package)}</td></tr>"
        )
        if diff.fallback is not None and diff.fallback[0] == step.index:
            rows.append(
                f"<tr class='jdsl-diff-fallback'><td></td><td>↪</td><td colspan='2'>"
                f"fallback <code>{esc(diff.fallback[1])}</code> takes over here</td></tr>"
            )
    if diff.fallback is not None and diff.fallback[0] >= len(diff.steps):
        rows.append(
            f"<tr class='jdsl-diff-fallback'><td></td><td>↪</td><td colspan='2'>fallback "
            f"<code>{esc(diff.fallback[1])}</code> took over after the last call</td></tr>"
        )
    verdict = diff.verdict if diff.kind != "diverged" else f"diverged at step {diff.first}"
    reason = f" — {esc(diff.divergence.reason)}" if diff.divergence is not None else ""
    summary = (
        f"<div><b>episode {esc(diff.episode_id)}</b>: {esc(verdict)}{reason} · outcome: "
        f"teacher {esc(diff.teacher_outcome)}, package {esc(_package_side(diff))}</div>"
    )
    legend = (
        "<div><small>= same call · ≠ different call · − the package made no such call · + "
        "an extra call · <span class='jdsl-read'>read</span>/<span class='jdsl-write'>write"
        "</span>: blackboard paths the call read and the key it wrote</small></div>"
    )
    table = (
        "<table><tr><th>step</th><th></th><th>teacher (recorded)</th><th>package (replay)"
        "</th></tr>" + "".join(rows) + "</table>"
    )
    return f"<style>{DIFF_CSS}</style><div class='jdsl-diff'>{summary}{legend}{table}</div>"
