"""Predefined flows: the ReAct loop with budgets, tool / MCP / skill ingress, and RAG.

Flows are plain functions over plain callables, registries and a model; they never import the
tree (docs/ARCHITECTURE.md). See DESIGN.md §7.
"""

from jdsl.flows.actions import ActionTable, ActionTarget, McpTarget, SubtreeTarget, ToolTarget
from jdsl.flows.context import ContextItem, DuplicatePolicy, Provenance, WorkingContext
from jdsl.flows.ingress import (
    FlowResult,
    McpRequest,
    SkillSource,
    ingress_item,
    load_skill,
    mcp_flow,
    skill_flow,
    tool_call_flow,
)
from jdsl.flows.rag import Bm25Strategy, RagSelection, RagStrategy, rag_flow
from jdsl.flows.react_loop import ReactError, ReactResult, StopReason, react_flow
from jdsl.flows.services import Services

__all__ = [
    "ActionTable",
    "ActionTarget",
    "Bm25Strategy",
    "ContextItem",
    "DuplicatePolicy",
    "FlowResult",
    "McpRequest",
    "McpTarget",
    "Provenance",
    "RagSelection",
    "RagStrategy",
    "ReactError",
    "ReactResult",
    "Services",
    "SkillSource",
    "StopReason",
    "SubtreeTarget",
    "ToolTarget",
    "WorkingContext",
    "ingress_item",
    "load_skill",
    "mcp_flow",
    "rag_flow",
    "react_flow",
    "skill_flow",
    "tool_call_flow",
]
