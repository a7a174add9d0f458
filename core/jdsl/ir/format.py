"""The Behavior IR document: ``{"format": "jdsl.behavior.v1", "root": <root node dict>}``.

The node classes of :mod:`jdsl.tree` are the IR (DESIGN.md §2): a node's IR is
``node.model_dump(mode="json", exclude_none=True)`` and loading is pydantic validation of the
discriminated union on ``kind``. This module adds the envelope, its JSON Schema and a digest.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticValidationError

from jdsl.errors import ValidationError
from jdsl.expr import preview
from jdsl.ir.nodes import MAX_NODE_DEPTH, nesting_problem
from jdsl.ir.walk import child_slots
from jdsl.trace.canonical import canonical_json
from jdsl.tree import Root

__all__ = [
    "BEHAVIOR_FORMAT",
    "SCHEMA_FILE",
    "BehaviorDocument",
    "from_ir",
    "ir_digest",
    "ir_json_schema",
    "load_stored_schema",
    "to_ir",
    "write_stored_schema",
]

BEHAVIOR_FORMAT: Final = "jdsl.behavior.v1"
"""The format tag every Behavior IR document carries."""

SCHEMA_FILE = "behavior.schema.json"
"""The checked-in JSON Schema, beside this module (kept current by a test)."""


class BehaviorDocument(BaseModel):
    """The envelope of a ``behavior.json`` file."""

    model_config = ConfigDict(extra="forbid", title="jdsl Behavior IR")

    format: Literal["jdsl.behavior.v1"] = BEHAVIOR_FORMAT
    root: Root


def to_ir(tree: Root) -> dict[str, Any]:
    """Serialize a tree to its Behavior IR document.

    Args:
        tree: the root node.

    Returns:
        ``{"format": "jdsl.behavior.v1", "root": {...}}``; JSON-able, bound callables omitted.

    Raises:
        TypeError: when ``tree`` is not a :class:`jdsl.tree.Root`.

    Example:
        >>> from jdsl.dsl import act, ref, root
        >>> to_ir(root("demo").do(act("lookup", email=ref("email"))))["root"]["child"]
        {'kind': 'action', 'tool': 'lookup', 'args': {'email': {'ref': 'email'}}}
    """
    if not isinstance(tree, Root):
        raise TypeError(
            f"to_ir needs a Root, got {type(tree).__name__}; wrap the node with root(NAME).do(node)"
        )
    return {"format": BEHAVIOR_FORMAT, "root": tree.model_dump(mode="json", exclude_none=True)}


def from_ir(data: dict[str, Any]) -> Root:
    """Load a tree from a Behavior IR document (tools and predicates still unbound).

    Args:
        data: a ``{"format", "root"}`` dict, as read from ``behavior.json``.

    Returns:
        The root node; bind callables with ``Root.bind(tools=..., predicates=...)``.

    Raises:
        ValidationError: a wrong format tag or a node that does not validate; every problem
            is listed with its location (``root.child.children.1.tool: Field required``).
    """
    if not isinstance(data, dict):
        raise ValidationError([f"the IR must be a JSON object, got {type(data).__name__}"])
    if data.get("format") != BEHAVIOR_FORMAT:
        raise ValidationError(
            [f"format is {preview(data.get('format'))}; this jdsl reads {BEHAVIOR_FORMAT!r}"]
        )
    too_deep = nesting_problem(data) or _node_depth_problem(data.get("root"))
    if too_deep:
        raise ValidationError([too_deep])
    try:
        return BehaviorDocument.model_validate(data).root
    except PydanticValidationError as exc:
        raise ValidationError(
            [f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in exc.errors()]
        ) from None


def _node_depth_problem(root: Any) -> str | None:
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NODE_DEPTH:
            return f"nodes nest deeper than {MAX_NODE_DEPTH} levels"
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in child_slots(node))
    return None


def ir_digest(ir: dict[str, Any]) -> str:
    """The sha256 hex digest of the IR's canonical JSON (:func:`jdsl.trace.canonical_json`:
    sorted keys, no insignificant whitespace, UTF-8 kept; stable across key order)."""
    return hashlib.sha256(canonical_json(ir).encode("utf-8")).hexdigest()


def ir_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a Behavior IR document, generated from the nodes."""
    schema = BehaviorDocument.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://jdsl.dev/schemas/{BEHAVIOR_FORMAT}.json"
    return schema


def load_stored_schema() -> dict[str, Any]:
    """The checked-in ``behavior.schema.json`` (package data)."""
    text = resources.files("jdsl.ir").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return dict(json.loads(text))


def write_stored_schema() -> Path:
    """Regenerate the checked-in ``behavior.schema.json`` from the node classes.

    Run ``python -c "from jdsl.ir import write_stored_schema; write_stored_schema()"`` after
    changing a node's fields; a test fails while the stored file is stale.
    """
    path = Path(__file__).with_name(SCHEMA_FILE)
    text = json.dumps(ir_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return path
