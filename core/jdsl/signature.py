"""DSPy-style typed signatures: ``"request, orders -> selected_index: int"`` (docs/design.md §4).

A signature names the blackboard fields a model leaf reads (inputs) and writes (outputs).
Output types: ``str`` (default), ``int``, ``float``, ``bool``, ``list[T]``, ``dict``,
``Literal["a", "b"]``. Model output is validated and coerced with pydantic before anything is
written (:meth:`Signature.parse_output`); a leaf writes only after all its outputs validate.

Reading a reply (:meth:`Signature.parse_output`): several outputs need one JSON object (a
Markdown code fence around it and prose around it are tolerated). One output is the stripped
reply itself, after two unwrappings models commonly add: a reply wrapped whole in a code fence
(three backticks, an optional language tag, the body, three backticks) is its body, and a JSON
object whose only key is the output's name (``{"n": 7}`` for ``-> n: int``) is that key's
value, except for a ``dict`` output, whose value is the object itself (and for a ``str``
output a non-string value is kept as its JSON text).

Example:
    >>> sig = Signature.parse("request, orders -> selected_index: int")
    >>> sig.parse_output(" 1 ")
    {'selected_index': 1}
    >>> str(sig)
    'request, orders -> selected_index: int'
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model
from pydantic import Field as PydanticField
from pydantic import ValidationError as PydanticValidationError

from jdsl.errors import ModelOutputError, SignatureError

__all__ = ["Field", "Signature", "render_prompt"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SCALARS: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool}
_TYPE_WORDS = {
    "str": "text",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "dict": "a JSON object",
}


@dataclass(frozen=True)
class Field:
    """One signature field.

    Attributes:
        name: the blackboard key (a Python identifier).
        type: canonical type text (``str``, ``int``, ``list[int]``, ``Literal["a", "b"]``...).
    """

    name: str
    type: str = "str"

    @cached_property
    def annotation(self) -> Any:
        """The Python type the text stands for."""
        return _annotation(self.type, self.type)

    def __str__(self) -> str:
        return self.name if self.type == "str" else f"{self.name}: {self.type}"


@dataclass(frozen=True)
class Signature:
    """A parsed signature. Build it with :meth:`parse`; ``str(sig)`` is the canonical text.

    Attributes:
        inputs: the input fields (their types are informative only).
        outputs: the output fields, at least one.
        text: the text it was parsed from.
    """

    inputs: tuple[Field, ...]
    outputs: tuple[Field, ...]
    text: str = field(default="", compare=False)

    @staticmethod
    def parse(text: str) -> Signature:
        """Parse ``"a, b -> c: int, d"`` (linear in the length of ``text``).

        Raises:
            SignatureError: no ``->``, no output, a bad field name, a repeated name, an
                unknown type, or ``list[...]`` nested deeper than :data:`MAX_TYPE_DEPTH`.
        """
        if isinstance(text, Signature):
            return text
        if not isinstance(text, str) or "->" not in text:
            raise SignatureError(
                f"signature {_short(text)} must contain '->', e.g. \"question -> answer\"",
                signature=str(text),
            )
        return _parse(text)

    def __str__(self) -> str:
        left = ", ".join(str(f) for f in self.inputs)
        right = ", ".join(str(f) for f in self.outputs)
        return f"{left} -> {right}" if left else f"-> {right}"

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.inputs)

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.outputs)

    def output_schema(self, name: str) -> dict[str, Any]:
        """The JSON Schema of output ``name``.

        Raises:
            SignatureError: no such output.
        """
        for f in self.outputs:
            if f.name == name:
                return TypeAdapter(f.annotation).json_schema()
        raise SignatureError(
            f"signature {str(self)!r} has no output {name!r}; outputs: {list(self.output_names)}",
            signature=str(self),
        )

    @cached_property
    def _output_model(self) -> type[BaseModel]:
        """A model whose fields ``o0, o1 ...`` are aliased to the output names: pydantic keeps a
        field named ``_x`` private (an imported call argument ``_raw_arguments`` is one)."""
        fields: dict[str, Any] = {
            f"o{i}": (f.annotation, PydanticField(alias=f.name)) for i, f in enumerate(self.outputs)
        }
        return create_model(  # type: ignore[call-overload,no-any-return]
            "Outputs", __config__=ConfigDict(extra="ignore", str_strip_whitespace=True), **fields
        )

    def validate_outputs(self, values: Mapping[str, Any], *, raw: str = "") -> dict[str, Any]:
        """Validate and coerce output values with pydantic.

        Args:
            values: ``{output name: value}``; extra keys are ignored.
            raw: the model text they came from (kept on the error).

        Returns:
            ``{output name: coerced value}`` for every output, in signature order.

        Raises:
            ModelOutputError: a missing output or a value of the wrong type, naming the field.
        """
        missing = [n for n in self.output_names if n not in values]
        if missing:
            raise ModelOutputError(
                f"model output is missing {missing}; expected keys {list(self.output_names)}",
                raw=raw,
                field=missing[0],
            )
        try:
            model = self._output_model.model_validate(dict(values))
        except PydanticValidationError as exc:
            err = exc.errors()[0]
            name = str(err["loc"][0]) if err["loc"] else None
            types = {f.name: f.type for f in self.outputs}
            got = repr(err.get("input"))
            got = got if len(got) <= 80 else got[:77] + "..."
            raise ModelOutputError(
                f"output {name}: {got} is not a valid {types.get(name or '', 'value')} "
                f"({err['msg']})",
                raw=raw,
                field=name,
            ) from None
        return {n: getattr(model, f"o{i}") for i, n in enumerate(self.output_names)}

    def parse_output(self, text: str) -> dict[str, Any]:
        """Parse a model's reply into validated outputs.

        One output: the stripped text is the value (a non-text type is parsed from it, JSON
        first for lists and dicts), after unwrapping a whole-reply code fence and a JSON object
        whose only key is the output (not for a ``dict`` output); see the module docstring.
        Several outputs: one JSON object holding every key.

        Raises:
            ModelOutputError: empty output, unparseable JSON, or a value that does not validate.
        """
        stripped = (text or "").strip()
        if not stripped:
            raise ModelOutputError("empty model output", raw=text or "")
        if len(self.outputs) == 1:
            only = self.outputs[0]
            value: Any = _unwrap_single(only, stripped)
            if isinstance(value, str) and only.type.startswith(("list", "dict")):
                value = _json_value(value, raw=text)
            return self.validate_outputs({only.name: value}, raw=text)
        obj = _json_value(stripped, raw=text, want_object=True)
        return self.validate_outputs(obj, raw=text)


MAX_TYPE_DEPTH = 16
"""The deepest ``list[list[...]]`` nesting a signature type may have."""


@lru_cache(maxsize=512)
def _parse(text: str) -> Signature:
    left, right = text.split("->", 1)
    inputs = tuple(_field(item, text) for item in _split(left))
    outputs = tuple(_field(item, text) for item in _split(right))
    if not outputs:
        raise SignatureError(
            f"signature {_short(text)} declares no output fields; name one after '->'",
            signature=text,
        )
    counts = Counter(f.name for f in inputs + outputs)
    repeated = sorted(n for n, k in counts.items() if k > 1)
    if repeated:
        raise SignatureError(
            f"signature {_short(text)} repeats field name(s) {repeated[:10]}; each name "
            "appears once",
            signature=text,
        )
    return Signature(inputs, outputs, text)


def _short(text: object, limit: int = 80) -> str:
    """``repr(text)`` cut to ``limit`` characters, so a huge signature never floods a message."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _split(side: str) -> list[str]:
    """Split on commas outside brackets and quotes; drop empty items."""
    items: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for ch in side:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    items.append("".join(current).strip())
    return [item for item in items if item]


