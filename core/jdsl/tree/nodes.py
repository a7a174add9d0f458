"""The node union: every node kind, discriminated by ``kind`` (the Behavior IR's node type).

Importing this module completes the node models (their child fields refer to ``AnyNode``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from jdsl.tree.base import Node
from jdsl.tree.composites import Selector, Sequence
from jdsl.tree.decorators import Decorator, Invert, OneShot, Optional, Repeat, Timeout
from jdsl.tree.leaves import Action, Check, Guard, GuardCall
from jdsl.tree.loops import ForEach
from jdsl.tree.predict import Predict
from jdsl.tree.react import React
from jdsl.tree.root import Root

__all__ = ["NODE_CLASSES", "AnyNode"]

AnyNode = Annotated[
    Sequence
    | Selector
    | Action
    | Predict
    | React
    | Check
    | Guard
    | GuardCall
    | Repeat
    | ForEach
    | Invert
    | Optional
    | OneShot
    | Timeout
    | Root,
    Field(discriminator="kind"),
]
"""Any node, discriminated by ``kind``."""

NODE_CLASSES: dict[str, type[Node]] = {
    cls.model_fields["kind"].default: cls
    for cls in (Root, Sequence, Selector, Action, Predict, React, Check, Guard, GuardCall,
                Repeat, ForEach, Invert, Optional, OneShot, Timeout)
}  # fmt: skip
"""Node kind -> node class."""

_COMPLETED: tuple[type[Node], ...] = (Sequence, Selector, Decorator, *NODE_CLASSES.values())
for _cls in _COMPLETED:
    _cls.model_rebuild(_types_namespace={"AnyNode": AnyNode})
