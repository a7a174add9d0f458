"""Action targets of a ReAct loop, and how one model-requested action is run.

Routing comes only from the caller: a model's arguments never choose a server or a route.
A target is a registered tool (optionally under another name), an MCP server/tool pair, or a
subtree callable the tree builds (``(arguments) -> ToolResult | value``).

Outcome classes (docs/design.md §7, where the runtime seed wins over ditto):

* ``fed back``: success, a business ``failed`` result, an unknown action name (when the loop
  runs with ``on_undeclared="observe"``; otherwise it stops before acting), invalid arguments,
  or a Python exception inside a tool: the model sees an observation and may adapt.
* ``stop``: a ``cancelled`` / ``timeout`` / ``unknown`` result, or an infrastructure error (a
  :class:`JdslError` such as a refused permission or an invalid result): the loop stops with
  ``dependency_failed``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jdsl.errors import BindingError, JdslError, ToolError
from jdsl.interaction.mcp import McpRegistry
from jdsl.interaction.observe import Observation, observe
from jdsl.interaction.registry import ToolRegistry, as_result
from jdsl.interaction.results import (
    ResultError,
    ToolResult,
    error_from_exception,
    sanitize_message,
    validate_result,
)
from jdsl.interaction.sandbox import Sandbox
from jdsl.interaction.tools import HOST_NAME
from jdsl.providers.messages import ToolCall, ToolSpec

__all__ = [
    "ActionOutcome",
    "ActionTable",
    "ActionTarget",
    "McpTarget",
    "SubtreeTarget",
    "ToolTarget",
    "build_actions",
]

_EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}
_MODEL_FIXABLE = {"UNKNOWN_TOOL", "INVALID_ARGUMENTS"}


@dataclasses.dataclass(frozen=True)
class ToolTarget:
    """A registered tool; ``tool`` is its registry name (the action may be named differently)."""

    tool: str


@dataclasses.dataclass(frozen=True)
class McpTarget:
    """Tool ``tool`` of MCP server ``server``; the spec comes from discovery unless given."""

    server: str
    tool: str
    description: str | None = None
    parameters: Mapping[str, Any] | None = None


@dataclasses.dataclass(frozen=True)
class SubtreeTarget:
    """A subtree of the tree as a callable ``(arguments: dict) -> ToolResult | value``."""

    run: Callable[[dict[str, Any]], Any]
    description: str = ""
    parameters: Mapping[str, Any] = dataclasses.field(default_factory=lambda: dict(_EMPTY_SCHEMA))


ActionTarget = ToolTarget | McpTarget | SubtreeTarget


@dataclasses.dataclass(frozen=True)
class ActionOutcome:
    """What running one action produced.

    Attributes:
        observation: the normalized result (None when an infrastructure error left none).
        stop: True when the loop must stop with ``dependency_failed``.
        error: the error that stopped it, or the failed result's error.
    """

    observation: Observation | None
    stop: bool
    error: ResultError | None = None


class ActionTable:
    """The declared actions of one loop: ``{action name: target}`` plus their specs."""

    def __init__(
        self,
        registry: ToolRegistry,
        targets: Mapping[str, ActionTarget],
        specs: Sequence[ToolSpec],
        mcp: McpRegistry | None,
    ) -> None:
        self.registry = registry
        self.targets = dict(targets)
        self.specs = tuple(specs)
        self.mcp = mcp

    def names(self) -> list[str]:
        return [spec.name for spec in self.specs]

    def declares(self, name: str) -> bool:
        """Whether ``name`` is a declared action."""
        return name in self.targets

    def run(self, call: ToolCall, *, cancel: object | None = None) -> ActionOutcome:
        """Run one action and classify its outcome (module docstring)."""
        target = self.targets.get(call.name)
        if target is None:
            known = ", ".join(self.names()) or "none"
            failure = ToolResult.failure(
                "UNKNOWN_TOOL",
                sanitize_message(f"no tool named {call.name!r}; use one of: {known}"),
            )
            return _fed_back(failure, call)
        try:
            result = self._dispatch(target, call, cancel)
        except ToolError as exc:
            if exc.code in _MODEL_FIXABLE:
                return _fed_back(ToolResult.failure(exc.code, sanitize_message(str(exc))), call)
            return ActionOutcome(
                None, True, ResultError(code=exc.code, message=sanitize_message(str(exc)))
            )
        except JdslError as exc:
            return ActionOutcome(None, True, error_from_exception(exc, code="DEPENDENCY_FAILED"))
        except Exception as exc:  # a Python exception inside a tool: the model sees it
            return _fed_back(ToolResult(status="failed", error=error_from_exception(exc)), call)
        if isinstance(target, SubtreeTarget):
            result = validate_result(result, tool=call.name)
        observation = observe(result)
        if result.status in ("cancelled", "timeout", "unknown"):
            return ActionOutcome(observation, True, result.error)
        return ActionOutcome(observation, False, result.error)

    def _dispatch(self, target: ActionTarget, call: ToolCall, cancel: object | None) -> ToolResult:
        if isinstance(target, ToolTarget):
            inner = ToolCall(id=call.id, name=target.tool, arguments=call.arguments)
            return self.registry.call(inner, cancel=cancel)
        if isinstance(target, McpTarget):
            assert self.mcp is not None
            return self.mcp.invoke(target.server, target.tool, call.arguments, call_id=call.id)
        value = target.run(dict(call.arguments))
        return as_result(value).model_copy(update={"call_id": call.id, "source": call.name})


def _fed_back(result: ToolResult, call: ToolCall) -> ActionOutcome:
    result = result.model_copy(update={"call_id": call.id, "source": call.name})
    return ActionOutcome(observe(result), False, result.error)


def _tool_registry(tools: ToolRegistry | Sequence[Any], sandbox: Sandbox | None) -> ToolRegistry:
    if isinstance(tools, ToolRegistry):
        return tools
    # Tools bound by the author are granted by that binding (docs/design.md §7).
    registry = ToolRegistry(tools, sandbox=sandbox or Sandbox())
    registry.sandbox = registry.sandbox.granting("tool", registry.names())
    return registry


def build_actions(
    tools: ToolRegistry | Sequence[Any] = (),
    actions: Mapping[str, ActionTarget] | None = None,
    *,
    mcp: McpRegistry | None = None,
    sandbox: Sandbox | None = None,
) -> ActionTable:
    """Declare the actions a loop exposes.

    Args:
        tools: a :class:`ToolRegistry` (its sandbox decides which tools are exposed), or tools
            (``@tool`` s, functions, :class:`RegisteredTool` s), which their binding grants.
        actions: extra ``{name: target}``; a name here overrides a tool of the same name.
        mcp: the registry :class:`McpTarget` s use.
        sandbox: the base sandbox for a sequence of tools (files, commands, network).

    Raises:
        BindingError: an invalid action name, an MCP target without an MCP registry, or a
            :class:`ToolTarget` naming an unregistered tool.
    """
    registry = _tool_registry(tools, sandbox)
    targets: dict[str, ActionTarget] = {n: ToolTarget(n) for n in registry.names()}
    specs = {s.name: s for s in registry.specs()}
    targets = {n: t for n, t in targets.items() if n in specs}
    for name, target in (actions or {}).items():
        if not HOST_NAME.match(name):
            raise BindingError(
                f"action name {name!r} must be 1-64 characters of [A-Za-z0-9_-]", name=name
            )
        specs[name] = _target_spec(name, target, registry, mcp)
        targets[name] = target
    return ActionTable(registry, targets, [specs[n] for n in sorted(specs)], mcp)


def _target_spec(
    name: str, target: ActionTarget, registry: ToolRegistry, mcp: McpRegistry | None
) -> ToolSpec:
    if isinstance(target, ToolTarget):
        tool = registry.get(target.tool)
        if tool is None:
            raise BindingError(
                f"action {name!r} targets unregistered tool {target.tool!r}",
                name=target.tool,
                available=registry.names(),
            )
        return ToolSpec(name=name, description=tool.description, parameters=dict(tool.parameters))
    if isinstance(target, McpTarget):
        if mcp is None:
            raise BindingError(
                f"action {name!r} targets MCP but no McpRegistry was given", name=name, kind="mcp"
            )
        description, parameters = target.description, target.parameters
        if parameters is None or description is None:
            found = {c.name: c for c in mcp.discover(target.server)}
            if target.tool not in found:
                raise BindingError(
                    f"MCP server {target.server!r} has no tool {target.tool!r}",
                    name=target.tool,
                    kind="mcp",
                    available=sorted(found),
                )
            description = description if description is not None else found[target.tool].description
            parameters = parameters if parameters is not None else found[target.tool].input_schema
        return ToolSpec(name=name, description=description, parameters=dict(parameters))
    return ToolSpec(name=name, description=target.description, parameters=dict(target.parameters))
