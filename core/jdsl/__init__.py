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
