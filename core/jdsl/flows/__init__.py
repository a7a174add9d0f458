"""Predefined flows: the ReAct loop with budgets, tool / MCP / skill ingress, and RAG with an
embedded SQLite FTS5 retriever.

Flows are plain functions over plain callables, registries and a model; they never import the
tree (docs/ARCHITECTURE.md). See docs/design.md §7.
"""

from jdsl.flows.actions import ActionTable, ActionTarget, McpTarget, SubtreeTarget, ToolTarget
from jdsl.flows.context import ContextItem, DuplicatePolicy, Provenance, WorkingContext
from jdsl.flows.documents import Document, RetrievalError, markdown_sections
from jdsl.flows.fts import Fts5Unavailable, SqliteFtsRetriever
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
from jdsl.flows.rag import ContextRetriever, RagSelection, RagStrategy, rag_flow, rag_strategy
from jdsl.flows.react_loop import OnUndeclared, ReactError, ReactResult, StopReason, react_flow
from jdsl.flows.services import Services

__all__ = [
    "ActionTable",
    "ActionTarget",
    "ContextItem",
    "ContextRetriever",
    "Document",
    "DuplicatePolicy",
    "FlowResult",
    "Fts5Unavailable",
    "McpRequest",
    "McpTarget",
    "OnUndeclared",
    "Provenance",
    "RagSelection",
    "RagStrategy",
    "ReactError",
    "ReactResult",
    "RetrievalError",
    "Services",
    "SkillSource",
    "SqliteFtsRetriever",
    "StopReason",
    "SubtreeTarget",
    "ToolTarget",
    "WorkingContext",
    "ingress_item",
    "load_skill",
    "markdown_sections",
    "mcp_flow",
    "rag_flow",
    "rag_strategy",
    "react_flow",
    "skill_flow",
    "tool_call_flow",
]
