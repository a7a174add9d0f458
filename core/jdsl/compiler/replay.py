"""Execution replay: run a tree on a recorded episode and compare the calls it makes.

This is what "verified" means for a compiled package (docs/design.md §6): the tree runs on every
successful training episode with the recorded tool results served back by a replaying tool
binding and the recorded model decisions served back by :class:`jdsl.providers.replay.ReplayModel`.
Matched means the same effects: the same write calls (:func:`jdsl.compiler.families.is_write`),
with the same arguments, in the same order, and the teacher's outcome; reads may differ (the
benchmark's own reward is computed from the state the writes leave). Held-out validation is the
same check on episodes the package was not compiled from.

Public API (stable):

``ReplayTools(episode, *, tools=(), predicates=(), failing=(), effects=None, reads=None)``
    A tool binding. ``.tools`` / ``.predicates`` map each name to a callable (pass them to
    ``Root.run(tools=..., predicates=...)``). Each write is compared with the next expected
    recorded write (:func:`expected_calls`), each read looked up among the recorded calls with
    the same arguments (or, lacking one and before the first write, answered by ``reads``: the
    initial state, :mod:`jdsl.compiler.lookups`): a match returns the recorded result (a recorded
    ``Status.FAILURE`` returns ``Status.FAILURE``; a recorded exception raises
    :class:`RecordedToolFailure`, a :class:`~jdsl.errors.ToolError`); anything else raises
    :class:`CallDivergence`, which no recovery catches. ``.calls`` lists the calls made,
    ``.divergence`` the first :class:`Divergence`.
``decision_model(tree, episode) -> ReplayModel`` and ``run_inputs(tree, episode)``
    (:mod:`.decisions`, re-exported here): the episode's recorded model decisions addressed to
    the tree's predict leaves, in tree order
    (a leaf's answer is the value its output keys had in the episode: a model decision's output,
    or, for a residual standing in for a model-chosen argument, the argument the call used, or,
    for a residual selecting a list argument's elements (``xs[$k].id``), the indexes the
    recorded list took).
``execute(tree, episode) -> Execution``
    Run ``tree`` (a :class:`~jdsl.tree.Root` or an IR document) once on ``episode`` (a
    :class:`~jdsl.compiler.normalized.NormEpisode`, with its run inputs) and compare; a
    package's fallback is not run, the execution says where it would take over.
``execute_all(tree, episodes) -> tuple[Execution, ...]``
    :func:`execute` over many episodes (the tree is loaded once), e.g.
    ``[str(r.divergence) for r in execute_all(package.ir, held_out) if not r.matched]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from jdsl.compiler.decisions import TreeShape, decision_model, run_inputs
from jdsl.compiler.executions import UNREPLAYABLE, Divergence, Execution, ReplayedCall, call_text
from jdsl.compiler.fallback import Fallback, split_fallback
from jdsl.compiler.families import is_write
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.reads import UNUSED_READ, asking_leaf, empty, predict_prompts, unused_reads
from jdsl.errors import JdslError, ToolError
from jdsl.expr import MISSING
from jdsl.ir import from_ir, to_ir
from jdsl.providers.replay import ReplayDivergence
from jdsl.tree import RETURNED_FAILURE, Root, Status, typed_equal

__all__ = [
    "RETURNED_FAILURE",
    "UNREPLAYABLE",
    "CallDivergence",
    "Divergence",
    "Execution",
    "Fallback",
    "RecordedToolFailure",
    "ReplayTools",
    "TreeShape",
    "ReplayedCall",
    "call_text",
    "decision_model",
    "execute",
    "execute_all",
    "iter_executions",
    "expected_calls",
    "run_inputs",
]


class CallDivergence(JdslError):
    """A tool or predicate call that is not the next recorded one (never recovered)."""

    def __init__(self, divergence: Divergence) -> None:
        self.divergence = divergence
        super().__init__(
            f"{divergence}; the tree does not behave like the recorded episode — compare the "
            "node's arguments with the recorded call"
        )


class RecordedToolFailure(ToolError):
    """The replay of a call that raised in the recorded episode (``error_type`` kept)."""

    def __init__(self, tool: str, error: str, error_type: str | None) -> None:
        self.error_type = error_type
        super().__init__(
            f"recorded failure of {tool}: {error_type or 'error'}: {error}",
            tool=tool,
            code="RECORDED_FAILURE",
        )


def expected_calls(
    episode: NormEpisode, failing: Iterable[str] = (), effects: Mapping[str, Any] | None = None
) -> tuple[NormStep, ...]:
    """The recorded writes a tree must make, in order (:func:`jdsl.compiler.families.is_write`
    with ``effects``): every successful write, and every failed write of a tool in ``failing``
    (the tools the tree calls with ``on_error="fail"``, i.e. where it is prepared to see a
    failure and recover). A failed call the tree would not recover from changed nothing it could
    depend on: leaving it out (calling the tool once, as it then succeeded) is not a difference.
    Reads are not expected: the tree may make other reads, or fewer (:class:`ReplayTools`)."""
    names = set(failing)
    return tuple(
        s
        for s in episode.steps
        if is_write(s.logical_tool, effects)
        and (s.ok or s.logical_tool in names or s.host_tool in names)
    )


class ReplayTools:
    """A replaying tool (and predicate) binding over one recorded episode (module docstring).

    Matched means the same effects: each write the tree makes must be the next recorded write
    (same tool, same arguments); a read is answered with the recorded result of the same call
    (same tool and arguments) the episode made (its calls the compiler left out included), the
    last one before the next write when it made it more than once, so reads may be added,
    dropped or reordered. A read of a tool that
    answered nothing (``None``, ``""``, an empty list or dict) to every call the episode made
    gets that empty answer whatever its arguments (a scratchpad such as ``think``).

    Args:
        episode: the normalized episode whose calls are served back.
        tools: the tool names to bind (the tree's action tools).
        predicates: the guard_call predicate names to bind; each answers the recorded
            results of that predicate, in order.
        failing: the tools whose recorded failed calls are expected too
            (:func:`expected_calls`).
        effects: capability -> effects deciding which tools write (default: by name).
        unused: read tools whose results the tree never reads: a call the episode never made
            is answered ``None`` (nothing depends on it, e.g. a ``think`` scratchpad).
        reads: answers a read the episode never made before the tree's first write (the
            state every run starts from, :mod:`jdsl.compiler.lookups`); None: no answer.

    Attributes:
        tools / predicates: ``{name: callable}`` for ``Root.run``.
        calls: every call made, in order.
        expected: the recorded writes to make (:func:`expected_calls`).
        writes_done: how many of them were made.
        divergence: the first :class:`Divergence`, or None.
    """

    def __init__(
        self,
        episode: NormEpisode,
        *,
        tools: Iterable[str] = (),
        predicates: Iterable[str] = (),
        failing: Iterable[str] = (),
        effects: Mapping[str, Any] | None = None,
        unused: Iterable[str] = (),
        reads: ReadAnswers | None = None,
    ) -> None:
        names = tuple(dict.fromkeys(tools))
        self.unused, self.reads = frozenset(unused), reads
        self.episode_id = episode.episode_id
        self.effects = effects
        self.expected = expected_calls(episode, failing, effects)
        self.steps = episode.steps
        self.aside = episode.dropped  # reads the compiler left out: they still answer
        self.writes_done = 0
        self.calls: list[ReplayedCall] = []
        self.divergence: Divergence | None = None
        self.tools: dict[str, Callable[..., Any]] = {n: self._tool(n) for n in names}
        self._answers = {
            name: [g.result for g in episode.guards if _predicate(g.expression) == name]
            for name in dict.fromkeys(predicates)
        }
        self.predicates = {n: self._predicate(n) for n in self._answers}

    @property
    def remaining(self) -> tuple[NormStep, ...]:
        """The expected writes not made yet."""
        return self.expected[self.writes_done :]

    def diverge(self, node_id: str | None, expected: str | None, actual: str | None,
                reason: str, kind: str = "write") -> Divergence:  # fmt: skip
        """Record (the first) divergence at the current call and return it."""
        found = Divergence(self.episode_id, node_id, len(self.calls), expected, actual, reason,
                           kind)  # fmt: skip
        self.divergence = self.divergence or found
        return found

    def _tool(self, name: str) -> Callable[..., Any]:
        def replayed(**arguments: Any) -> Any:
            return self.call(name, arguments)

        replayed.__name__ = name
        return replayed

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Serve one call: a write when it is the next recorded write, a read when the episode
        made it (the recorded result either way).

        Raises:
            CallDivergence: a different or extra write, or a read the episode never made.
            RecordedToolFailure: the recorded call raised.
        """
        if not is_write(name, self.effects):
            return self._serve(name, arguments, self._read(name, arguments))
        actual = call_text(name, arguments)
        left = self.remaining
        if not left:
            reason = f"an extra write {actual}; the episode made no more"
            raise CallDivergence(self.diverge(None, None, actual, reason))
        step = left[0]
        expected = call_text(step.logical_tool, step.arguments)
        if name not in (step.logical_tool, step.host_tool) or not typed_equal(
            arguments, step.arguments
        ):
            what = "different arguments" if name in (step.logical_tool, step.host_tool) else (
                "a different write")  # fmt: skip
            reason = f"expected {expected}, the tree called {actual} ({what})"
            raise CallDivergence(self.diverge(None, expected, actual, reason))
        self.writes_done += 1
        return self._serve(name, arguments, step)

    def _read(self, name: str, arguments: dict[str, Any]) -> NormStep:
        """The recorded call a read is answered with (module docstring)."""
        of_tool = [s for s in (*self.steps, *self.aside) if name in (s.logical_tool, s.host_tool)]
        same = [s for s in of_tool if typed_equal(arguments, s.arguments)]
        if not same and of_tool and all(s.ok and empty(s.result) for s in of_tool):
            return of_tool[-1]  # it answered nothing to any call (a scratchpad like think)
        if not same and name in self.unused:
            return UNUSED_READ
        if not same and self.reads is not None and not self.writes_done:  # the initial state
            answer = self.reads(name, arguments)
            if answer is not MISSING:
                return dataclasses.replace(UNUSED_READ, logical_tool=name, result=answer)
        if not same:
            actual = call_text(name, arguments)
            reason = f"a read the episode never made, {actual}: its result is unknown"
            raise CallDivergence(self.diverge(None, None, actual, reason, "read"))
        ok = [s for s in same if s.ok] or same
        before = self.remaining[0].index if self.remaining else len(self.steps)
        earlier = [s for s in ok if s.index < before]
        return earlier[-1] if earlier else ok[0]

    def _serve(self, name: str, arguments: dict[str, Any], step: NormStep) -> Any:
        self.calls.append(ReplayedCall(name, dict(arguments)))
        if step.ok:
            return step.result
        if step.error_type == RETURNED_FAILURE:
            return Status.FAILURE
        raise RecordedToolFailure(name, step.error or "", step.error_type)

    def _predicate(self, name: str) -> Callable[..., bool]:
        def replayed(**arguments: Any) -> bool:
            answers = self._answers[name]
            if not answers:
                actual = call_text(name, arguments)
                reason = f"predicate {name} was called more often than the episode evaluated it"
                raise CallDivergence(self.diverge(None, None, actual, reason, "read"))
            return answers.pop(0)

        replayed.__name__ = name
        return replayed


