"""Residualize: what stays a model decision becomes a typed signature and a model leaf.

The compiler's bias (docs/design.md appendix B §6): deterministic refs, guards and actions
first; only genuine judgment is left to a model, as a predict leaf with a typed signature.
Naming and wording are offline heuristics (:class:`HeuristicCompilerModel`); an optional model
only rewords instructions (:class:`LLMCompilerModel`), never structure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from jdsl.compiler.normalized import ModelDecision
from jdsl.signature import Signature

__all__ = [
    "SIGNATURE_FORMAT",
    "CompilerModel",
    "HeuristicCompilerModel",
    "LLMCompilerModel",
    "Residual",
    "as_compiler_model",
    "infer_type",
    "residualize_argument",
    "residualize_decision",
    "residualize_route",
]

SIGNATURE_FORMAT = "jdsl.signature.v1"
_MAX_EXAMPLES = 3


@dataclass(frozen=True)
class Residual:
    """A model decision left in the compiled behavior.

    Attributes:
        node: the IR leaf (predict), with ``id``.
        signature: the ``signatures/<id>.json`` record (typed inputs, outputs, instructions).
        outputs: the blackboard keys it writes.
    """

    node: dict[str, Any]
    signature: dict[str, Any]
    outputs: tuple[str, ...]


@runtime_checkable
class CompilerModel(Protocol):
    """What the compiler asks of a (heuristic or LLM) compiler model."""

    name: str

    def word_instruction(self, signature: str, samples: Sequence[dict[str, Any]]) -> str:
        """One short instruction for a model answering ``signature``."""
        ...


class HeuristicCompilerModel:
    """Offline naming and wording: deterministic, no model call."""

    name = "heuristic"

    def word_instruction(self, signature: str, samples: Sequence[dict[str, Any]]) -> str:
        sig = Signature.parse(signature)
        out = sig.outputs[0]  # the verb follows the first output; every output is named
        words = out.name.replace("_", " ")
        lowered = out.name.lower()
        if any(k in lowered for k in ("index", "select", "target", "choice")):
            verb = "Choose"
        elif any(k in lowered for k in ("intent", "category", "class", "label")):
            verb = "Classify"
        elif lowered.startswith(("is_", "has_")) or "confirm" in lowered:
            verb = "Determine"
            if lowered.startswith(("is_", "has_")):
                verb_word, _, rest = words.partition(" ")
                words = f"whether it {verb_word} {rest}"
        else:
            verb = "Produce"
        text = f"{verb} {words}" if words.startswith("whether") else f"{verb} the {words}"
        text += "".join(f" and the {f.name.replace('_', ' ')}" for f in sig.outputs[1:])
        if sig.inputs:
            text += " from " + ", ".join(f.name.replace("_", " ") for f in sig.inputs)
        text += "."
        if out.type == "int" and "index" in lowered:
            text += " Answer with its 0-based index."
        return text


class LLMCompilerModel:
    """Words instructions with a chat model; falls back to the heuristic on any problem.

    Args:
        model: any object with ``converse(system, messages, tools, model_id)``.
        model_id: passed to ``converse``.
    """

    def __init__(self, model: Any, *, model_id: str | None = None) -> None:
        self.model = model
        self.model_id = model_id
        self.name = f"llm:{model_id or type(model).__name__}"
        self._fallback = HeuristicCompilerModel()

    def word_instruction(self, signature: str, samples: Sequence[dict[str, Any]]) -> str:
        from jdsl.providers.messages import Message

        prompt = (
            f"Write one instruction (at most 25 words) for a model that answers the signature "
            f"{signature!r}. Examples of recorded answers: {json.dumps(list(samples)[:2])}. "
            'Reply with JSON only: {"instruction": "..."}'
        )
        try:
            turn = self.model.converse("", [Message.user(prompt)], (), self.model_id)
            text = getattr(turn, "text", turn)
            match = re.search(r"\{.*\}", str(text), re.S)
            found = json.loads(match.group(0))["instruction"] if match else ""
        except Exception:  # noqa: BLE001 - wording is optional; any failure falls back
            found = ""
        found = str(found).strip()
        if not found or len(found.split()) > 40:
            return self._fallback.word_instruction(signature, samples)
        return found


def as_compiler_model(model: Any) -> CompilerModel:
    """None -> heuristic; a :class:`CompilerModel` as is; a chat model -> LLM wording."""
    if model is None:
        return HeuristicCompilerModel()
    if isinstance(model, CompilerModel):
        return model
    return LLMCompilerModel(model)


def infer_type(values: Sequence[Any]) -> str:
    """The signature type that fits every observed value (``str`` when unsure).

    >>> infer_type([1, 2]), infer_type([True]), infer_type(["a", 1]), infer_type([[1], [2]])
    ('int', 'bool', 'str', 'list[int]')
    """
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return "bool"
    if kinds == {int}:
        return "int"
    if kinds and kinds <= {int, float}:
        return "float"
    if kinds == {dict}:
        return "dict"
    if kinds == {list}:
        items = [item for v in values for item in v]
        return f"list[{infer_type(items)}]" if items else "list[str]"
    return "str"


def residualize_decision(
    decision: ModelDecision,
    *,
    node_id: str,
    samples: Sequence[ModelDecision] = (),
    model: CompilerModel | None = None,
) -> Residual:
    """A predict leaf for a recorded decision (a react's answer becomes a predict too).

    Args:
        decision: the decision in the representative episode.
        node_id: the id the leaf gets (unique in the compiled tree).
        samples: the same decision in other successful episodes (for types and examples).
        model: words the instruction when the teacher gave none.
    """
    observed = [decision, *samples]
    signature = _typed_signature(decision, observed)
    examples = _examples(observed, signature)
    instructions = decision.instructions or (model or HeuristicCompilerModel()).word_instruction(
        str(signature), [e["output"] for e in examples]
    )
    node: dict[str, Any] = {
        "kind": "predict",
        "id": node_id,
        "signature": str(signature),
        "instructions": instructions,
    }
    if decision.input_sources:
        node["input_sources"] = dict(decision.input_sources)
    record = _record(node_id, signature, instructions, decision.kind, decision.tools, examples)
    return Residual(node, record, signature.output_names)


def residualize_argument(
    *,
    node_id: str,
    output: str,
    values: Sequence[Any],
    inputs: Sequence[str],
    model: CompilerModel | None = None,
    note: str = "",
) -> Residual:
    """A predict leaf for a tool argument a model chose and nothing deterministic explains
    (or for the indexes that select a list argument's elements).

    Args:
        node_id: the leaf's id.
        output: the blackboard key the answer goes to (the action refs it).
        values: the argument's recorded values (their type types the output).
        inputs: what the model reads: ``conversation`` or run inputs, then state keys.
        note: a sentence added to the instruction (e.g. what the indexes index).
    """
    left = ", ".join(dict.fromkeys(inputs))
    signature = Signature.parse(f"{left} -> {output}: {infer_type(values)}".strip())
    samples = [{output: v} for v in values[:_MAX_EXAMPLES]]
    instructions = (model or HeuristicCompilerModel()).word_instruction(str(signature), samples)
    instructions = f"{instructions} {note}".strip()
    return _predict_residual(node_id, signature, instructions)


def residualize_route(
    *,
    node_id: str,
    output: str,
    routes: Sequence[tuple[str, str]],
    inputs: Sequence[str],
) -> Residual:
    """A predict leaf choosing between branch alternatives the teacher selected without
    evaluating a condition: ``inputs -> route: Literal["cancel", "escalate"]``.

    Args:
        node_id: the leaf's id.
        output: the blackboard key the answer goes to (each alternative checks it).
        routes: ``(value, what the alternative does)`` per alternative, in selector order.
        inputs: what the model may read (run inputs and earlier results).
    """
    choices = ", ".join(json.dumps(value) for value, _ in routes)
    signature = Signature.parse(f"{', '.join(inputs)} -> {output}: Literal[{choices}]".strip())
    paths = "; ".join(f"{value}: {what}" for value, what in routes)
    instructions = f"Choose the path to take ({paths}). Answer with its name only."
    return _predict_residual(node_id, signature, instructions)


def _predict_residual(node_id: str, signature: Signature, instructions: str) -> Residual:
    """A predict leaf (no examples, no input sources) with its residual record."""
    node = {
        "kind": "predict",
        "id": node_id,
        "signature": str(signature),
        "instructions": instructions,
    }
    record = _record(node_id, signature, instructions, "predict", (), [])
    return Residual(node, record, signature.output_names)


def _typed_signature(decision: ModelDecision, observed: Sequence[ModelDecision]) -> Signature:
    sig = Signature.parse(decision.signature)
    outputs = []
    for f in sig.outputs:
        type_ = f.type
        if type_ == "str":
            values = [d.outputs.get(f.name) for d in observed if f.name in d.outputs]
            type_ = infer_type(values) if values else "str"
        outputs.append(f"{f.name}: {type_}" if type_ != "str" else f.name)
    left = ", ".join(str(f) for f in sig.inputs)
    return Signature.parse(f"{left} -> {', '.join(outputs)}")


def _examples(observed: Sequence[ModelDecision], sig: Signature) -> list[dict[str, Any]]:
    """Distinct recorded outputs (inputs are listed by name only: they can be large)."""
    seen: set[str] = set()
    found: list[dict[str, Any]] = []
    for d in observed:
        output = {k: d.outputs[k] for k in sig.output_names if k in d.outputs}
        key = json.dumps(output, sort_keys=True, default=str)
        if d.ok and output and key not in seen:
            seen.add(key)
            found.append({"output": output})
        if len(found) >= _MAX_EXAMPLES:
            break
    return found


def _record(
    node_id: str,
    sig: Signature,
    instructions: str,
    kind: str,
    tools: Sequence[str],
    examples: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "format": SIGNATURE_FORMAT,
        "id": node_id,
        "kind": "predict",
        "origin": kind,
        "signature": str(sig),
        "inputs": [{"name": f.name, "type": f.type} for f in sig.inputs],
        "outputs": [
            {"name": f.name, "type": f.type, "schema": sig.output_schema(f.name)}
            for f in sig.outputs
        ],
        "instructions": instructions,
        "tools": list(tools),
        "recorded_outputs": examples,
    }
