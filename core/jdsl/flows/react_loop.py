"""The ReAct loop with budgets: model -> declared actions -> observations -> model.

Budgets (docs/design.md §7; defaults from :class:`jdsl.settings.ReactSettings`, call arguments win):

* ``max_steps``: model calls (>= 1). The last allowed model call never starts new actions,
  because no model call would be left to read their observations; its requests stay pending.
* ``max_action_calls``: actions executed (>= 0; 0 keeps every request pending).
* ``max_total_tokens``: summed usage; reaching it stops before the next model call. A model
  turn without usage under this budget stops with ``USAGE_UNAVAILABLE``.
* ``timeout_s``: wall time read from an injectable ``clock``; a cancellation token stops too.

Actions run one at a time in the model's order. Stop reasons: ``completed``, ``max_steps``,
``max_action_calls``, ``max_tokens``, ``timeout``, ``cancelled``, ``dependency_failed``,
``error``. ``completed`` is the only success; any other stop is ``partial`` after at least one
model turn, else ``failed``. Unresolved requests come back in ``pending``. Nothing is retried.

Stop rules (seed: "Duplicate action IDs, undeclared actions and invalid model outputs stop the
flow"; "Invalid input throws; execution errors return ReactFlowResult"):

* a repeated or empty action id stops with ``error`` / ``INVALID_MODEL_OUTPUT``;
* an undeclared action stops with ``error`` / ``UNDECLARED_ACTION`` under
  ``on_undeclared="stop"`` (the default), every request of that turn left in ``pending``;
  ``on_undeclared="observe"`` (the React leaf: the runtime seed's rule for trees, docs/design.md §7)
  feeds it back as a failed ``UNKNOWN_TOOL`` observation instead;
* any exception from the model (a ``ConnectionError`` as much as a :class:`ProviderError`)
  stops with ``error`` (``INVALID_MODEL_OUTPUT`` for a :class:`ModelOutputError`, else
  ``MODEL_ERROR``; a :class:`ProviderTimeout` is ``timeout``), the message scrubbed
  (:func:`~jdsl.interaction.results.sanitize_message`) and the exception kept on
  ``result.exception``; any exception escaping an action's infrastructure stops with
  ``dependency_failed`` (ditto: "Infrastructure exceptions stop the flow without inventing an
  observation"). Only invalid input (budgets, action declarations, ``on_undeclared``) raises.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jdsl.errors import ModelOutputError, ProviderTimeout, ToolError
from jdsl.flows.actions import ActionTable, ActionTarget, build_actions
from jdsl.interaction.cancel import is_cancelled
from jdsl.interaction.mcp import McpRegistry
from jdsl.interaction.observe import Observation
from jdsl.interaction.registry import ToolRegistry
from jdsl.interaction.results import error_from_exception, sanitize_message
from jdsl.interaction.sandbox import Sandbox
from jdsl.providers.messages import Message, ModelTurn, ToolCall, Usage, as_messages, as_turn
from jdsl.settings import ReactSettings, Settings
from jdsl.trace.messages import MessageLog

__all__ = ["OnUndeclared", "ReactError", "ReactResult", "StopReason", "react_flow"]

StopReason = Literal[
    "completed", "max_steps", "max_action_calls", "max_tokens", "timeout", "cancelled",
    "dependency_failed", "error",
]  # fmt: skip
OnUndeclared = Literal["stop", "observe"]
Emit = Callable[..., Any]


class ReactError(BaseModel):
    """Why a loop stopped early: a stable ``code`` and a safe ``message``."""

    model_config = ConfigDict(frozen=True)

    code: str
    message: str


class ReactResult(BaseModel):
    """The outcome of :func:`react_flow`.

    Attributes:
        status: ``completed`` / ``partial`` (stopped after >= 1 model turn) / ``failed``.
        stop_reason: see the module docstring.
        answer: the text of the last model turn ("" when there was none).
        messages: the whole conversation, starting with the caller's messages.
        turns: every model turn, in order.
        observations: every action observation, in order.
        pending: requested actions that were not resolved (not run, or outcome unknown).
        usage: summed usage of all turns (None when no turn reported any).
        steps: model calls made; action_calls: actions executed.
        error: set for ``error``, ``dependency_failed``, ``timeout`` and ``cancelled`` stops.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    status: Literal["completed", "partial", "failed"]
    stop_reason: StopReason
    answer: str = ""
    messages: tuple[Message, ...] = ()
    turns: tuple[ModelTurn, ...] = ()
    observations: tuple[Observation, ...] = ()
    pending: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    steps: int = 0
    action_calls: int = 0
    error: ReactError | None = None
    tools: tuple[str, ...] = Field(default=())
    exception: BaseException | None = Field(default=None, exclude=True, repr=False)
    """The model's own exception for an ``error`` stop that the model raised, so a caller that
    must not swallow it (the React leaf: a bad API key is not a FAILURE) can re-raise it."""

    @property
    def completed(self) -> bool:
        return self.status == "completed"


