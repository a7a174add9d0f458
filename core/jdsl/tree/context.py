"""One run's state: :class:`RunContext`, the :class:`ContextWindow` and the :class:`Bindings`.

"Context" means three things in jdsl (docs/design.md §7); this module holds two of them:
the ContextWindow is the system-prompt stack, the RunContext is one run's state.
"""

from __future__ import annotations

import difflib
import itertools
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from jdsl.errors import AuthoringError, BindingError, RefError, RunArgumentError, preview
from jdsl.expr import MISSING, missing_step, resolve_path
from jdsl.interaction.tools import tool_name
from jdsl.trace import BaseTraceSink, jsonable, new_episode_id
from jdsl.trace.events import ACTORS, RUNTIME_ACTORS, Actor, Timestamps, TraceEvent, actor_error
from jdsl.trace.sinks import recorder_for
from jdsl.tree.blackboard import Blackboard, Write
from jdsl.tree.node_events import NodeEvents
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.trace.sinks import TraceSink
    from jdsl.tree.base import Node
    from jdsl.tree.takeover import Takeover

__all__ = [
    "Bindings",
    "ContextWindow",
    "Failure",
    "RunContext",
    "check_model",
    "unbound_error",
]


class Failure(NamedTuple):
    """Why a run (or a subtree) returned FAILURE: the deepest failing node and its reason.

    Attributes:
        node_id: the failing node's effective id (e.g. ``root/sequence.0/predict.1``).
        label: its label (e.g. ``predict(q -> n)``).
        reason: what went wrong, e.g. ``output n: 'banana' is not a valid int (...)``,
            ``guard order.status == "pending" was false (order.status = 'delivered')``,
            ``tool cancel returned Status.FAILURE`` or ``react stopped: max_steps``.
    """

    node_id: str
    label: str
    reason: str

    def __str__(self) -> str:
        return f"{self.label} [{self.node_id}]: {self.reason}"


class ContextWindow:
    """The system-prompt stack: nodes with ``context=`` push text for their subtree.

    Example:
        >>> window = ContextWindow(["Be brief."])
        >>> window.push("Answer in French.")
        >>> window.system
        'Be brief.\\n\\nAnswer in French.'
    """

    def __init__(self, fragments: Iterable[str] = ()) -> None:
        self.fragments: list[str] = list(fragments)

    def push(self, text: str) -> None:
        self.fragments.append(text)

    def pop(self) -> None:
        """Remove the innermost fragment (no-op when empty)."""
        if self.fragments:
            self.fragments.pop()

    @property
    def system(self) -> str:
        """The fragments joined by blank lines, outermost first."""
        return "\n\n".join(f for f in self.fragments if f)


@dataclass
class Bindings:
    """Callables bound by name: tools (for act and react) and predicates (for guard_call)."""

    tools: dict[str, Callable[..., Any]] = field(default_factory=dict)
    predicates: dict[str, Callable[..., Any]] = field(default_factory=dict)

    def add(self, kind: str, name: str, fn: Callable[..., Any], *, replace: bool = False) -> None:
        """Bind ``name``; binding it to a different callable raises unless ``replace``.

        Raises:
            BindingError: ``name`` is already bound to another callable.
        """
        table = self.tools if kind == "tool" else self.predicates
        bound = table.get(name)
        if bound is not None and bound is not fn and not replace:
            raise BindingError(
                f"{kind} name {name!r} is bound to two different callables ({bound!r} and "
                f"{fn!r}); rename one with tool(fn, name='...')",
                name=name,
                kind=kind,
            )
        table[name] = fn

    def update(
        self,
        kind: str,
        items: Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]] | None,
        *,
        replace: bool = False,
    ) -> None:
        """Bind a ``{name: fn}`` mapping or callables named by :func:`tool_name`.

        Raises:
            AuthoringError: ``items`` is neither, a name is not a non-empty str, or a value
                is not callable.
            BindingError: a lambda in a list, or a name bound twice (see :meth:`add`).
        """
        if items is None:
            return
        argument = f"{kind}s"
        if isinstance(items, str) or not isinstance(items, Mapping | Iterable):
            raise AuthoringError(
                f"{argument} must be a {{name: callable}} mapping or a list of callables, got "
                f"{preview(items)}",
                builder="bind",
                argument=argument,
            )
        pairs = items.items() if isinstance(items, Mapping) else ((None, f) for f in items)
        for name, fn in pairs:
            if not callable(fn):
                raise AuthoringError(
                    f"{argument}: {preview(fn)} is not callable; bind functions (or Tool "
                    "objects) by name",
                    builder="bind",
                    argument=argument,
                )
            if name is None:
                name = tool_name(fn)
            elif not isinstance(name, str) or not name:
                raise AuthoringError(
                    f"{argument}: a name must be a non-empty str, got {preview(name)}",
                    builder="bind",
                    argument=argument,
                )
            self.add(kind, name, fn, replace=replace)

    def copy(self) -> Bindings:
        return Bindings(dict(self.tools), dict(self.predicates))


