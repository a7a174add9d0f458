"""Predict: one stateless, typed model call (seed "Predict", docs/design.md §4).

A model whose ``structured_outputs`` is true is asked for :func:`response_schema`, in which an
output another node of the tree uses as an index (``orders[$k]``) is held to the indexes of
that list as of the tick (:mod:`jdsl.tree.index_bounds`)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from jdsl.errors import ModelOutputError
from jdsl.providers.messages import Message, ModelTurn, as_turn, cut_at_token_limit
from jdsl.signature import Signature, render_prompt
from jdsl.tree.index_bounds import bounded_schema, index_sizes
from jdsl.tree.signed import SignedLeaf
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.tree.base import Node
    from jdsl.tree.context import RunContext

__all__ = ["Predict", "read_inputs", "response_schema"]


def response_schema(sig: Signature, sizes: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The JSON schema a Predict asks a ``structured_outputs`` model for: one object holding
    every output (which :meth:`Signature.parse_output` unwraps), or for a single ``dict``
    output, that output's own schema.

    ``sizes`` (``{output: length}``) holds an ``int`` or ``list[int]`` output that indexes a
    list of that length to its indexes (:func:`jdsl.tree.index_bounds.bounded_schema`).
    """
    if len(sig.outputs) == 1 and sig.outputs[0].type == "dict":
        return sig.output_schema(sig.outputs[0].name)
    sizes = sizes or {}
    return {
        "type": "object",
        "properties": {
            f.name: bounded_schema(sig.output_schema(f.name), sizes[f.name])
            if f.name in sizes
            else sig.output_schema(f.name)
            for f in sig.outputs
        },
        "required": list(sig.output_names),
        "additionalProperties": False,
    }


def read_inputs(
    node: Node, sig: Signature, sources: dict[str, str], ctx: RunContext
) -> dict[str, Any]:
    """Each input field's value: from ``sources[field]`` (default the field name).

    A leading ``blackboard.`` is dropped from a source path. Values are recorded as reads of
    ``node``. A key that is not on the blackboard at all reads as None: the static check
    (:func:`jdsl.tree.check.check_tree`) has stopped a run where no node writes it, no input
    gives it and no ``guard exists`` tests it, so it is one a branch not taken would have
    written. A key that is there but a path into it that does not resolve (``customer.name``
    of a customer without a name) raises: nobody provided that value, and it is never sent as
    ``null``.

    Raises:
        RefError: a path into a key on the blackboard does not resolve.
    """
    values: dict[str, Any] = {}
    board = ctx.blackboard
    for name in sig.input_names:
        path = sources.get(name, name)
        path = path[len("blackboard.") :] if path.startswith("blackboard.") else path
        first = path.split(".")[0].split("[")[0]
        absent = path not in board and first not in board
        values[name] = None if absent else ctx.read(path, node)
    return values


def missing_inputs(sig: Signature, sources: dict[str, str], ctx: RunContext) -> list[str]:
    """The keys the input fields read that are run inputs nobody gave
    (:attr:`RunContext.missing_inputs`): outside a selector the static check stops such a
    run; inside one (a compiled package's program under its fallback) the predict fails on
    them, so the next alternative takes over and no model is ever sent ``null`` for them."""
    missing = []
    for name in sig.input_names:
        path = sources.get(name, name).removeprefix("blackboard.")
        first = path.split(".")[0].split("[")[0]
        if first in ctx.missing_inputs and first not in ctx.blackboard:
            missing.append(first)
    return list(dict.fromkeys(missing))


