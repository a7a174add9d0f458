"""The interaction layer: tools, results, sandbox, commands, web search, MCP, output sinks.

See docs/design.md §7 and docs/ARCHITECTURE.md. The MCP SDK adapter lives in
:mod:`jdsl.interaction.mcp_sdk` (the ``mcp`` extra) and is not imported here.
"""

from jdsl.interaction.cancel import Cancellation, CancelToken, is_cancelled
from jdsl.interaction.commands import COMMAND_NAMES, read_only_command_tools
from jdsl.interaction.executor import LocalExecutor
from jdsl.interaction.mcp import (
    McpCallResult,
    McpCapability,
    McpClient,
    McpRegistry,
    McpToolInfo,
    McpToolPage,
)
from jdsl.interaction.observe import Observation, observation_text, observe
from jdsl.interaction.output import (
    Artifact,
    Delivery,
    InMemorySink,
    OutputMessage,
    OutputSink,
    Receipt,
    deliver,
)
from jdsl.interaction.registry import (
    RegisteredTool,
    ToolContext,
    ToolRegistry,
    Unregister,
    as_registered,
)
from jdsl.interaction.results import (
    Reference,
    ResultError,
    ResultStatus,
    ToolResult,
    check_error,
    error_from_exception,
    sanitize_message,
    validate_result,
)
from jdsl.interaction.sandbox import CATEGORIES, CommandResult, Executor, Sandbox
from jdsl.interaction.tools import (
    HOST_NAME,
    Tool,
    tool,
    tool_description,
    tool_name,
    tool_spec,
)
from jdsl.interaction.web_search import BraveSearchProvider, SearchProvider, web_search_tool

__all__ = [
    "CATEGORIES",
    "HOST_NAME",
    "COMMAND_NAMES",
    "Artifact",
    "BraveSearchProvider",
    "CancelToken",
    "Cancellation",
    "CommandResult",
    "Delivery",
    "Executor",
    "InMemorySink",
    "LocalExecutor",
    "McpCallResult",
    "McpCapability",
    "McpClient",
    "McpRegistry",
    "McpToolInfo",
    "McpToolPage",
    "Observation",
    "OutputMessage",
    "OutputSink",
    "Receipt",
    "Reference",
    "RegisteredTool",
    "ResultError",
    "ResultStatus",
    "Sandbox",
    "SearchProvider",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "Unregister",
    "as_registered",
    "check_error",
    "deliver",
    "error_from_exception",
    "is_cancelled",
    "observation_text",
    "observe",
    "read_only_command_tools",
    "sanitize_message",
    "tool",
    "tool_description",
    "tool_name",
    "tool_spec",
    "validate_result",
    "web_search_tool",
]