def _field(item: str, text: str) -> Field:
    name, _, type_text = item.partition(":")
    name = name.strip()
    if not _NAME.match(name):
        raise SignatureError(
            f"signature {_short(text)}: field {_short(name, 40)} is not a valid name "
            "(letters, digits, _)",
            signature=text,
        )
    type_text = _canonical_type(type_text.strip() or "str", text)
    return Field(name, type_text)


def _canonical_type(type_text: str, text: str, depth: int = 0) -> str:
    compact = re.sub(r"\s+", "", type_text)
    if compact in _SCALARS or compact in ("dict", "list"):
        return compact
    if compact.startswith("list[") and compact.endswith("]"):
        if depth >= MAX_TYPE_DEPTH:
            raise SignatureError(
                f"signature {_short(text)}: list[...] nests deeper than {MAX_TYPE_DEPTH}",
                signature=text,
            )
        inner = _canonical_type(type_text.strip()[5:-1].strip(), text, depth + 1)
        return f"list[{inner}]"
    if compact.startswith("dict[") and compact.endswith("]"):
        return "dict"
    if compact.startswith("Literal[") and compact.endswith("]"):
        values = _literal_values(type_text.strip()[8:-1], text)
        return "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"
    raise SignatureError(
        f"signature {_short(text)}: unknown type {_short(type_text, 40)}; use str, int, float, "
        'bool, list[T], dict or Literal["a", "b"]',
        signature=text,
    )


def _literal_values(inner: str, text: str) -> list[Any]:
    try:
        values = json.loads("[" + inner.replace("'", '"') + "]")
    except ValueError:  # JSONDecodeError, or an int over Python's digit limit
        values = None
    if not values or not all(isinstance(v, str | int | bool) for v in values):
        raise SignatureError(
            f"signature {_short(text)}: Literal[...] takes JSON strings or numbers, "
            'e.g. Literal["a", "b"]',
            signature=text,
        )
    return list(values)