def _predicate(expression: Any) -> str | None:
    return expression.get("call") if isinstance(expression, dict) else None


def execute(
    tree: Root | Mapping[str, Any], episode: NormEpisode, *,
    effects: Mapping[str, Any] | None = None, reads: ReadAnswers | None = None,
) -> Execution:  # fmt: skip
    """Run ``tree`` on ``episode`` with replayed tools and decisions; compare (module docstring).

    A package's fallback (:mod:`jdsl.compiler.fallback`) is never run: the compiled program
    runs alone, and when it ends FAILURE with every write so far matching, the execution says
    where the fallback would have taken over (:attr:`Execution.fallback`).

    Args:
        tree: a :class:`~jdsl.tree.Root` or a Behavior IR document (``{"format", "root"}``).
        episode: the recorded episode (its ``inputs`` are the run inputs).
        effects: capability -> effects deciding which tools write (default: by name).
        reads: answers reads the episode never made, before the first write
            (:mod:`jdsl.compiler.lookups`).

    Returns:
        An :class:`Execution`; ``.divergence`` names the first difference: a different or
        extra write, a write left unmade, a read the episode never made, a model call with no
        recorded decision, an error, or an outcome other than the teacher's.

    Raises:
        ValidationError: ``tree`` is an IR document that does not load.
    """
    return next(iter_executions(tree, [episode], effects=effects, reads=reads))


