"""Execution replay: run a tree on a recorded episode and compare the calls it makes.

This is what "verified" means for a compiled package (DESIGN.md §6): the tree runs on every
aligned episode with the recorded tool results served back by a replaying tool binding and the
recorded model decisions served back by :class:`jdsl.providers.replay.ReplayModel`; it must make
the same tool calls, with the same arguments, in the same order, and end with the teacher's
outcome. Held-out validation is the same check on episodes the package was not compiled from.

Public API (stable):

``ReplayTools(episode, *, tools=(), predicates=(), failing=())``
    A tool binding. ``.tools`` / ``.predicates`` map each name to a callable (pass them to
    ``Root.run(tools=..., predicates=...)``). Each tool call is compared with the next expected
    recorded call (:func:`expected_calls`): a match returns the recorded result (a recorded
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
    :class:`~jdsl.compiler.normalized.NormEpisode`, with its run inputs) and compare.
``execute_all(tree, episodes) -> tuple[Execution, ...]``
    :func:`execute` over many episodes (the tree is loaded once).

Example:
    >>> from jdsl.compiler import compile_behavior, execute_all, normalize_all  # doctest: +SKIP
    >>> runs = execute_all(package.ir, normalize_all(held_out, canonical=names))  # doctest: +SKIP
    >>> [str(r.divergence) for r in runs if not r.matched]  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.decisions import TreeShape, decision_model, run_inputs
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.errors import JdslError, ToolError
from jdsl.ir import from_ir
from jdsl.providers.replay import ReplayDivergence
from jdsl.tree import RETURNED_FAILURE, Root, Status, typed_equal

__all__ = [
    "RETURNED_FAILURE",
    "CallDivergence",
    "Divergence",
    "Execution",
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


@dataclass(frozen=True, slots=True)
class ReplayedCall:
    """One call the tree made: the tool name and keyword arguments."""

    tool: str
    arguments: dict[str, Any]

    def __str__(self) -> str:
        return call_text(self.tool, self.arguments)


@dataclass(frozen=True)
class Divergence:
    """Where a run first left its episode.

    Attributes:
        episode_id: the episode.
        node_id: the node that made the differing call, or where the run stopped (None when
            the run ended without a failing node).
        call_index: 0-based number of the expected call that differs.
        expected: the recorded call (``tool(arg=value)``), the teacher's outcome, or None.
        actual: the call the tree made, its outcome, or None when it made no call.
        reason: one line saying what differs.
    """

    episode_id: str
    node_id: str | None
    call_index: int
    expected: str | None
    actual: str | None
    reason: str

    def __str__(self) -> str:
        where = f", node {self.node_id!r}" if self.node_id else ""
        return f"episode {self.episode_id!r}{where}, call {self.call_index}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "node_id": self.node_id,
            "call_index": self.call_index,
            "expected": self.expected,
            "actual": self.actual,
            "reason": self.reason,
        }


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


@dataclass(frozen=True, slots=True)
class Execution:
    """One episode executed by :func:`execute`.

    Attributes:
        episode_id: the episode.
        calls: the calls the tree made, in order.
        expected: how many recorded calls it had to make.
        status: the run's status (``success`` / ``failure`` / ``error``).
        divergence: the first difference, None when the run matched the episode.
    """

    episode_id: str
    calls: tuple[ReplayedCall, ...]
    expected: int
    status: str
    divergence: Divergence | None

    @property
    def matched(self) -> bool:
        return self.divergence is None


def call_text(tool: str, arguments: Mapping[str, Any]) -> str:
    """``cancel(order_id='#W1', reason='x')`` (values shortened past 60 characters)."""

    def short(value: Any) -> str:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."

    return f"{tool}(" + ", ".join(f"{k}={short(v)}" for k, v in arguments.items()) + ")"


def expected_calls(episode: NormEpisode, failing: Iterable[str] = ()) -> tuple[NormStep, ...]:
    """The recorded calls a tree must make: every successful call, and every failed call of a
    tool in ``failing`` (the tools the tree calls with ``on_error="fail"``, i.e. where it is
    prepared to see a failure and recover). A failed call the tree would not recover from
    changed nothing it could depend on: leaving it out (calling the tool once, as it then
    succeeded) is not a difference."""
    names = set(failing)
    return tuple(
        s for s in episode.steps if s.ok or s.logical_tool in names or s.host_tool in names
    )


class ReplayTools:
    """A replaying tool (and predicate) binding over one recorded episode (module docstring).

    Args:
        episode: the normalized episode whose calls are served back.
        tools: the tool names to bind (the tree's action tools).
        predicates: the guard_call predicate names to bind; each answers the recorded
            results of that predicate, in order.
        failing: the tools whose recorded failed calls are expected too
            (:func:`expected_calls`).

    Attributes:
        tools / predicates: ``{name: callable}`` for ``Root.run``.
        calls: every call made, in order.
        expected: the recorded calls to make (:func:`expected_calls`).
        divergence: the first :class:`Divergence`, or None.
    """

    def __init__(
        self,
        episode: NormEpisode,
        *,
        tools: Iterable[str] = (),
        predicates: Iterable[str] = (),
        failing: Iterable[str] = (),
    ) -> None:
        names = tuple(dict.fromkeys(tools))
        self.episode_id = episode.episode_id
        self.expected = expected_calls(episode, failing)
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
        """The expected calls not made yet."""
        return self.expected[len(self.calls) :]

    def diverge(self, node_id: str | None, expected: str | None, actual: str | None,
                reason: str) -> Divergence:  # fmt: skip
        """Record (the first) divergence at the current call and return it."""
        found = Divergence(self.episode_id, node_id, len(self.calls), expected, actual, reason)
        self.divergence = self.divergence or found
        return found

    def _tool(self, name: str) -> Callable[..., Any]:
        def replayed(**arguments: Any) -> Any:
            return self.call(name, arguments)

        replayed.__name__ = name
        return replayed

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Serve one call: the recorded result when it is the next recorded call.

        Raises:
            CallDivergence: a different tool or different arguments, or no call was left.
            RecordedToolFailure: the recorded call raised.
        """
        actual = call_text(name, arguments)
        left = self.remaining
        if not left:
            raise CallDivergence(self.diverge(None, None, actual,
                                              f"an extra call {actual}; the episode made no more"))  # fmt: skip
        step = left[0]
        expected = call_text(step.logical_tool, step.arguments)
        if name not in (step.logical_tool, step.host_tool) or not typed_equal(
            arguments, step.arguments
        ):
            what = "different arguments" if name in (step.logical_tool, step.host_tool) else (
                "a different tool")  # fmt: skip
            reason = f"expected {expected}, the tree called {actual} ({what})"
            raise CallDivergence(self.diverge(None, expected, actual, reason))
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
                raise CallDivergence(self.diverge(None, None, actual, reason))
            return answers.pop(0)

        replayed.__name__ = name
        return replayed


def _predicate(expression: Any) -> str | None:
    return expression.get("call") if isinstance(expression, dict) else None


def execute(tree: Root | Mapping[str, Any], episode: NormEpisode) -> Execution:
    """Run ``tree`` on ``episode`` with replayed tools and decisions; compare (module docstring).

    Args:
        tree: a :class:`~jdsl.tree.Root` or a Behavior IR document (``{"format", "root"}``).
        episode: the recorded episode (its ``inputs`` are the run inputs).

    Returns:
        An :class:`Execution`; ``.divergence`` names the first difference: a different or
        extra call, a call left unmade, a model call with no recorded decision, an error, or an
        outcome other than the teacher's.

    Raises:
        ValidationError: ``tree`` is an IR document that does not load.
    """
    root = tree if isinstance(tree, Root) else from_ir(dict(tree))
    return _Serving(TreeShape.of(root)).run(root, episode)


def execute_all(
    tree: Root | Mapping[str, Any], episodes: Iterable[NormEpisode]
) -> tuple[Execution, ...]:
    """:func:`execute` on each episode, loading the tree once."""
    return tuple(iter_executions(tree, episodes))


def iter_executions(
    tree: Root | Mapping[str, Any], episodes: Iterable[NormEpisode]
) -> Iterator[Execution]:
    """:func:`execute` on each episode as it comes (the tree loaded once), one at a time."""
    root = tree if isinstance(tree, Root) else from_ir(dict(tree))
    serving = _Serving(TreeShape.of(root))
    for episode in episodes:
        yield serving.run(root, episode)


class _Serving:
    """The tools and predicates of one tree's replays, bound once: each forwards to the
    :class:`ReplayTools` of the episode being run. The callables stay the same ones, so the
    runs share the tree's run memo (one static check, not one per episode)."""

    def __init__(self, shape: TreeShape) -> None:
        self.shape = shape
        self.replay: ReplayTools | None = None
        self.tools = {n: self._forward("tools", n) for n in dict.fromkeys(shape.tools)}
        self.predicates = {
            n: self._forward("predicates", n) for n in dict.fromkeys(shape.predicates)
        }

    def _forward(self, kind: str, name: str) -> Callable[..., Any]:
        def served(**arguments: Any) -> Any:
            return getattr(self.replay, kind)[name](**arguments)

        served.__name__ = name
        return served

    def run(self, root: Root, episode: NormEpisode) -> Execution:
        """:func:`execute` of ``episode``."""
        shape = self.shape
        self.replay = replay = ReplayTools(episode, tools=shape.tools,
                                           predicates=shape.predicates, failing=shape.failing)  # fmt: skip
        try:
            return _run(root, shape, episode, replay, self)
        finally:
            self.replay = None


def _run(
    root: Root, shape: TreeShape, episode: NormEpisode, replay: ReplayTools, bound: _Serving
) -> Execution:
    ctx = root.run(
        model=decision_model(shape, episode), tools=bound.tools, predicates=bound.predicates,
        raise_errors=False, episode_id=episode.episode_id or None, **run_inputs(shape, episode),
    )  # fmt: skip
    node = ctx.failure.node_id if ctx.failure is not None else None
    status = "error" if ctx.error is not None else ctx.status.value
    divergence = _divergence(replay, ctx.error, node, status, episode)
    return Execution(episode.episode_id, tuple(replay.calls), len(replay.expected), status,
                     divergence)  # fmt: skip


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
        return replay.diverge(node, expected, "a model call", reason)
    if error is not None:
        reason = f"the run raised {type(error).__name__}: {error}"
        return replay.diverge(node, expected, f"error {type(error).__name__}", reason)
    if left:
        reason = f"expected {expected}, the run ended ({status}) without making it"
        return replay.diverge(node, expected, None, reason)
    teacher = "failure" if episode.success is False else "success"
    if status != teacher:
        reason = f"the run ended {status}, the teacher's episode {teacher}"
        return replay.diverge(node, teacher, status, reason)
    return None