class Predict(SignedLeaf):
    """Ask the model once for the signature's outputs and write them to the blackboard.

    Stateless: one user message per call, holding the rendered prompt; the system prompt is the
    ContextWindow. One output: the stripped reply is the value. Several: one JSON object.
    A model whose ``structured_outputs`` is true (a ``local:`` model, an OpenAI-compatible
    server asked so) is given :func:`response_schema`, so its decoding is held to the output
    types. Outputs are validated and coerced (:meth:`Signature.parse_output`) and written only
    when all validate; otherwise FAILURE with the reason in ``ctx.failure`` and ``model.responded``.
    A model whose ``converse`` returns neither a ModelTurn nor a str raises
    :class:`~jdsl.errors.ModelOutputError`.

    Attributes:
        signature: e.g. ``"request, orders -> selected_index: int"``.
        instructions: the task text (first line of the prompt).
        examples: ``[{"input": {...}, "output": {...}}]`` shown before the inputs.
        input_sources: ``{input field: path}`` when a field is read from elsewhere.
    """

    kind: Literal["predict"] = "predict"
    instructions: str | None = None
    examples: list[dict[str, Any]] | None = None
    input_sources: dict[str, str] | None = None

    @property
    def label(self) -> str:
        return f"predict({self.arrow})"

    def _tick(self, ctx: RunContext) -> Status:
        model = ctx.require_model()
        sig = self.parsed
        missing = missing_inputs(sig, self.input_sources or {}, ctx) if ctx.missing_inputs else []
        if missing:
            keys = ", ".join(missing)
            return ctx.fail(
                self,
                f"reads {keys}, which no node writes and the run's inputs do not give; give "
                f"{keys} as a run input",
            )
        inputs = read_inputs(self, sig, self.input_sources or {}, ctx)
        prompt = render_prompt(sig, inputs, self.instructions, self.examples or ())
        system = ctx.window.system
        messages = [Message.user(prompt)]
        request = None
        if ctx.tracing:
            request = ctx.emit(
                "model.requested", self._request(ctx, system, messages, inputs, prompt)
            )
        started = time.perf_counter()
        try:
            if getattr(model, "structured_outputs", False) is True:
                lists = ctx.index_lists
                sizes = index_sizes(sig.output_names, lists, ctx.blackboard) if lists else None
                schema = response_schema(sig, sizes)
                turn = model.converse(system, messages, (), ctx.model_id, response_schema=schema)
            else:
                turn = model.converse(system, messages, (), ctx.model_id)
        except Exception as exc:
            self._respond(
                ctx, request, started, None, status="error", error=f"{type(exc).__name__}: {exc}"
            )
            raise
        turn = as_turn(model, turn)
        try:
            outputs = sig.parse_output(turn.text)
        except ModelOutputError as exc:
            said = cut_at_token_limit(turn) or str(exc)  # the cause, not its symptom
            self._respond(ctx, request, started, turn, status="failure", error=said)
            return ctx.fail(self, said)
        self._respond(ctx, request, started, turn, status="success", parsed=outputs)
        for key, value in outputs.items():
            ctx.write(key, value, self)
        return Status.SUCCESS

    def _request(
        self,
        ctx: RunContext,
        system: str,
        messages: list[Message],
        inputs: dict[str, Any],
        prompt: str,
    ) -> dict[str, Any]:
        sig = self.parsed
        return {
            "node_id": self.effective_id,
            "kind": "predict",
            "signature": str(sig),
            "model_id": ctx.model_id,
            "system": system,
            "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in messages],
            "tools": [],
            "input_fields": list(sig.input_names),
            "inputs": inputs,
            "output_fields": list(sig.output_names),
            "outputs": [{"name": f.name, "schema": sig.output_schema(f.name)} for f in sig.outputs],
            "prompt": prompt,
        }

    def _respond(
        self,
        ctx: RunContext,
        request: Any,
        started: float,
        turn: ModelTurn | None,
        *,
        status: str,
        parsed: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        if not ctx.tracing:
            return
        payload: dict[str, Any] = {
            "node_id": self.effective_id,
            "kind": "predict",
            "model_id": ctx.model_id,
            "raw_output": turn.text if turn is not None else None,
            "tool_calls": [],
            "usage": turn.usage.model_dump() if turn is not None and turn.usage else None,
            "finish_reason": turn.finish_reason if turn is not None else None,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
            "parsed_output": parsed,
            "status": status,
            "error": error,
        }
        ctx.emit("model.responded", payload, parent_event_id=getattr(request, "event_id", None))