class _Stop(Exception):
    def __init__(
        self,
        reason: StopReason,
        code: str | None = None,
        message: str = "",
        cause: BaseException | None = None,
    ) -> None:
        self.reason = reason
        self.error = ReactError(code=code, message=message) if code else None
        self.cause = cause


def _dumped(message: Message) -> dict[str, Any]:
    return message.model_dump(mode="json")


def _budgets(settings: ReactSettings, **given: Any) -> ReactSettings:
    values = {k: v for k, v in given.items() if v is not None}
    try:
        return ReactSettings.model_validate({**settings.model_dump(), **values})
    except ValueError as exc:
        raise ValueError(f"invalid react_flow budget: {exc}") from None


class _Run:
    """The state of one loop; methods raise :class:`_Stop` to end it."""

    def __init__(self, model: Any, table: ActionTable, budgets: ReactSettings, **kw: Any) -> None:
        self.model, self.table, self.budgets = model, table, budgets
        self.system: str = kw["system"]
        self.model_id: str | None = kw["model_id"]
        self.cancel = kw["cancel"]
        self.clock: Callable[[], float] = kw["clock"]
        self.emit: Emit | None = kw["emit"]
        self.node_id: str | None = kw["node_id"]
        self.signature: str | None = kw["signature"]
        self.on_undeclared: OnUndeclared = kw["on_undeclared"]
        self.deadline = self.clock() + budgets.timeout_s
        self.messages: list[Message] = list(kw["messages"])
        self.log = MessageLog()  # what the trace recorded of the messages so far
        self.turns: list[ModelTurn] = []
        self.observations: list[Observation] = []
        self.pending: list[ToolCall] = []
        self.seen_ids: set[str] = set()
        self.usage: Usage | None = None
        self.action_calls = 0

    def _event(self, kind: str, payload: dict[str, Any], actor: str, parent: Any = None) -> Any:
        if self.emit is None:
            return None
        parent_id = getattr(parent, "event_id", None)
        return self.emit(
            kind, {"node_id": self.node_id, **payload}, actor=actor, parent_event_id=parent_id
        )

    def expose(self) -> None:
        """Emit ``toolset.exposed``: the actions the model may request."""
        tools = [
            {"host_name": s.name, "description": s.description, "parameters": s.parameters}
            for s in self.table.specs
        ]
        self._event("toolset.exposed", {"tools": tools}, "system")

    def _interrupted(self) -> bool:
        return is_cancelled(self.cancel) or self.clock() >= self.deadline

    def _check_interrupts(self) -> None:
        if is_cancelled(self.cancel):
            raise _Stop("cancelled", "CANCELLED", "the run was cancelled")
        if self.clock() >= self.deadline:
            raise _Stop(
                "timeout", "TIMEOUT", f"react_flow ran longer than {self.budgets.timeout_s} s"
            )

    def _tokens_used(self) -> int:
        return (self.usage.total or 0) if self.usage is not None else 0

    def loop(self) -> str:
        """Run turns until a stop; returns the final answer text on completion."""
        while True:
            self._check_interrupts()
            if len(self.turns) >= self.budgets.max_steps:
                raise _Stop("max_steps")
            limit = self.budgets.max_total_tokens
            if limit is not None and self._tokens_used() >= limit:
                raise _Stop("max_tokens")
            turn = self._call_model()
            if not turn.tool_calls:
                return turn.text
            self._act()

    def _call_model(self) -> ModelTurn:
        requested = None
        if self.emit is not None:  # only the messages new since the last request (v2 traces)
            requested = self._event("model.requested", {
                "kind": "react", "signature": self.signature, "model_id": self.model_id,
                "system": self.system, **self.log.fields(self.messages, _dumped),
                "tools": self.table.names(),
            }, "model")  # fmt: skip
            self.log.sent(requested, len(self.messages))
        started = self.clock()
        try:
            turn = as_turn(
                self.model,
                self.model.converse(self.system, self.messages, self.table.specs, self.model_id),
            )
        except KeyboardInterrupt:
            raise _Stop("cancelled", "CANCELLED", "interrupted during a model call") from None
        except ProviderTimeout as exc:
            raise _Stop("timeout", "TIMEOUT", sanitize_message(str(exc))) from None
        except Exception as exc:  # execution errors end the flow with a result (module doc)
            code = "INVALID_MODEL_OUTPUT" if isinstance(exc, ModelOutputError) else "MODEL_ERROR"
            error = error_from_exception(exc, code=code)
            raise _Stop("error", error.code, error.message, cause=exc) from None
        self._event("model.responded", {
            "kind": "react", "model_id": self.model_id, "raw_output": turn.text,
            "tool_calls": [c.model_dump(mode="json", include={"id", "name", "arguments"})
                           for c in turn.tool_calls],
            "usage": turn.usage.model_dump() if turn.usage else None,
            "finish_reason": turn.finish_reason,
            "elapsed_ms": round((self.clock() - started) * 1000, 3),
        }, "model", requested)  # fmt: skip
        self._record(turn)
        return turn

    def _record(self, turn: ModelTurn) -> None:
        self.turns.append(turn)
        self.messages.append(turn.as_message())
        self.usage = Usage.sum([t.usage for t in self.turns])  # counts turns without usage
        self.pending = list(turn.tool_calls)
        self._check_requests(turn.tool_calls)
        limit = self.budgets.max_total_tokens
        if limit is not None and (turn.usage is None or turn.usage.total is None):
            raise _Stop("error", "USAGE_UNAVAILABLE", "a model turn reported no token usage")
        if (limit is not None and self._tokens_used() > limit) or turn.finish_reason == "length":
            raise _Stop("max_tokens")
        if turn.finish_reason in ("error", "content_filter"):
            raise _Stop("error", "MODEL_ERROR", f"the model finished with {turn.finish_reason!r}")
        if turn.finish_reason == "cancelled":
            raise _Stop("cancelled", "CANCELLED", "the model call was cancelled")
        self._check_interrupts()

    def _check_requests(self, calls: Sequence[ToolCall]) -> None:
        """Stop on a repeated or empty id, and (``on_undeclared="stop"``) an undeclared name."""
        for call in calls:
            if call.id in self.seen_ids or not call.id:
                raise _Stop(
                    "error",
                    "INVALID_MODEL_OUTPUT",
                    sanitize_message(f"action id {call.id!r} is repeated or empty"),
                )
            self.seen_ids.add(call.id)
            if self.on_undeclared == "stop" and not self.table.declares(call.name):
                declared = ", ".join(self.table.names()) or "none"
                raise _Stop(
                    "error",
                    "UNDECLARED_ACTION",
                    sanitize_message(
                        f"the model requested action {call.name[:64]!r}, which is not declared; "
                        f"declared: {declared}"
                    ),
                )

    def _act(self) -> None:
        if len(self.turns) >= self.budgets.max_steps:
            raise _Stop("max_steps")  # the reserved final turn: no new actions
        limit = self.budgets.max_total_tokens
        if limit is not None and self._tokens_used() >= limit:
            raise _Stop("max_tokens")
        for call in list(self.pending):
            self._check_interrupts()
            if self.action_calls >= self.budgets.max_action_calls:
                raise _Stop("max_action_calls")
            self.action_calls += 1
            self._run_action(call)

    def _run_action(self, call: ToolCall) -> None:
        tool = {"host_name": call.name, "logical_id": call.name}
        payload = {"store": None, "tool": tool, "arguments": call.arguments, "call_id": call.id}
        started = self._event("tool.call.started", payload, "model")
        try:
            outcome = self.table.run(call, cancel=self.cancel)
        except KeyboardInterrupt:
            raise _Stop(
                "cancelled", "CANCELLED", f"interrupted during action {call.name!r}"
            ) from None
        except Exception as exc:  # an action's infrastructure broke: no observation is invented
            raise self._broken(call, exc, tool, started) from None
        if outcome.stop and self._interrupted():
            self._check_interrupts()  # stopped by our own deadline / cancel: outcome unknown, kept pending
        self.pending.remove(call)
        obs = outcome.observation
        if obs is not None:
            self.observations.append(obs)
        if obs is None or obs.status != "success":
            error = outcome.error
            self._event("tool.call.failed", {"store": None, "tool": tool,
                        "error": f"{error.code}: {error.message}" if error else "failed",
                        "error_type": error.code if error else "FAILED"}, "tool", started)  # fmt: skip
        else:
            result = (
                obs.structured_content
                if obs.structured_content is not None
                else obs.message.content
            )
            self._event(
                "tool.call.completed",
                {"store": None, "tool": tool, "result": result},
                "tool",
                started,
            )
        if outcome.stop:
            code, message = (
                (outcome.error.code, outcome.error.message)
                if outcome.error
                else ("DEPENDENCY_FAILED", "")
            )
            raise _Stop(
                "dependency_failed", code, message or f"action {call.name!r} did not complete"
            )
        assert obs is not None
        self.messages.append(obs.message.model_copy(update={
            "name": call.name, "metadata": {"action_request_id": call.id, "name": call.name}}))  # fmt: skip

    def _broken(self, call: ToolCall, exc: Exception, tool: dict[str, str], started: Any) -> _Stop:
        """The stop for an exception escaping an action (ditto: no observation is invented)."""
        self._check_interrupts()  # our own deadline / cancel: outcome unknown, kept pending
        self.pending.remove(call)
        code = exc.code if isinstance(exc, ToolError) else "DEPENDENCY_FAILED"
        error = error_from_exception(exc, code=code)
        self._event("tool.call.failed", {"store": None, "tool": tool,
                    "error": f"{error.code}: {error.message}", "error_type": error.code},
                    "tool", started)  # fmt: skip
        return _Stop("dependency_failed", error.code, error.message)

    def result(
        self,
        reason: StopReason,
        answer: str,
        error: ReactError | None,
        exception: BaseException | None = None,
    ) -> ReactResult:
        status: Literal["completed", "partial", "failed"] = "completed"
        if reason != "completed":
            status = "partial" if self.turns else "failed"
        return ReactResult(
            status=status, stop_reason=reason, answer=answer, messages=tuple(self.messages),
            turns=tuple(self.turns), observations=tuple(self.observations),
            pending=tuple(self.pending), usage=self.usage, steps=len(self.turns),
            action_calls=self.action_calls, error=error, tools=tuple(self.table.names()),
            exception=exception,
        )  # fmt: skip