def execute_all(
    tree: Root | Mapping[str, Any], episodes: Iterable[NormEpisode], *,
    effects: Mapping[str, Any] | None = None, reads: ReadAnswers | None = None,
) -> tuple[Execution, ...]:  # fmt: skip
    """:func:`execute` on each episode, loading the tree once."""
    return tuple(iter_executions(tree, episodes, effects=effects, reads=reads))


def iter_executions(
    tree: Root | Mapping[str, Any], episodes: Iterable[NormEpisode], *,
    effects: Mapping[str, Any] | None = None, reads: ReadAnswers | None = None,
) -> Iterator[Execution]:  # fmt: skip
    """:func:`execute` on each episode as it comes (the tree loaded once), one at a time."""
    ir = to_ir(tree) if isinstance(tree, Root) else dict(tree)
    compiled, fallback = split_fallback(ir)
    root = tree if isinstance(tree, Root) and fallback is None else from_ir(compiled)
    serving = _Serving(TreeShape.of(root), effects, fallback is not None, reads)
    for episode in episodes:
        yield serving.run(root, episode)


class _Serving:
    """The tools and predicates of one tree's replays, bound once: each forwards to the
    :class:`ReplayTools` of the episode being run. The callables stay the same ones, so the
    runs share the tree's run memo (one static check, not one per episode)."""

    def __init__(self, shape: TreeShape, effects: Mapping[str, Any] | None = None,
                 falls_back: bool = False, reads: ReadAnswers | None = None) -> None:  # fmt: skip
        self.shape, self.reads = shape, reads
        self.effects = effects
        self.falls_back = falls_back
        self.unused = unused_reads(shape.nodes, effects)
        self._prompts = predict_prompts(shape.nodes)
        self.replay: ReplayTools | None = None
        self.tools = {n: self._forward("tools", n) for n in dict.fromkeys(shape.tools)}
        self.predicates = {
            n: self._forward("predicates", n) for n in dict.fromkeys(shape.predicates)
        }

    def asking(self, messages: Sequence[Mapping[str, Any]]) -> str | frozenset[str] | None:
        """The predict leaf a model call comes from (:func:`~jdsl.compiler.reads.asking_leaf`)."""
        return asking_leaf(self._prompts, messages)

    def _forward(self, kind: str, name: str) -> Callable[..., Any]:
        def served(**arguments: Any) -> Any:
            return getattr(self.replay, kind)[name](**arguments)

        served.__name__ = name
        return served

    def run(self, root: Root, episode: NormEpisode) -> Execution:
        """:func:`execute` of ``episode``."""
        shape = self.shape
        self.replay = replay = ReplayTools(episode, tools=shape.tools, predicates=shape.predicates,
                                           failing=shape.failing, effects=self.effects,
                                           unused=self.unused, reads=self.reads)  # fmt: skip
        try:
            return _run(root, shape, episode, replay, self)
        finally:
            self.replay = None


