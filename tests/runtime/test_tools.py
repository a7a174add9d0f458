"""jdsl.interaction.tools: Tool, @tool, tool_name, tool_spec (schemas via pydantic)."""

from __future__ import annotations

import enum
import functools
from typing import Literal

import pytest
from jdsl.errors import BindingError, ToolError
from jdsl.interaction.tools import Tool, tool, tool_name, tool_spec
from pydantic import BaseModel


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip: int


def everything(
    text: str,
    count: int,
    ratio: float,
    flag: bool,
    maybe: str | None,
    either: int | str,
    mode: Literal["fast", "slow"],
    color: Color,
    names: list[str],
    extra: dict,
    address: Address,
    limit: int = 10,
    *args: int,
    **kwargs: int,
) -> None:
    """Do everything.

    Args:
        text: some text.
        count (int): how many.
    """


def test_schema_covers_the_supported_types():
    schema = tool_spec(everything).parameters
    props = schema["properties"]
    assert schema["type"] == "object"
    assert props["text"]["type"] == "string"
    assert props["count"]["type"] == "integer"
    assert props["ratio"]["type"] == "number"
    assert props["flag"]["type"] == "boolean"
    assert {"type": "null"} in props["maybe"]["anyOf"]
    assert len(props["either"]["anyOf"]) == 2
    assert props["mode"]["enum"] == ["fast", "slow"]
    assert "$ref" in props["color"] and "Color" in schema["$defs"]
    assert props["names"] == {"type": "array", "items": {"type": "string"}}
    assert props["extra"]["type"] == "object"
    assert schema["$defs"]["Address"]["properties"]["zip"]["type"] == "integer"
    assert props["limit"]["default"] == 10
    assert "args" not in props and "kwargs" not in props
    assert set(schema["required"]) == set(props) - {"limit"}
    assert props["text"]["description"] == "some text."
    assert props["count"]["description"] == "how many."


def test_decorator_bare_and_with_arguments():
    @tool
    def lookup(email: str) -> str:
        """Find a customer.

        Args:
            email: their email.
        """
        return email

    @tool(name="find-2", description="Other.")
    def other(x: int) -> int:
        return x

    assert isinstance(lookup, Tool) and lookup("a") == "a"
    assert lookup.name == "lookup" and lookup.description == "Find a customer."
    assert other.name == "find-2" and other.description == "Other." and other(2) == 2
    assert tool_spec(other).name == "find-2"
    assert tool_spec(other, name="x").name == "x"


def test_explicit_parameters_win():
    t = tool(lambda **kw: kw, name="bridge", parameters={"type": "object", "properties": {"a": {}}})
    assert t.parameters == {"type": "object", "properties": {"a": {}}}


def test_callable_object_uses_call_signature_and_class_name():
    class Counter:
        """Count things."""

        def __call__(self, n: int) -> int:
            return n + 1

    spec = tool_spec(Counter())
    assert spec.name == "Counter"
    assert spec.description == "Count things."
    assert spec.parameters["required"] == ["n"]


def test_unannotated_is_string_and_partial_named_by_func():
    def f(a, b=1):
        return a

    assert tool_spec(f).parameters["properties"]["a"]["type"] == "string"
    assert tool_name(functools.partial(f, 1)) == "f"


def test_lambda_without_name_cannot_be_named():
    with pytest.raises(BindingError):
        tool_name(lambda: 1)
    with pytest.raises(BindingError):
        tool(lambda: 1)


@pytest.mark.parametrize("bad", ["has space", "", "x" * 65, "dotted.name"])
def test_invalid_host_names_rejected(bad):
    with pytest.raises(ToolError):
        tool(everything, name=bad)


def test_not_callable_rejected():
    with pytest.raises(ToolError):
        Tool(3)  # type: ignore[arg-type]