def react_flow(
    model: Any,
    messages: str | Sequence[Message | Mapping[str, Any]],
    *,
    system: str = "",
    tools: ToolRegistry | Sequence[Any] = (),
    actions: Mapping[str, ActionTarget] | None = None,
    mcp: McpRegistry | None = None,
    sandbox: Sandbox | None = None,
    model_id: str | None = None,
    max_steps: int | None = None,
    max_action_calls: int | None = None,
    max_total_tokens: int | None = None,
    timeout_s: float | None = None,
    cancel: object | None = None,
    clock: Callable[[], float] = time.monotonic,
    settings: Settings | None = None,
    emit: Emit | None = None,
    node_id: str | None = None,
    signature: str | None = None,
    on_undeclared: OnUndeclared = "stop",
) -> ReactResult:
    """Run the ReAct loop under budgets (module docstring) and return how it ended.

    Args:
        model: anything with ``converse(system, messages, tools, model_id) -> ModelTurn``.
        messages: the conversation so far (a string is one user message).
        system: the system prompt.
        tools: a :class:`ToolRegistry`, or tools that their binding grants.
        actions: extra ``{action name: ToolTarget | McpTarget | SubtreeTarget}``.
        mcp: the MCP registry :class:`McpTarget` s use.
        sandbox: base sandbox for a sequence of tools.
        model_id: passed to the model.
        max_steps, max_action_calls, max_total_tokens, timeout_s: budgets (None: settings).
        cancel: a cancellation token (``.cancelled``); KeyboardInterrupt also cancels.
        clock: monotonic seconds, injectable so tests need no sleeping.
        settings: behaviour settings (defaults < YAML < these arguments).
        emit: ``emit(kind, payload, *, actor, parent_event_id)`` for trace events
            (``toolset.exposed``, ``model.requested``/``responded``, ``tool.call.*``), e.g.
            ``RunContext.emit``. ``react.started`` / ``react.finished`` are the leaf's. Each
            ``model.requested`` after the first carries only the messages new since the one
            before (``messages_from`` names it, when ``emit`` returned an event with an
            ``event_id``): :func:`jdsl.trace.request_messages` gives the whole list.
        node_id: put in every emitted payload.
        signature: the calling leaf's signature text, put in ``model.requested``.
        on_undeclared: ``"stop"`` (default): a requested action that is not declared stops the
            flow (``error`` / ``UNDECLARED_ACTION``, the requests left in ``pending``);
            ``"observe"``: it is fed back as a failed ``UNKNOWN_TOOL`` observation.

    Returns:
        A :class:`ReactResult`; execution errors (the model or an action's infrastructure
        raising) end the flow with one rather than an exception (module docstring).

    Raises:
        ValueError: an invalid budget or ``on_undeclared`` value.
        BindingError: an invalid action declaration.

    Example:
        >>> from jdsl.testing import ScriptedModel
        >>> react_flow(ScriptedModel("4"), "What is 2 + 2?").answer
        '4'
    """
    if on_undeclared not in ("stop", "observe"):
        raise ValueError(f"on_undeclared must be 'stop' or 'observe', not {on_undeclared!r}")
    budgets = _budgets(
        (settings or Settings()).react, max_steps=max_steps, max_action_calls=max_action_calls,
        max_total_tokens=max_total_tokens, timeout_s=timeout_s,
    )  # fmt: skip
    table = build_actions(tools, actions, mcp=mcp, sandbox=sandbox)
    history = [Message.user(messages)] if isinstance(messages, str) else as_messages(messages)
    run = _Run(model, table, budgets, system=system, model_id=model_id, cancel=cancel,
               clock=clock, emit=emit, node_id=node_id, messages=history,
               signature=signature, on_undeclared=on_undeclared)  # fmt: skip
    run.expose()
    try:
        answer = run.loop()
    except _Stop as stop:
        answer = run.turns[-1].text if run.turns else ""
        return run.result(stop.reason, answer, stop.error, stop.cause)
    return run.result("completed", answer, None)
