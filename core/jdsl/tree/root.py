"""Root: a tree's entry point, its bindings, and ``run`` (seed "Run Entry", docs/design.md §2)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import PrivateAttr

from jdsl.errors import (
    AuthoringError,
    BehaviorCheckError,
    ValidationError,
    preview,
)
from jdsl.trace.canonical import event_json
from jdsl.trace.shared import PayloadTemplate
from jdsl.trace.values import jsonable
from jdsl.tree.base import Node, name_argument
from jdsl.tree.blackboard import Blackboard
from jdsl.tree.check import CheckReport, check_tree
from jdsl.tree.context import Bindings, RunContext, check_model, unbound_error
from jdsl.tree.ids import walk_with_ids
from jdsl.tree.index_bounds import indexed_lists
from jdsl.tree.leaves import Action, GuardCall
from jdsl.tree.node_events import NodeEvents
from jdsl.tree.react import React
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.trace.sinks import TraceSink
    from jdsl.tree.nodes import AnyNode

__all__ = ["Root", "collect_callables"]

Callables = Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]]


def collect_callables(node: Node, bindings: Bindings) -> Bindings:
    """Add the callables Python authoring left on the nodes under ``node`` to ``bindings``.

    Raises:
        BindingError: one name carried by two different callables.
    """
    for item in node.walk():
        _collect(item, bindings)
    return bindings


def _collect(node: Node, bindings: Bindings) -> None:
    private = node.__pydantic_private__ or {}  # direct: pydantic's __getattr__ is slow
    if isinstance(node, Action) and private.get("_fn") is not None:
        bindings.add("tool", node.tool, private["_fn"])
    elif isinstance(node, GuardCall) and private.get("_fn") is not None:
        bindings.add("predicate", node.predicate, private["_fn"])
    elif isinstance(node, React):
        for name, fn in private.get("_fns", {}).items():
            bindings.add("tool", name, fn)


def _needed(node: Node) -> list[tuple[str, str]]:
    """The (kind, name) bindings ``node`` needs."""
    if isinstance(node, Action):
        return [("tool", node.tool)]
    if isinstance(node, GuardCall):
        return [("predicate", node.predicate)]
    if isinstance(node, React):
        return [("tool", name) for name in node.tools]
    return []


class Root(Node):
    """The root of a tree: a name, a system prompt, a model id and one child.

    Build it with ``root(name, system=...)``, then ``.model(model_id)`` and ``.do(child)``
    (each returns the root). ``do`` collects the callables of Python-authored nodes into the
    root's bindings; trees loaded from IR or text get theirs with :meth:`bind`.

    Attributes:
        name: the skill name (``skill`` in traces).
        system: the task-wide system prompt, outermost on the ContextWindow.
        model_id: the model to use when ``run`` is given no model object.
        child: the tree.
    """

    kind: Literal["root"] = "root"
    name: str
    system: str | None = None
    model_id: str | None = None
    child: AnyNode | None = None

    _bindings: Bindings = PrivateAttr(default_factory=Bindings)
    _memo: _RunMemo | None = PrivateAttr(default=None)
    _walked: tuple[list[Node], Any, tuple[Any, ...]] = PrivateAttr(default=([], (), ()))
    _prepared: tuple[Any, ...] | None = PrivateAttr(default=None)

    @property
    def label(self) -> str:
        return f"root {self.name!r}" + (f" [{self.model_id}]" if self.model_id else "")

    @property
    def bindings(self) -> Bindings:
        """The tools and predicates bound to this root (live object)."""
        return self._bindings

    def children_nodes(self) -> list[Node]:
        return [self.child] if self.child is not None else []

    # -- building ------------------------------------------------------------------------------
    def model(self, model_id: str) -> Root:
        """Set the model id; returns the root.

        Raises:
            AuthoringError: ``model_id`` is not a non-empty str.
        """
        self.model_id = name_argument(
            model_id, "Root.model", "model_id", "a model id, a non-empty str"
        )
        return self

    def do(self, child: Node) -> Root:
        """Set the child and collect its callables into the bindings; returns the root.

        Raises:
            AuthoringError: ``child`` is not a node (or is a root), or the root has a child.
            BindingError: one name bound to two different callables.
        """
        if not isinstance(child, Node) or isinstance(child, Root):
            what = "a root" if isinstance(child, Root) else preview(child)
            raise AuthoringError(
                f"Root.do() takes one node such as seq(...), got {what}; put several "
                "children in seq(...) and wrap a plain value in a node",
                builder="Root.do",
                argument="child",
            )
        if self.child is not None:
            raise AuthoringError(
                f"root {self.name!r} already has a child ({self.child.label}); call .do() "
                "once, with seq(...) around several children",
                builder="Root.do",
                argument="child",
            )
        collect_callables(child, self._bindings)
        self.child = child  # type: ignore[assignment]
        return self

    def bind(
        self,
        tools: Callables | None = None,
        predicates: Callables | None = None,
        *,
        replace: bool = False,
    ) -> Root:
        """Bind callables by name (a ``{name: fn}`` mapping, or callables named by
        ``tool_name``); returns the root.

        Raises:
            BindingError: a name already bound to a different callable (unless ``replace``),
                or a lambda in a list (it has no name).
            AuthoringError: ``tools`` / ``predicates`` is not a mapping or a list of
                callables, or holds a value that is not callable.
        """
        self._bindings.update("tool", tools, replace=replace)
        self._bindings.update("predicate", predicates, replace=replace)
        return self

    def resolved_bindings(
        self, tools: Callables | None = None, predicates: Callables | None = None
    ) -> Bindings:
        """The root's bindings, plus callables left on nodes, plus (replacing) the given ones."""
        return self.prepare(tools, predicates)[0]

    def prepare(
        self, tools: Callables | None = None, predicates: Callables | None = None
    ) -> tuple[Bindings, list[tuple[str, str]], bool]:
        """One pass over the tree before a run: structural ids, bindings, needs.

        Returns:
            ``(bindings, needed, uses_model)``: the resolved bindings (root's, plus callables
            left on nodes, plus the given ones replacing), every ``(kind, name)`` a node needs,
            and whether any node calls a model.
        """
        private = self.__pydantic_private__  # direct: pydantic's __getattr__ is slow
        nodes, key, fields = _fingerprint(self)
        cached = private.get("_prepared")  # type: ignore[union-attr]
        if cached is None or cached[0] != key:
            cached = (key, *_prepared(self), fields)  # fields: keeps the ids in ``key`` theirs
            private["_prepared"] = cached  # type: ignore[index]
        _, carried, needed, uses_model, paths, _ = cached
        for node, path in zip(nodes, paths, strict=True):
            node.__pydantic_private__["_runtime_id"] = path  # type: ignore[index]
        bindings = private["_bindings"].copy()  # type: ignore[index]
        for name, fn in carried.tools.items():
            bindings.tools.setdefault(name, fn)
        for name, fn in carried.predicates.items():
            bindings.predicates.setdefault(name, fn)
        bindings.update("tool", tools, replace=True)
        bindings.update("predicate", predicates, replace=True)
        private["_walked"] = (nodes, key, fields)  # type: ignore[index]  # for _run_memo
        return bindings, needed, uses_model

    def check(
        self,
        *,
        tools: Callables | None = None,
        predicates: Callables | None = None,
        inputs: Iterable[str] | None = None,
    ) -> CheckReport:
        """The static check of this tree (:func:`jdsl.tree.check.check_tree`): type mismatches
        between a producer and the tool parameter it feeds, unbound names, keys read before any
        writer, unreachable children. ``run`` does it first and stops on errors.

        Args:
            tools, predicates: callables replacing the root's bindings, as in :meth:`run`.
            inputs: the run's input keys, when known.
        """
        bindings = self.prepare(tools, predicates)[0]
        return check_tree(self, bindings=bindings, inputs=inputs)

    def check_bindings(self, bindings: Bindings) -> None:
        """Raise :class:`BindingError` for the first tool or predicate name that is not bound."""
        _check_needed([pair for node in self.walk() for pair in _needed(node)], bindings)

    # -- running -------------------------------------------------------------------------------
    def run(
        self,
        *,
        model: Any = None,
        trace_sink: TraceSink | None = None,
        capture_id: str = "cap_local",
        episode_id: str | None = None,
        raise_errors: bool = True,
        tools: Callables | None = None,
        predicates: Callables | None = None,
        services: Any = None,
        cancel: Any = None,
        **inputs: Any,
    ) -> RunContext:
        """Run the tree once on a fresh blackboard seeded with ``inputs``.

        Args:
            model: anything with ``converse``; None resolves ``model_id`` through
                ``jdsl.providers.resolve_model`` when the tree has a model leaf.
            trace_sink: where events go (None: no tracing, no cost).
            capture_id, episode_id: trace coordinates, non-blank strs (else
                :class:`~jdsl.errors.RunArgumentError`); ``episode_id`` None (the default) gives
                each run a fresh unique id (``ep_<12 hex>``), so runs into one sink stay
                separate episodes. Pass your own to name runs (reusing one is an error-prone
                choice: readers split such runs into ``<id>#2``...).
            raise_errors: re-raise an exception from a tool or model (with a note naming the
                node) after closing the episode; False returns the context with ``error`` set.
            tools, predicates: callables that replace the root's bindings for this run.
            services: a :class:`jdsl.flows.Services` (sandbox, MCP registry, settings) that
                React leaves use.
            cancel: a cancellation token (anything with a ``cancelled`` flag).
            **inputs: the run inputs (writer ``"input"``; not traced as writes).

        Returns:
            The :class:`RunContext`: read results from ``ctx.blackboard``, the outcome from
            ``ctx.status`` and ``ctx.error``, and on FAILURE the reason from ``ctx.failure``
            (a :class:`~jdsl.tree.Failure` ``(node_id, label, reason)``; None on success).

        Raises:
            BindingError: an unbound tool, predicate or model, or a model object without
                ``converse`` (before the first tick).
            BehaviorCheckError: the static check (:meth:`check`) found an error, e.g. a
                predict output whose type does not fit the tool parameter it feeds (before
                the first tick; the episode ends ``error``).
            KeyboardInterrupt: re-raised after the episode is closed as ``cancelled``.
            Exception: whatever a tool or model raised, when ``raise_errors``.
        """
        bindings, needed, uses_model = self.prepare(tools, predicates)
        ctx = RunContext(
            Blackboard(inputs),
            model=model,
            model_id=self.model_id,
            bindings=bindings,
            trace_sink=trace_sink,
            capture_id=capture_id,
            episode_id=episode_id,
            services=services,
            cancel=cancel,
        )
        memo = self._run_memo(bindings, inputs)
        ctx.node_names = memo.names()
        if ctx.tracing:
            ctx.node_events = memo.node_events(ctx)
            ctx.trace("episode.started", memo.started().fill(jsonable(inputs)))
        try:
            _check_needed(needed, bindings)
            report = memo.report()
            if report.errors:
                raise BehaviorCheckError(report)
            ctx.missing_inputs = frozenset(report.inputs).difference(inputs)
            if uses_model:
                ctx.index_lists = memo.index_lists()
            if ctx.model is None and self.model_id and uses_model:
                ctx.model = _resolve_model(self.model_id)
            if ctx.model is not None and uses_model:
                check_model(ctx.model, self.model_id)
            ctx.status = self.tick(ctx)
        except KeyboardInterrupt as exc:
            self._finish(ctx, "cancelled", exc)
            raise
        except Exception as exc:
            self._finish(ctx, "error", exc)
            if raise_errors:
                raise
            return ctx
        self._finish(ctx, ctx.status.value, None)
        return ctx

    def _run_memo(self, bindings: Bindings, inputs: Mapping[str, Any]) -> _RunMemo:
        """What runs of this tree can share: its check report and IR, remembered while the
        tree's nodes (as :meth:`prepare` just walked them), the bound callables and the input
        keys stay the same ones. Runs in a loop pay for one check and one IR dump; a node
        replaced, a field set or edited in place (``action.args["q"] = ...``), a callable
        rebound or another input key starts afresh."""
        private = self.__pydantic_private__  # direct: pydantic's __getattr__ is slow
        nodes, tree_key, fields = private["_walked"]  # type: ignore[index]
        key = (
            tree_key,
            tuple((name, id(fn)) for name, fn in bindings.tools.items()),
            tuple((name, id(fn)) for name, fn in bindings.predicates.items()),
            tuple(inputs),
        )
        memo = private.get("_memo")  # type: ignore[union-attr]
        if memo is None or memo.key != key:
            memo = _RunMemo(self, bindings, inputs, key, (nodes, fields))
            private["_memo"] = memo  # type: ignore[index]
        else:
            memo.reused = True
        return memo  # type: ignore[no-any-return]

    def _finish(self, ctx: RunContext, status: str, exc: BaseException | None) -> None:
        if exc is not None:
            ctx.status, ctx.error = Status.FAILURE, exc
        elif ctx.status is Status.SUCCESS:
            ctx.failure = None
        elif ctx.failure is None:  # a node kind that does not say why (a user subclass)
            ctx.fail(self, "the tree returned FAILURE without a reason")
        if ctx.tracing:
            ctx.trace("episode.finished", {
                "skill": self.name, "status": status,
                "error_type": type(exc).__name__ if exc is not None else None,
                "error_message": str(exc) if exc is not None else None,
                "failure": ctx.failure._asdict() if ctx.failure is not None else None,
            })  # fmt: skip

    def _tick(self, ctx: RunContext) -> Status:
        if self.child is None:
            raise ValidationError([f"root {self.name!r} has no child; call .do(...) on it"])
        if ctx.model_id is None:
            ctx.model_id = self.model_id
        if self.system is None:
            return self.child.tick(ctx)
        ctx.window.push(self.system)
        try:
            return self.child.tick(ctx)
        finally:
            ctx.window.pop()


