"""ToolRegistry: host-named tools, checked in a fixed order on every call.

``call`` order (reference ditto §4): call id -> ``tool`` permission -> registered -> arguments
validated against the tool's JSON Schema (the ``jsonschema`` library) and its own ``validate``
-> execute -> result validated (:func:`jdsl.interaction.results.validate_result`).

Failures come in two kinds. A *business* failure is a returned ``ToolResult`` whose status is
``failed`` (the model can react to it); a Python exception inside a plain-function tool is one.
An *infrastructure* error is raised: a refused permission, an unknown tool, invalid arguments,
an invalid result, or a :class:`jdsl.errors.JdslError` from inside the tool.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from jdsl.errors import JdslError, ToolError
from jdsl.interaction.results import (
    ToolResult,
    error_from_exception,
    sanitize_message,
    validate_result,
)
from jdsl.interaction.sandbox import Sandbox
from jdsl.interaction.tools import HOST_NAME, tool_spec
from jdsl.providers.messages import ToolCall, ToolSpec

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "RegisteredTool",
    "ToolContext",
    "ToolRegistry",
    "Unregister",
    "as_registered",
    "as_result",
]

Execute = Callable[[dict[str, Any], "ToolContext"], ToolResult]


@dataclasses.dataclass(frozen=True)
class ToolContext:
    """What a tool's ``execute`` receives besides its arguments.

    Attributes:
        call_id: the id of the call being answered.
        sandbox: the registry's sandbox (for tools that do not carry their own).
        cancel: a cancellation token (:class:`jdsl.interaction.CancelToken`) or None.
    """

    call_id: str
    sandbox: Sandbox
    cancel: object | None = None


@dataclasses.dataclass(frozen=True)
class RegisteredTool:
    """A tool as the registry holds it.

    Attributes:
        name: host name, 1-64 characters of ``[A-Za-z0-9_-]``.
        description: what the tool does, for the model.
        parameters: JSON Schema of the arguments object (checked with ``jsonschema``).
        execute: ``(arguments, context) -> ToolResult``.
        validate: optional extra check ``(arguments) -> None`` that raises to reject.
        effects: descriptive effect tags (``read``, ``write``, ``execute``, ``network``).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    execute: Execute
    validate: Callable[[dict[str, Any]], None] | None = None
    effects: tuple[str, ...] = ()

    @property
    def __name__(self) -> str:  # so tool_name() and bindings name it like a function
        return self.name

    def spec(self) -> ToolSpec:
        """The :class:`ToolSpec` a model sees (no executable parts)."""
        return ToolSpec(
            name=self.name, description=self.description, parameters=dict(self.parameters)
        )

    def __call__(self, **arguments: Any) -> ToolResult:
        """Run the tool directly (a binding grants it): validate, execute, check the result."""
        registry = ToolRegistry([self], sandbox=Sandbox(grants={"tool": [self.name]}))
        return registry.call(
            ToolCall(id=f"direct-{self.name}", name=self.name, arguments=arguments)
        )


class Unregister:
    """Removes one registration when called; returns True the first time, False afterwards."""

    def __init__(self, registry: ToolRegistry, tool: RegisteredTool) -> None:
        self._registry = registry
        self._tool: RegisteredTool | None = tool

    def __call__(self) -> bool:
        tool, self._tool = self._tool, None
        if tool is None or self._registry._tools.get(tool.name) is not tool:
            return False
        del self._registry._tools[tool.name]
        return True