def _run(
    root: Root, shape: TreeShape, episode: NormEpisode, replay: ReplayTools, bound: _Serving
) -> Execution:
    model = decision_model(shape, episode)
    model.node_of = bound.asking
    ctx = root.run(
        model=model, tools=bound.tools, predicates=bound.predicates,
        raise_errors=False, episode_id=episode.episode_id or None, **run_inputs(shape, episode),
    )  # fmt: skip
    failure = ctx.failure
    node = failure.node_id if failure is not None else None
    status = "error" if ctx.error is not None else ctx.status.value
    fallback = None
    if bound.falls_back and ctx.error is None and status == "failure":
        reason = failure.reason if failure is not None else "the compiled program failed"
        fallback = Fallback(node, reason, len(replay.calls), replay.writes_done)
        divergence = None
    else:
        divergence = _divergence(replay, ctx.error, node, status, episode)
    return Execution(episode.episode_id, tuple(replay.calls), len(replay.expected), status,
                     divergence, fallback, len(model.calls))  # fmt: skip


def _divergence(
    replay: ReplayTools, error: BaseException | None, node: str | None, status: str,
    episode: NormEpisode,
) -> Divergence | None:  # fmt: skip
    if isinstance(error, CallDivergence):
        return Divergence(**{**error.divergence.to_dict(), "node_id": node})
    left = replay.remaining
    expected = call_text(left[0].logical_tool, left[0].arguments) if left else None
    if isinstance(error, ReplayDivergence):
        detail = getattr(getattr(error, "divergence", None), "reason", str(error))
        reason = f"a model call the episode has no decision for ({detail})"
        return replay.diverge(node, expected, "a model call", reason, "model")
    if error is not None:
        reason = f"the run raised {type(error).__name__}: {error}"
        return replay.diverge(node, expected, f"error {type(error).__name__}", reason, "error")
    if left:
        reason = f"expected {expected}, the run ended ({status}) without making it"
        return replay.diverge(node, expected, None, reason, "missing")
    teacher = "failure" if episode.success is False else "success"
    if status != teacher:
        reason = f"the run ended {status}, the teacher's episode {teacher}"
        return replay.diverge(node, teacher, status, reason, "outcome")
    return None
