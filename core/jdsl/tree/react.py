"""React: a model-driven tool loop inside one leaf; it runs :func:`jdsl.flows.react_flow`."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, PrivateAttr

from jdsl.errors import ModelOutputError
from jdsl.flows import react_flow
from jdsl.interaction.cancel import is_cancelled
from jdsl.interaction.tools import HOST_NAME, Tool, tool_name
from jdsl.providers.messages import Message, cut_at_token_limit
from jdsl.signature import render_prompt
from jdsl.tree.context import unbound_error
from jdsl.tree.predict import read_inputs
from jdsl.tree.signed import SignedLeaf
from jdsl.tree.status import Status
from jdsl.tree.takeover import Takeover

if TYPE_CHECKING:
    from jdsl.tree.context import RunContext

__all__ = ["React", "host_names"]


class React(SignedLeaf):
    """Let the model call ``tools`` until it gives a final answer, then write its outputs.

    Any signature works, as in DSPy's ReAct: the final answer is parsed into the signature's
    outputs the way :class:`~jdsl.tree.predict.Predict` parses them (one output: the stripped
    text; several: one JSON object, coerced and validated) and written only when all validate;
    otherwise FAILURE naming the missing or invalid field. Tool schemas are derived from the
    callables (:func:`jdsl.interaction.tool_spec`). A tool exception or an unknown tool name is
    a failed observation the model sees (``react_flow(on_undeclared="observe")``, the runtime
    seed's rule; docs/design.md §7). ``max_steps`` counts model calls. FAILURE without a valid final
    answer; ``ctx.failure`` (``react stopped: max_steps``...) and the trace's ``react.finished``
    say why. A react ticked while a failure is pending (a selector's later child, e.g. a compiled
    package's fallback) takes over from it: ``react.started`` names it (``after_failure``) and an
    input named ``failure`` that the blackboard does not hold gets ``"<node id>: <reason>"``. An exception the model raised (a bad key, a dropped connection, a ``converse``
    returning neither a ModelTurn nor a str) propagates unchanged after ``react.finished``, and
    a Ctrl-C during the loop raises KeyboardInterrupt after it (the run ends cancelled).

    Attributes:
        signature: e.g. ``"question -> answer"`` or ``"ticket -> category, urgency: int"``.
        tools: the tool names the model may call (bound by name at run time).
        instructions: the task text.
        max_steps: the most model calls (default 6).
    """

    kind: Literal["react"] = "react"
    tools: list[str] = Field(default_factory=list)
    instructions: str | None = None
    max_steps: int = Field(default=6, ge=1)

    _fns: dict[str, Callable[..., Any]] = PrivateAttr(default_factory=dict)

    @property
    def label(self) -> str:
        return f"react({self.arrow}, tools=[{', '.join(self.tools)}])"

    def _bound_tools(self, ctx: RunContext) -> list[Callable[..., Any]]:
        bound: list[Callable[..., Any]] = []
        hosts = host_names(self.tools)
        for name in self.tools:
            fn = ctx.bindings.tools.get(name) or self._fns.get(name)
            if fn is None:
                raise unbound_error("tool", name, ctx.bindings.tools)
            host = hosts[name]
            named = fn if _named(fn) == host else Tool(fn, name=host)
            bound.append(named)
        return bound

    def _tick(self, ctx: RunContext) -> Status:
        model = ctx.require_model()
        sig = self.parsed
        tools = self._bound_tools(ctx)
        inputs = read_inputs(self, sig, {}, ctx)
        pending = ctx.failure  # a react after a failed sibling takes over from it
        if pending is not None:
            ctx.takeovers.append(Takeover(ctx.names(self)[0] or self.kind, pending))
        if pending is not None and "failure" in inputs and inputs["failure"] is None:
            inputs["failure"] = f"{pending.node_id}: {pending.reason}"
        prompt = render_prompt(sig, inputs, self.instructions, react=True)
        head = {"node_id": self.effective_id}
        if ctx.tracing:
            started = {"signature": str(sig), "inputs": inputs, "outputs": list(sig.output_names)}
            if pending is not None:
                started["after_failure"] = {"node_id": pending.node_id, "reason": pending.reason}
            ctx.emit("react.started", {**head, **started, "tools": list(self.tools)})
        result = react_flow(
            model,
            [Message.user(prompt)],
            system=ctx.window.system,
            tools=tools,
            model_id=ctx.model_id,
            max_steps=self.max_steps,
            cancel=ctx.cancel,
            clock=ctx.clock,
            settings=getattr(ctx.services, "settings", None),
            sandbox=getattr(ctx.services, "sandbox", None),
            mcp=getattr(ctx.services, "mcp", None),
            emit=ctx.emit if ctx.tracing else None,
            node_id=self.effective_id,
            signature=str(sig),
            on_undeclared="observe",
        )
        outputs, error = None, result.error.message if result.error else None
        if error is None and result.stop_reason == "max_tokens" and result.turns:
            error = cut_at_token_limit(result.turns[-1])
        if result.status == "completed":
            try:
                outputs = sig.parse_output(result.answer)
            except ModelOutputError as exc:
                error = str(exc)
        if ctx.tracing:
            ctx.emit("react.finished", {
                **head, "status": "failed" if outputs is None and result.completed else result.status,
                "stop_reason": result.stop_reason, "usage": result.usage,
                "pending_actions": [c.model_dump(mode="json") for c in result.pending],
                "answer": result.answer, "outputs": outputs, "steps": result.steps, "error": error,
            })  # fmt: skip
        if result.exception is not None:
            # a model that cannot be reached, or breaks the protocol, is an error, not a FAILURE
            raise result.exception
        if result.stop_reason == "cancelled" and not is_cancelled(ctx.cancel):
            # react_flow's Ctrl-C (no token was cancelled): the run stops as cancelled, as a
            # Ctrl-C anywhere else in the tree does, instead of failing into a sibling
            raise KeyboardInterrupt
        if outputs is None:
            stopped = f"react stopped: {result.stop_reason}" + (f" ({error})" if error else "")
            return ctx.fail(self, stopped if not result.completed else f"react answer: {error}")
        for key, value in outputs.items():
            ctx.write(key, value, self)
        return Status.SUCCESS


def host_names(names: Sequence[str]) -> dict[str, str]:
    """The name a model sees for each tool name a react leaf lists: the name itself when
    every provider takes it (:data:`~jdsl.interaction.tools.HOST_NAME`), else, for a capability
    id (``retail.cancel_pending_order``, as a compiled package's fallback lists its tools), its
    last part when no other listed name shares it, else the id with every other character
    made ``_`` (``retail_cancel_pending_order``).

    Example:
        >>> host_names(["add", "retail.cancel", "a.get", "b.get"])
        {'add': 'add', 'retail.cancel': 'cancel', 'a.get': 'a_get', 'b.get': 'b_get'}
    """
    lasts = Counter(n.rsplit(".", 1)[-1] for n in names)
    hosts: dict[str, str] = {}
    for name in names:
        last = name.rsplit(".", 1)[-1]
        if HOST_NAME.match(name):
            hosts[name] = name
        elif lasts[last] == 1 and HOST_NAME.match(last) and last not in names:
            hosts[name] = last
        else:
            hosts[name] = re.sub(r"[^A-Za-z0-9_-]", "_", name)[-64:] or "tool"
    return hosts


def _named(fn: Callable[..., Any]) -> str | None:
    try:
        return tool_name(fn)
    except Exception:
        return None
