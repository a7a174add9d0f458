"""jdsl: Jupyter-native behavior trees for LLM agents, and a trace compiler.

Example:
    >>> from jdsl import act, predict, ref, root, seq
    >>> from jdsl.testing import ScriptedModel
    >>> def double(x: int) -> int:
    ...     return 2 * x
    >>> tree = root("demo").do(seq(act(double, x=ref("n")) >> "m", predict("m -> word")))
    >>> ctx = tree.run(model=ScriptedModel("ten"), n=5)
    >>> ctx.blackboard["m"], ctx.blackboard["word"], ctx.blackboard.who_wrote("m")
    (10, 'ten', 'root/sequence.0/action.0')
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from jdsl.lazy import lazy_getattr

if TYPE_CHECKING:
    from jdsl.dsl import (
        Ref,
        act,
        check,
        for_each,
        guard,
        guard_call,
        invert,
        oneshot,
        optional,
        predict,
        react,
        ref,
        repeat,
        root,
        sel,
        seq,
        store,
        timeout,
        tool,
    )
    from jdsl.errors import (
        BehaviorCheckError,
        BindingError,
        JdslError,
        ModelOutputError,
        RefError,
        SignatureError,
        ValidationError,
    )
    from jdsl.interaction.tools import Tool, tool_name, tool_spec
    from jdsl.providers.messages import Message, ModelTurn, ToolCall, ToolSpec, Usage
    from jdsl.signature import Signature
    from jdsl.trace import ListTraceSink, TraceEvent
    from jdsl.tree import (
        Action,
        Bindings,
        Blackboard,
        Check,
        ContextWindow,
        Decorator,
        Failure,
        ForEach,
        Guard,
        GuardCall,
        Invert,
        Node,
        OneShot,
        Optional,
        Predict,
        React,
        Repeat,
        Root,
        RunContext,
        Selector,
        Sequence,
        Status,
        Timeout,
        Write,
        assign_runtime_ids,
    )
    from jdsl.tree.check import CheckReport, Problem

__version__ = "0.1.0"
__all__ = [
    "Action",
    "BehaviorCheckError",
    "Bindings",
    "BindingError",
    "Blackboard",
    "Check",
    "CheckReport",
    "ContextWindow",
    "Decorator",
    "Failure",
    "ForEach",
    "Guard",
    "GuardCall",
    "Invert",
    "JdslError",
    "ListTraceSink",
    "Message",
    "ModelOutputError",
    "ModelTurn",
    "Node",
    "OneShot",
    "Optional",
    "Predict",
    "Problem",
    "React",
    "Ref",
    "RefError",
    "Repeat",
    "Root",
    "RunContext",
    "Selector",
    "Sequence",
    "Signature",
    "SignatureError",
    "Status",
    "Timeout",
    "Tool",
    "ToolCall",
    "ToolSpec",
    "TraceEvent",
    "Usage",
    "ValidationError",
    "Write",
    "__version__",
    "act",
    "assign_runtime_ids",
    "check",
    "for_each",
    "guard",
    "guard_call",
    "invert",
    "oneshot",
    "optional",
    "predict",
    "react",
    "ref",
    "repeat",
    "root",
    "sel",
    "seq",
    "store",
    "timeout",
    "tool",
    "tool_name",
    "tool_spec",
]

_HOME = MappingProxyType(
    {
        "Ref": "jdsl.dsl",
        "act": "jdsl.dsl",
        "check": "jdsl.dsl",
        "for_each": "jdsl.dsl",
        "guard": "jdsl.dsl",
        "guard_call": "jdsl.dsl",
        "invert": "jdsl.dsl",
        "oneshot": "jdsl.dsl",
        "optional": "jdsl.dsl",
        "predict": "jdsl.dsl",
        "react": "jdsl.dsl",
        "ref": "jdsl.dsl",
        "repeat": "jdsl.dsl",
        "root": "jdsl.dsl",
        "sel": "jdsl.dsl",
        "seq": "jdsl.dsl",
        "store": "jdsl.dsl",
        "timeout": "jdsl.dsl",
        "tool": "jdsl.dsl",
        "BehaviorCheckError": "jdsl.errors",
        "BindingError": "jdsl.errors",
        "JdslError": "jdsl.errors",
        "ModelOutputError": "jdsl.errors",
        "RefError": "jdsl.errors",
        "SignatureError": "jdsl.errors",
        "ValidationError": "jdsl.errors",
        "Tool": "jdsl.interaction.tools",
        "tool_name": "jdsl.interaction.tools",
        "tool_spec": "jdsl.interaction.tools",
        "Message": "jdsl.providers.messages",
        "ModelTurn": "jdsl.providers.messages",
        "ToolCall": "jdsl.providers.messages",
        "ToolSpec": "jdsl.providers.messages",
        "Usage": "jdsl.providers.messages",
        "Signature": "jdsl.signature",
        "ListTraceSink": "jdsl.trace",
        "TraceEvent": "jdsl.trace",
        "Action": "jdsl.tree",
        "Bindings": "jdsl.tree",
        "Blackboard": "jdsl.tree",
        "Check": "jdsl.tree",
        "ContextWindow": "jdsl.tree",
        "Decorator": "jdsl.tree",
        "Failure": "jdsl.tree",
        "ForEach": "jdsl.tree",
        "Guard": "jdsl.tree",
        "GuardCall": "jdsl.tree",
        "Invert": "jdsl.tree",
        "Node": "jdsl.tree",
        "OneShot": "jdsl.tree",
        "Optional": "jdsl.tree",
        "Predict": "jdsl.tree",
        "React": "jdsl.tree",
        "Repeat": "jdsl.tree",
        "Root": "jdsl.tree",
        "RunContext": "jdsl.tree",
        "Selector": "jdsl.tree",
        "Sequence": "jdsl.tree",
        "Status": "jdsl.tree",
        "Timeout": "jdsl.tree",
        "Write": "jdsl.tree",
        "assign_runtime_ids": "jdsl.tree",
        "CheckReport": "jdsl.tree.check",
        "Problem": "jdsl.tree.check",
    }
)
"""Each public name's module: imported on first use, so that ``import jdsl`` (and ``jdsl
--version``, every command's start) does not import the tree, tracing and provider modules."""

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
