"""Behavior IR: the JSON form of a tree, its schema and its structural validation.

A tree's IR is ``{"format": "jdsl.behavior.v1", "root": <root node dict>}`` where each node
dict is the node's pydantic dump (docs/design.md §2). :func:`validate_ir` lists every problem of a
document; :func:`from_ir` loads one into node objects.
"""

from __future__ import annotations

from jdsl.ir.format import (
    BEHAVIOR_FORMAT,
    BehaviorDocument,
    from_ir,
    ir_digest,
    ir_json_schema,
    load_stored_schema,
    to_ir,
    write_stored_schema,
)
from jdsl.ir.validate import MAX_REPEAT, ValidationReport, validate_ir
from jdsl.ir.walk import NODE_FIELDS, transform_ir

__all__ = [
    "BEHAVIOR_FORMAT",
    "MAX_REPEAT",
    "NODE_FIELDS",
    "BehaviorDocument",
    "ValidationReport",
    "from_ir",
    "ir_digest",
    "ir_json_schema",
    "load_stored_schema",
    "to_ir",
    "transform_ir",
    "validate_ir",
    "write_stored_schema",
]