def _trace_id(value: Any, argument: str) -> str:
    """``value``, a non-blank str.

    Raises:
        RunArgumentError: ``value`` is not a str, or is empty or only spaces.
    """
    if isinstance(value, str) and value.strip():
        return value
    example, fix = (
        ("'ep_order_17'", "leave it out (None) for a fresh one")
        if argument == "episode_id"
        else ("'cap_local'", "leave it out for that one")
    )
    raise RunArgumentError(
        f"{argument} must be a non-blank str such as {example}, got {preview(value)}; {fix}",
        argument=argument,
    )


class RunContext:
    """The state of one run, passed to every ``tick``.

    Args:
        blackboard: a Blackboard, or a plain mapping (its items become inputs).
        window: the system-prompt stack.
        model: anything with ``converse`` (None for a tree without model leaves).
        model_id: passed to ``converse``.
        state: per-run scratch for stateful nodes (oneshot).
        bindings: the tools and predicates bound by name.
        trace_sink: where events go; None disables tracing (and costs nothing).
        capture_id, episode_id: the trace coordinates, non-blank strs; ``episode_id`` None
            gives a fresh unique id (``ep_<12 hex>``, :func:`jdsl.trace.new_episode_id`).
        services: what flows and tools share (sandbox, registries), or None.
        clock: monotonic seconds, injectable so timeouts are testable without sleeping.
        cancel: a cancellation token (anything with ``cancelled``), or None.

    Attributes:
        status: how the run ended (set by ``Root.run``; FAILURE until a run succeeds).
        error: the exception that ended it, if any.
        failure: the last unrecovered :class:`Failure` (``(node_id, label, reason)``): set by
            the deepest node that returned FAILURE (a leaf's reason: invalid model output, a
            false guard or check, a tool returning ``Status.FAILURE``, a React stop), cleared
            when a selector, ``optional``, ``invert`` or ``repeat`` turns that FAILURE into
            SUCCESS. None when the run succeeded; kept whether or not the run is traced. When
            the run ended with an exception, ``error`` is the cause and ``failure`` is whatever
            failure was pending before it.
        under_way: whether the last FAILURE ended a sequence after its first child succeeded
            (set by sequences, read by selectors: :class:`jdsl.tree.composites.Selector`).
        abandoned: True for the context of a subtree a ``timeout`` gave up on (see
            :class:`jdsl.tree.scope.ScopedContext`); always False here.
        tracing: whether a sink is attached.
        trace: the runtime's fast path for the events of every tick,
            ``trace(kind, payload, parent=None, actor=None) -> sequence`` (a
            :data:`jdsl.trace.sinks.Recorder`; returns None without a sink). ``payload`` must be
            JSON data the event may own (pass variable values through :func:`jsonable`) or
            a shared payload of :mod:`jdsl.trace.shared`;
            ``parent`` is an event id or the sequence ``trace`` returned for the parent event.
        node_names: ``{id(node): (effective id, label)}`` filled by :meth:`names`.
        node_events: ``{id(node): NodeEvents}`` (:mod:`jdsl.tree.node_events`) (the payloads of its ``node.enter`` and
            ``node.exit``) filled by :meth:`events_of`; a traced ``Root.run`` starts it with
            the ones its earlier runs of the same tree made.
        missing_inputs: keys the tree reads that no node writes and the run was not given
            (set by ``Root.run`` from its static check): a predict that reads one fails rather
            than send the model ``null`` (:func:`jdsl.tree.predict.missing_inputs`).
        takeovers: each :class:`~jdsl.tree.takeover.Takeover` of the run, in order (a react
            that took the run over from a pending failure; shared with scoped views).
        index_lists: the lists the tree indexes with ``[$key]``, by key (set by ``Root.run``).
    """

    def __init__(
        self,
        blackboard: Blackboard | Mapping[str, Any] | None = None,
        *,
        window: ContextWindow | None = None,
        model: Any = None,
        model_id: str | None = None,
        state: dict[Any, Any] | None = None,
        bindings: Bindings | None = None,
        trace_sink: TraceSink | None = None,
        capture_id: str = "cap_local",
        episode_id: str | None = None,
        services: Any = None,
        clock: Callable[[], float] = time.monotonic,
        cancel: Any = None,
    ) -> None:
        if not isinstance(blackboard, Blackboard):
            blackboard = Blackboard(blackboard or {})
        self.blackboard = blackboard
        self.window = window if window is not None else ContextWindow()
        self.model = model
        self.model_id = model_id
        self.state: dict[Any, Any] = state if state is not None else {}
        self.bindings = bindings if bindings is not None else Bindings()
        self.trace_sink = trace_sink
        self.capture_id = _trace_id(capture_id, "capture_id")
        self.episode_id = episode_id = (
            new_episode_id() if episode_id is None else _trace_id(episode_id, "episode_id")
        )
        self.services = services
        self.clock, self.cancel = clock, cancel
        self.status: Status = Status.FAILURE
        self.error: BaseException | None = None
        self.failure: Failure | None = None
        self.under_way = False
        self.tracing = trace_sink is not None
        self.node_names: dict[int, tuple[str | None, str]] = {}
        self.node_events: dict[int, NodeEvents] = {}
        self.missing_inputs: frozenset[str] = frozenset()
        self.takeovers: list[Takeover] = []
        self.index_lists: Mapping[str, tuple[str, ...]] = {}  # jdsl.tree.index_bounds
        self.trace: Callable[..., int | None] = _untraced
        if trace_sink is not None:
            self.trace = recorder_for(trace_sink, capture_id, episode_id)
            # A hook holding the recorder, not the context: no context <-> blackboard cycle
            # for the cyclic GC to find (a traced run's events are freed with its context).
            blackboard.on_write = write_tracer(self.trace)
            self._ids = itertools.count()
            self._id_prefix = os.urandom(10).hex()
            self._clock = Timestamps()

    abandoned = False
    """Whether the subtree running on this context was abandoned (only a scoped view can be)."""

    @property
    def takeover(self) -> Takeover | None:
        """The run's first :attr:`takeovers` (where a fallback took over, and why), or None
        when no react took the run over (a compiled package's program served it)."""
        return self.takeovers[0] if self.takeovers else None

    def names(self, node: Node) -> tuple[str | None, str]:
        """``(effective id, label)`` of ``node``, computed once per run."""
        found = self.node_names.get(id(node))
        if found is None:
            found = self.node_names[id(node)] = (node.effective_id, node.label)
        return found

    def events_of(self, node: Node) -> NodeEvents:
        """The :class:`NodeEvents` of ``node``, made once per run (or per tree, see above)."""
        found = self.node_events.get(id(node))
        if found is None:
            node_id, label = self.names(node)
            found = self.node_events[id(node)] = NodeEvents(node_id, node.kind, label)
        return found

    def fail(self, node: Node, reason: str) -> Status:
        """Record ``node`` as the run's :attr:`failure` with ``reason``; returns FAILURE."""
        node_id, label = self.names(node)
        self.failure = Failure(node_id or node.kind, label, reason)
        return Status.FAILURE

    # -- tracing -------------------------------------------------------------------------------
    def emit(
        self,
        kind: str,
        payload: Mapping[str, Any] | None = None,
        *,
        actor: str | None = None,
        parent_event_id: str | None = None,
    ) -> TraceEvent | None:
        """Send one event to the sink; None when the run has no sink.

        Payload values are passed through :func:`jsonable`. The actor defaults by kind
        (``model`` for model requests and tool starts, ``tool`` for tool results, else
        ``system``).
        """
        sink = self.trace_sink
        if sink is None:
            return None
        actor = actor or RUNTIME_ACTORS.get(kind, "system")
        if actor not in ACTORS:
            raise actor_error(actor)
        data = dict(payload or {})
        # A BaseTraceSink makes payloads JSON data itself (prepare); don't convert twice.
        event = TraceEvent.unchecked(
            kind, self.capture_id, self.episode_id,
            data if isinstance(sink, BaseTraceSink) else jsonable(data),
            event_id=f"{self._id_prefix}{next(self._ids):012x}", timestamp=self._clock.now(),
            actor=cast(Actor, actor), parent_event_id=parent_event_id,
        )  # fmt: skip
        return sink.emit(event)

    # -- blackboard ----------------------------------------------------------------------------
    def read(self, path: str, node: Node) -> Any:
        """Resolve a ref for ``node``: the exact key first, then the restricted path.

        Raises:
            RefError: the key or path is absent, naming it and how to provide it.
        """
        board = self.blackboard
        value = lookup(path, board, node)
        record = board.record_read(path, value, self.names(node)[0] or node.kind)
        if self.tracing:
            record.sequence = self.trace(record.event_kind, record.event_payload())
        return value

    def write(
        self,
        key: str,
        value: Any,
        node: Node,
        *,
        source: str | None = None,
        index: int | None = None,
    ) -> None:
        """Store ``value`` under ``key`` with ``node`` as its writer (``source`` / ``index``:
        the path and loop pass a for_each's item came from)."""
        node_id, label = self.names(node)
        self.blackboard.set(
            key,
            value,
            writer_id=node_id or node.kind,
            writer_label=label,
            source=source,
            index=index,
        )

    # -- bindings ------------------------------------------------------------------------------
    def tool(self, name: str) -> Callable[..., Any]:
        """The tool bound to ``name``.

        Raises:
            BindingError: nothing is bound to ``name``; names the closest bound ones.
        """
        fn = self.bindings.tools.get(name)
        if fn is None:
            raise unbound_error("tool", name, self.bindings.tools)
        return fn

    def predicate(self, name: str) -> Callable[..., Any]:
        """The predicate bound to ``name`` (raises :class:`BindingError` when unbound)."""
        fn = self.bindings.predicates.get(name)
        if fn is None:
            raise unbound_error("predicate", name, self.bindings.predicates)
        return fn

    def require_model(self) -> Any:
        """The run's model.

        Raises:
            BindingError: the run has no model, or it has no ``converse`` method.
        """
        if self.model is None:
            raise BindingError(
                "this tree has a model leaf (predict or react) but the run has no model; pass "
                "model=... to run() (e.g. ScriptedModel('...') from jdsl.testing) or set "
                "root(...).model('model-id')",
                name=self.model_id or "",
                kind="model",
            )
        return check_model(self.model, self.model_id)