class _RunMemo:
    """One tree's check report and IR JSON for runs with the same ``key`` (see
    :meth:`Root._run_memo`); each is computed on first use."""

    __slots__ = (
        "_events",
        "_inputs",
        "_lists",
        "_names",
        "_report",
        "_root",
        "_started",
        "bindings",
        "held",
        "key",
        "reused",
    )

    def __init__(
        self, root: Root, bindings: Bindings, inputs: Mapping[str, Any], key: Any, held: Any
    ) -> None:
        self._root, self.bindings, self._inputs = root, bindings, tuple(inputs)
        self.key, self.held = key, held  # held: keeps the ids in ``key`` theirs
        self._report: CheckReport | None = None
        self._started: PayloadTemplate | None = None
        self._names: dict[int, tuple[str | None, str]] | None = None
        self._events: dict[int, NodeEvents] | None = None
        self._lists: dict[str, tuple[str, ...]] | None = None
        self.reused = False  # a second run of the tree came: the tables below pay off

    def report(self) -> CheckReport:
        """:func:`check_tree` of the root with these bindings and input keys."""
        if self._report is None:
            self._report = check_tree(self._root, bindings=self.bindings, inputs=self._inputs)
        return self._report

    def names(self) -> dict[int, tuple[str | None, str]]:
        """A fresh copy of :attr:`RunContext.node_names` for every node of the tree, from the
        second run on (a first run names the nodes it ticks, as it goes)."""
        if not self.reused:
            return {}
        if self._names is None:
            self._names = {id(n): (n.effective_id, n.label) for n in self.held[0]}
        return self._names.copy()

    def node_events(self, ctx: RunContext) -> dict[int, NodeEvents]:
        """A fresh copy of :attr:`RunContext.node_events` for every node of the tree (made
        with ``ctx``'s names), from the second run on, like :meth:`names`."""
        if not self.reused:
            return {}
        if self._events is None:
            self._events = {id(n): ctx.events_of(n) for n in self.held[0]}
        return self._events.copy()

    def index_lists(self) -> dict[str, tuple[str, ...]]:
        """The lists the tree's nodes index with ``[$key]``, by key (:func:`indexed_lists`)."""
        if self._lists is None:
            self._lists = indexed_lists(self.held[0])
        return self._lists

    def started(self) -> PayloadTemplate:
        """The ``episode.started`` payload but its ``inputs``: the skill, the model id and
        the root's IR (:meth:`Node.to_ir`), encoded once for the runs."""
        if self._started is None:
            root = self._root
            fixed = {"skill": root.name, "model_id": root.model_id, "ir": root.to_ir()}
            self._started = PayloadTemplate(fixed, "inputs")
        return self._started