def as_registered(tool: RegisteredTool | Callable[..., Any]) -> RegisteredTool:
    """A :class:`RegisteredTool` for a plain function or ``@tool`` (schema via ``tool_spec``).

    The function is called with the arguments as keywords. Its return value becomes the result
    content (a :class:`ToolResult` is kept as is); a Python exception becomes a ``failed`` result
    with code ``TOOL_EXCEPTION`` and a sanitized message, while a ``JdslError`` propagates.
    """
    if isinstance(tool, RegisteredTool):
        return tool
    inner = getattr(tool, "fn", None)  # a Tool wrapping a RegisteredTool under the same name
    if isinstance(inner, RegisteredTool) and getattr(tool, "name", None) == inner.name:
        return inner

    spec = tool_spec(tool)
    fn = tool

    def execute(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        try:
            value = fn(**arguments)
        except JdslError:
            raise
        except Exception as exc:
            return ToolResult(status="failed", error=error_from_exception(exc))
        return as_result(value)

    return RegisteredTool(spec.name, spec.description, spec.parameters, execute)


def as_result(value: Any) -> ToolResult:
    """A successful :class:`ToolResult` holding a tool's return value (a ToolResult is kept).

    A string becomes ``content``; None becomes empty content; pydantic models, dataclasses and
    other JSON become ``structured_content``; anything else its ``str``.
    """
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult(content="")
    if isinstance(value, str):
        return ToolResult(content=value)
    if isinstance(value, BaseModel):
        return ToolResult(structured_content=value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ToolResult(structured_content=dataclasses.asdict(value))
    if isinstance(value, enum.Enum):
        return ToolResult(content=str(value.value))
    try:
        validate_result(ToolResult(structured_content=value))
    except ToolError:
        return ToolResult(content=str(value))
    return ToolResult(structured_content=value)


class ToolRegistry:
    """Host-named tools behind a sandbox.

    Args:
        tools: tools to register now (``RegisteredTool`` s, ``@tool`` s or plain functions).
        sandbox: the permissions; a tool is callable only with a ``tool`` grant for its name.

    Example:
        >>> registry = ToolRegistry(sandbox=Sandbox(grants={"tool": ["*"]}))
        >>> unregister = registry.register(my_tool)        # doctest: +SKIP
        >>> registry.call(ToolCall(id="c1", name="my_tool", arguments={}))  # doctest: +SKIP
    """

    def __init__(
        self,
        tools: Iterable[RegisteredTool | Callable[..., Any]] = (),
        *,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.sandbox = sandbox if sandbox is not None else Sandbox()
        self._tools: dict[str, RegisteredTool] = {}
        self._validators: dict[str, Validator] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: RegisteredTool | Callable[..., Any]) -> Unregister:
        """Add ``tool``; returns the handle that removes exactly this registration.

        Raises:
            ToolError: (``INVALID_TOOL``) a bad or duplicate host name, or an invalid schema.
        """
        entry = as_registered(tool)
        if not HOST_NAME.match(entry.name):
            raise ToolError(
                f"tool name {entry.name!r} must be 1-64 characters of [A-Za-z0-9_-]",
                tool=entry.name,
                code="INVALID_TOOL",
            )
        if entry.name in self._tools:
            raise ToolError(
                f"a tool named {entry.name!r} is already registered; unregister it first",
                tool=entry.name,
                code="INVALID_TOOL",
            )
        from jdsl.interaction.schemas import load_jsonschema  # lazy: costs ~0.5 s

        jsonschema = load_jsonschema()

        try:
            cls = jsonschema.validators.validator_for(entry.parameters)
            cls.check_schema(entry.parameters)
        except jsonschema.SchemaError as exc:
            raise ToolError(
                f"tool {entry.name!r} has an invalid JSON Schema: {exc.message}",
                tool=entry.name,
                code="INVALID_TOOL",
            ) from None
        self._tools[entry.name] = entry
        self._validators[entry.name] = cls(entry.parameters)
        return Unregister(self, entry)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        """Registered host names, sorted."""
        return sorted(self._tools)

    def get(self, name: str) -> RegisteredTool | None:
        """The registered tool named ``name``, or None."""
        return self._tools.get(name)

    def specs(self, names: Sequence[str] | None = None) -> list[ToolSpec]:
        """Specs of the tools the sandbox allows (optionally only ``names``), sorted by name."""
        wanted = self.names() if names is None else names
        return [
            self._tools[n].spec()
            for n in wanted
            if n in self._tools and self.sandbox.allows("tool", n)
        ]

    def validate_arguments(self, name: str, arguments: Any) -> dict[str, Any]:
        """Check ``arguments`` against tool ``name``'s schema and ``validate`` hook.

        Raises:
            ToolError: code ``UNKNOWN_TOOL`` or ``INVALID_ARGUMENTS`` (the message is safe).
        """
        tool = self._tools.get(name)
        if tool is None:
            raise ToolError(
                f"no tool named {name!r}; registered: {', '.join(self.names()) or 'none'}",
                tool=name,
                code="UNKNOWN_TOOL",
            )
        if not isinstance(arguments, dict):
            raise _bad_arguments(name, "arguments must be a JSON object")
        from jsonschema.exceptions import best_match

        error = best_match(self._validators[name].iter_errors(arguments))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "arguments"
            raise _bad_arguments(name, f"{where}: {error.message}")
        if tool.validate is not None:
            try:
                tool.validate(arguments)
            except Exception as exc:
                raise _bad_arguments(name, str(exc)) from None
        return arguments

    def call(self, call: ToolCall, *, cancel: object | None = None) -> ToolResult:
        """Run one call in the fixed order (module docstring) and return its result.

        The result carries ``call_id = call.id`` and ``source = call.name``.

        Raises:
            ToolError: empty id (``INVALID_CALL``), ``UNKNOWN_TOOL``, ``INVALID_ARGUMENTS``,
                ``INVALID_RESULT`` or ``UNSAFE_ERROR``.
            PermissionDenied: no ``tool`` grant for ``call.name``.
        """
        if not call.id:
            raise ToolError(f"a call to {call.name!r} needs a nonempty id", code="INVALID_CALL")
        self.sandbox.check("tool", call.name)
        arguments = self.validate_arguments(call.name, call.arguments)
        tool = self._tools[call.name]
        context = ToolContext(call_id=call.id, sandbox=self.sandbox, cancel=cancel)
        result = tool.execute(dict(arguments), context)
        if not isinstance(result, ToolResult):
            raise ToolError(
                f"tool {call.name!r} returned {type(result).__name__}, not a ToolResult",
                tool=call.name,
                code="INVALID_RESULT",
            )
        result = result.model_copy(update={"call_id": call.id, "source": call.name})
        return validate_result(result, tool=call.name)


def _bad_arguments(name: str, problem: str) -> ToolError:
    return ToolError(
        f"invalid arguments for tool {name!r}: {sanitize_message(problem)}",
        tool=name,
        code="INVALID_ARGUMENTS",
    )