def check_model(model: Any, model_id: str | None = None) -> Any:
    """``model`` when it has a callable ``converse``; returns it.

    Raises:
        BindingError: it has none (kind ``"model"``), naming the type and the method needed.
    """
    if not callable(getattr(model, "converse", None)):
        raise BindingError(
            f"the model passed to run() ({type(model).__name__} object) has no "
            "converse(system, messages, tools=(), model_id=None) -> ModelTurn method; pass a "
            "provider model (jdsl.providers), ScriptedModel / FunctionModel from jdsl.testing, "
            "or an object with that method",
            name=model_id or type(model).__name__,
            kind="model",
        )
    return model


def lookup(path: str, board: Mapping[str, Any], node: Node) -> Any:
    """The value at ``path`` (the exact key first, then the restricted path); not recorded.

    Raises:
        RefError: the key or path is absent.
    """
    value = board[path] if path in board else resolve_path(path, board)
    if value is MISSING:
        raise _ref_error(path, board, node)
    return value


def write_tracer(trace: Callable[..., int | None]) -> Callable[[Write], None]:
    """The blackboard hook tracing each write as ``blackboard.write`` through ``trace``."""

    def traced(record: Write) -> None:
        record.sequence = trace(record.event_kind, record.event_payload())

    return traced


def _untraced(kind: str, payload: Any, parent: Any = None, actor: Any = None) -> None:
    """The :attr:`RunContext.trace` of a run without a sink."""


