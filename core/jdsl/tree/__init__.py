"""The behavior tree: node classes (which are the Behavior IR), blackboard, run context.

See docs/design.md §2 and docs/ARCHITECTURE.md ("Nodes are the IR", "Runs").
"""

from jdsl.tree.base import Node
from jdsl.tree.blackboard import INPUT_WRITER, Blackboard, Read, Write
from jdsl.tree.composites import Selector, Sequence
from jdsl.tree.context import Bindings, ContextWindow, Failure, RunContext
from jdsl.tree.decorators import Decorator, Invert, OneShot, Optional, Repeat, Timeout
from jdsl.tree.ids import assign_runtime_ids
from jdsl.tree.leaves import (
    RETURNED_FAILURE,
    Action,
    Check,
    Guard,
    GuardCall,
    lenient_equal,
    typed_equal,
)
from jdsl.tree.loops import ForEach
from jdsl.tree.nodes import NODE_CLASSES, AnyNode
from jdsl.tree.predict import Predict
from jdsl.tree.react import React
from jdsl.tree.root import Root
from jdsl.tree.scope import Abandoned, ScopedContext
from jdsl.tree.status import Status
from jdsl.tree.takeover import Takeover

__all__ = [
    "INPUT_WRITER",
    "NODE_CLASSES",
    "Abandoned",
    "RETURNED_FAILURE",
    "Action",
    "AnyNode",
    "Bindings",
    "Blackboard",
    "Check",
    "ContextWindow",
    "Decorator",
    "Failure",
    "ForEach",
    "Guard",
    "GuardCall",
    "Invert",
    "Node",
    "OneShot",
    "Optional",
    "Predict",
    "React",
    "Read",
    "Repeat",
    "Root",
    "RunContext",
    "ScopedContext",
    "Selector",
    "Sequence",
    "Status",
    "Takeover",
    "Timeout",
    "Write",
    "assign_runtime_ids",
    "lenient_equal",
    "typed_equal",
]
