"""Tools: Python callables a tree or a model can call, with JSON Schemas derived by pydantic.

``@tool`` (bare or with ``name=`` / ``description=`` / ``parameters=``) wraps a function or a
callable object in a :class:`Tool`: still callable, with ``.name``, ``.description`` and
``.parameters``. A plain callable works everywhere a Tool does; :func:`tool_name` and
:func:`tool_spec` read the same facts from either.

Parameter schemas come from the Python signature through pydantic: ``str``, ``int``, ``float``,
``bool``, ``X | None``, unions, ``Literal``, ``Enum``, ``list[T]``, ``dict``, nested pydantic
models and defaults. ``*args`` / ``**kwargs`` are skipped; a parameter without a default is
required; an unannotated one is a string. The description is the docstring's summary, and
Google-style ``Args:`` lines describe the parameters.

Example:
    >>> @tool
    ... def lookup(email: str) -> dict:
    ...     '''Find a customer by email.'''
    ...     return {"id": "U1"}
    >>> lookup.parameters["required"]
    ['email']
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable
from typing import Any, overload

from pydantic import ConfigDict, create_model

from jdsl.errors import BindingError, ToolError
from jdsl.providers.messages import ToolSpec

__all__ = ["HOST_NAME", "Tool", "tool", "tool_description", "tool_name", "tool_spec"]

HOST_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""The tool names every provider accepts."""


class Tool:
    """A callable with a name, a description and a JSON Schema of its keyword arguments.

    Attributes:
        fn: the wrapped callable.
        name: the host name a model sees (``^[A-Za-z0-9_-]{1,64}$``).
        description: what the tool does, for the model.
        parameters: JSON Schema (``{"type": "object", "properties": ..., "required": ...}``).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: dict[str, Any] | None = None,
    ) -> None:
        if not callable(fn):
            raise ToolError(
                f"tool() needs a callable, got {type(fn).__name__}", code="NOT_CALLABLE"
            )
        self.fn = fn
        self.name = name if name is not None else tool_name(fn)
        if not isinstance(self.name, str) or not HOST_NAME.match(self.name):
            raise ToolError(
                f"tool name {self.name!r} is not a valid host name; use 1-64 letters, digits, "
                "'_' or '-' (pass tool(fn, name=...))",
                tool=self.name,
                code="INVALID_NAME",
            )
        self.description = description if description is not None else tool_description(fn)
        self._parameters = parameters
        functools.update_wrapper(self, fn, updated=())  # type: ignore[arg-type]

    @functools.cached_property
    def parameters(self) -> dict[str, Any]:
        """JSON Schema of the arguments (explicit, else derived on first use)."""
        return self._parameters if self._parameters is not None else parameters_schema(self.fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def spec(self) -> ToolSpec:
        """The :class:`ToolSpec` a model is shown."""
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    fn: Callable[..., Any],
    /,
    *,
    name: str | None = ...,
    description: str | None = ...,
    parameters: dict[str, Any] | None = ...,
) -> Tool: ...


@overload
def tool(
    fn: None = ...,
    /,
    *,
    name: str | None = ...,
    description: str | None = ...,
    parameters: dict[str, Any] | None = ...,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a :class:`Tool`; usable as ``@tool``, ``@tool(name=...)`` or ``tool(fn, name=...)``.

    Raises:
        ToolError: a name that is not a valid host name, or a non-callable.
        BindingError: a lambda without ``name=``.
    """

    def wrap(target: Callable[..., Any]) -> Tool:
        return Tool(target, name=name, description=description, parameters=parameters)

    return wrap(fn) if fn is not None else wrap


def tool_name(fn: Callable[..., Any]) -> str:
    """The name a callable is bound by: ``Tool.name``, ``__name__``, else its class name.

    Raises:
        BindingError: a lambda (it has no usable name; wrap it with ``tool(fn, name=...)``).
    """
    if isinstance(fn, Tool):
        return fn.name
    if isinstance(fn, functools.partial):
        return tool_name(fn.func)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    if name == "<lambda>":
        raise BindingError(
            "a lambda has no name to bind it by; wrap it with tool(fn, name='...')",
            name=name,
        )
    return str(name)


def tool_description(fn: Callable[..., Any]) -> str:
    """The summary of the docstring (text before ``Args:``/``Returns:``), stripped."""
    if isinstance(fn, Tool):
        return fn.description
    doc = inspect.getdoc(fn) or ""
    if not doc and not inspect.isroutine(fn):
        doc = inspect.getdoc(type(fn).__call__) or ""  # type: ignore[operator]
    return re.split(r"\n\s*(?:Args|Arguments|Parameters|Returns|Raises|Example|Examples):", doc)[
        0
    ].strip()


def tool_spec(fn: Callable[..., Any], *, name: str | None = None) -> ToolSpec:
    """The :class:`ToolSpec` of a Tool or a plain callable (``name`` overrides its name)."""
    if isinstance(fn, Tool):
        spec = fn.spec()
        return spec if name is None else spec.model_copy(update={"name": name})
    return ToolSpec(
        name=name or tool_name(fn),
        description=tool_description(fn),
        parameters=parameters_schema(fn),
    )


def parameters_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    """Derive the JSON Schema of ``fn``'s keyword arguments with pydantic."""
    target = fn.fn if isinstance(fn, Tool) else fn
    signature = inspect.signature(target)
    hints = _hints(target)
    arg_docs = _arg_docs(target)
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, str)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    model = create_model(  # type: ignore[call-overload]
        "Arguments", __config__=ConfigDict(arbitrary_types_allowed=True), **fields
    )
    schema: dict[str, Any] = model.model_json_schema()
    schema.pop("title", None)
    for pname, prop in schema.get("properties", {}).items():
        prop.pop("title", None)
        if pname in arg_docs and "description" not in prop:
            prop["description"] = arg_docs[pname]
    schema.setdefault("properties", {})
    schema["type"] = "object"
    return schema


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    target = fn if inspect.isroutine(fn) or inspect.isclass(fn) else type(fn).__call__  # type: ignore[operator]
    try:
        return typing.get_type_hints(target)
    except Exception:  # unresolvable string annotations: treat every parameter as text
        return {}


def _arg_docs(fn: Callable[..., Any]) -> dict[str, str]:
    doc = inspect.getdoc(fn) or ""
    match = re.search(r"\n\s*(?:Args|Arguments|Parameters):\s*\n(.*?)(?:\n\s*\n|\Z)", doc, re.S)
    if not match:
        return {}
    found: dict[str, str] = {}
    for line in match.group(1).splitlines():
        item = re.match(r"\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)", line)
        if item:
            found[item.group(1)] = item.group(2).strip()
    return found