def unbound_error(kind: str, name: str, bound: Mapping[str, Any]) -> BindingError:
    """A BindingError for an unbound ``name`` that suggests the closest bound names."""
    close = difflib.get_close_matches(name, list(bound), n=3)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    listing = ", ".join(sorted(bound)) or "none"
    flag = "tools" if kind == "tool" else "predicates"
    return BindingError(
        f"no {kind} bound to {name!r}{hint} (bound: {listing}). Bind it with "
        f"root.bind({flag}=[fn]) or run(..., {flag}={{{name!r}: fn}})",
        name=name,
        kind=kind,
        available=sorted(bound),
    )


def _ref_error(path: str, board: Mapping[str, Any], node: Node) -> RefError:
    reason = missing_step(path, board)
    first = path.split(".")[0].split("[")[0]
    return RefError(
        f"ref {path!r} (read by {node.label}) cannot be resolved: {reason}. "
        + _ref_fix(path, first, board),
        path=path,
        missing=reason,
    )


def _ref_fix(path: str, first: str, board: Mapping[str, Any]) -> str:
    """How to fix an unresolvable ref: seed its root key when it is missing; when the key is
    there, the path or an index (``$name``, often a model's answer) is what to check."""
    names = list(dict.fromkeys(re.findall(r"\$([A-Za-z_]\w*)", path)))
    absent = next((key for key in (first, *names) if key not in board), None)
    if absent is not None:
        close = difflib.get_close_matches(absent, [str(k) for k in board], n=3, cutoff=0.75)
        guess = f"did you mean {' or '.join(close)}? " if close else ""
        return (
            f"{guess}Seed it as a run() input (run({absent}=...)) or produce it in an earlier node "
            f"(e.g. store(act(...), {absent!r}))"
        )
    indexes = [f"${name} = {preview(board.get(name, None))}" for name in names]
    if indexes:
        return (
            f"{first} is on the blackboard; check the index ({', '.join(indexes)}) and the "
            "node that wrote it (blackboard.who_wrote), or the path"
        )
    return f"{first} is on the blackboard; check the path against the value it holds"