def _fingerprint(root: Root) -> tuple[list[Node], tuple[Any, ...], tuple[Any, ...]]:
    """``(nodes, key, fields)``: the tree's nodes in pre-order, and a key that changes when
    the tree does (a node replaced, moved or added; a field set or a dict or list field edited
    in place: a node edited in place keeps its id(), so the key also holds the id of every
    field value and the JSON of every non-empty dict or list that is not a node's children).
    The caller keeps ``fields`` alive while it holds the key, so those ids are not reused."""
    nodes: list[Node] = []
    counts: list[int] = []
    values: list[Any] = []
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        values.extend(node.__dict__.values())
        children = node.children_nodes()
        counts.append(len(children))
        if children:
            stack.extend(reversed(children))
    fields = tuple(values)
    key = (
        tuple(map(id, nodes)),
        tuple(counts),  # with the pre-order: the shape, hence every structural id
        tuple(map(id, fields)),
        tuple([_contents(v) for v in fields if type(v) in _CONTAINERS and v]),
    )
    return nodes, key, fields


_CONTAINERS = frozenset({dict, list})


def _prepared(root: Root) -> tuple[Bindings, list[tuple[str, str]], bool, list[str]]:
    """What :meth:`Root.prepare` derives from the tree alone: the callables left on nodes,
    the ``(kind, name)`` bindings nodes need, whether a node calls a model, the structural
    ids in pre-order."""
    carried = Bindings()
    needed: list[tuple[str, str]] = []
    uses_model = False
    paths: list[str] = []
    for node, path in walk_with_ids(root):
        paths.append(path)
        _collect(node, carried)
        needed += _needed(node)
        uses_model = uses_model or node.kind in ("predict", "react")
    return carried, needed, uses_model, paths


def _contents(value: dict[str, Any] | list[Any]) -> str | None:
    """The JSON of a node's dict or list field, None for a list of nodes (children)."""
    if type(value) is list and isinstance(value[0], Node):
        return None
    return event_json(value)


def _check_needed(needed: list[tuple[str, str]], bindings: Bindings) -> None:
    for kind, name in needed:
        table = bindings.tools if kind == "tool" else bindings.predicates
        if name not in table:
            raise unbound_error(kind, name, table)


def _resolve_model(model_id: str) -> Any:
    from jdsl.providers import resolve_model  # lazy: the provider registry is not needed offline

    return resolve_model(model_id)