def _annotation(type_text: str, text: str) -> Any:
    if type_text in _SCALARS:
        return _SCALARS[type_text]
    if type_text == "dict":
        return dict[str, Any]
    if type_text == "list":
        return list[Any]
    if type_text.startswith("list["):
        return list[_annotation(type_text[5:-1], text)]  # type: ignore[misc]
    values = tuple(_literal_values(type_text[8:-1], text))
    return Literal.__getitem__(values)


_FENCED = re.compile(r"^```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)\n?[ \t]*```$", re.DOTALL)


def _unwrap_single(only: Field, stripped: str) -> Any:
    """The reply of a one-output signature without its fence and ``{"<name>": ...}`` wrapper.

    Returns the fence body (text), or the wrapped JSON value, or ``stripped`` unchanged.
    """
    fenced = _FENCED.match(stripped)
    body = fenced.group(1).strip() if fenced else stripped
    if only.type != "dict" and body.startswith("{") and f'"{only.name}"' in body:
        try:
            obj = json.loads(body)
        except json.JSONDecodeError:
            return body
        if isinstance(obj, dict) and list(obj) == [only.name]:
            value = obj[only.name]
            if only.type == "str" and not isinstance(value, str):
                return json.dumps(value, ensure_ascii=False, sort_keys=True)
            return value
    return body


def _json_value(stripped: str, *, raw: str, want_object: bool = False) -> Any:
    body = re.sub(r"^```[A-Za-z]*\s*|\s*```$", "", stripped)
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        match = re.search(r"\{.*\}", body, re.DOTALL) if want_object else None
        try:
            value = json.loads(match.group(0)) if match else None
        except json.JSONDecodeError:
            value = None
        if value is None:
            raise ModelOutputError("model output is not parseable JSON", raw=raw) from None
    if want_object and not isinstance(value, dict):
        raise ModelOutputError(
            f"model output is JSON but not an object (got {type(value).__name__})", raw=raw
        )
    return value


def _describe(f: Field) -> str:
    if f.type in _TYPE_WORDS:
        return _TYPE_WORDS[f.type]
    if f.type.startswith("Literal["):
        return "one of " + f.type[8:-1]
    return f"a JSON list ({f.type})"


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def render_prompt(
    signature: Signature | str,
    inputs: Mapping[str, Any],
    instructions: str | None = None,
    examples: Sequence[Mapping[str, Any]] = (),
    react: bool = False,
) -> str:
    """The one user message a predict (or react) leaf sends.

    Lines: the instructions; ``Examples:`` with ``Input:``/``Output:`` JSON lines; ``Given these
    inputs:`` with one ``- name: value`` line each (strings as is, others as sorted JSON);
    then the answer format (docs/design.md appendix A). A react prompt asks for the final answer
    the same way: plain text for one output, one JSON object holding every key for several.
    """
    sig = Signature.parse(signature) if isinstance(signature, str) else signature
    lines: list[str] = [instructions.strip()] if instructions and instructions.strip() else []
    if examples:
        lines.append("Examples:")
        for example in examples:
            lines.append("Input: " + json.dumps(example.get("input"), sort_keys=True, default=str))
            lines.append(
                "Output: " + json.dumps(example.get("output"), sort_keys=True, default=str)
            )
    if sig.inputs:
        lines.append("Given these inputs:")
        lines.extend(f"- {f.name}: {_show(inputs.get(f.name))}" for f in sig.inputs)
    if react and len(sig.outputs) == 1:
        out = sig.outputs[0]
        lines.append(
            "Use the available tools as needed, then give your final answer "
            f"({out.name}, {_describe(out)}) as plain text."
        )
    elif react:
        keys = ", ".join(f"{f.name} ({_describe(f)})" for f in sig.outputs)
        lines.append(
            "Use the available tools as needed, then give your final answer as ONLY a JSON "
            f"object containing exactly these keys: {keys}. No prose, no code fences."
        )
    elif len(sig.outputs) == 1:
        out = sig.outputs[0]
        lines.append(
            f"Provide {out.name} ({_describe(out)}) as your entire response — "
            "no preamble, no labels, no JSON."
            if out.type == "str" or not out.type.startswith(("list", "dict"))
            else f"Provide {out.name} ({_describe(out)}) as your entire response, as JSON only."
        )
    else:
        keys = ", ".join(f"{f.name} ({_describe(f)})" for f in sig.outputs)
        lines.append(
            f"Respond with ONLY a JSON object containing exactly these keys: {keys}. "
            "No prose, no code fences."
        )
    return "\n".join(lines)
