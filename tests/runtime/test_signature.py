"""jdsl.signature: parsing, canonical text, validation and prompts."""

from __future__ import annotations

import pytest
from jdsl.errors import ModelOutputError, SignatureError
from jdsl.signature import Signature, render_prompt


def test_parse_names_and_types():
    sig = Signature.parse("  request ,orders ->  selected_index: int ")
    assert sig.input_names == ("request", "orders")
    assert sig.output_names == ("selected_index",)
    assert str(sig) == "request, orders -> selected_index: int"


def test_zero_inputs_allowed():
    assert Signature.parse("-> x").input_names == ()
    assert str(Signature.parse("-> x")) == "-> x"


def test_literal_and_list_types_canonical():
    sig = Signature.parse("t -> cat: Literal['a', 'b'], n: list[ int ], d: dict[str, int]")
    assert str(sig) == 't -> cat: Literal["a", "b"], n: list[int], d: dict'


@pytest.mark.parametrize(
    "bad",
    [
        "no arrow",
        "a -> ",
        "-> ",
        "a, b",
        "a -> b: decimal",
        "a -> 1x",
        "a -> a",
        "a -> b: Literal[]",
    ],
)
def test_parse_rejects(bad):
    with pytest.raises(SignatureError):
        Signature.parse(bad)


def test_single_output_is_stripped_text():
    assert Signature.parse("q -> answer").parse_output("  Paris \n") == {"answer": "Paris"}


def test_single_output_coerced():
    assert Signature.parse("q -> n: int").parse_output(" 1 ") == {"n": 1}
    assert Signature.parse("q -> ok: bool").parse_output("yes") == {"ok": True}
    assert Signature.parse("q -> xs: list[int]").parse_output('["1", 2]') == {"xs": [1, 2]}


@pytest.mark.parametrize(
    ("sig", "text"),
    [
        ("q -> n: int", "one"),
        ("q -> n: int", "   "),
        ("q -> c: Literal['a', 'b']", "c"),
        ("q -> xs: list[int]", "not json"),
        ("t -> a, b", "prose only"),
        ("t -> a, b", '{"a": 1}'),
        ("t -> a, b", "[1, 2]"),
    ],
)
def test_invalid_output_raises_model_output_error(sig, text):
    with pytest.raises(ModelOutputError) as info:
        Signature.parse(sig).parse_output(text)
    assert info.value.raw == text


def test_multiple_outputs_from_json_object_even_with_prose_or_fences():
    sig = Signature.parse("ticket -> category: Literal['bug', 'billing'], urgency: int")
    assert sig.parse_output('```json\n{"category": "bug", "urgency": "2"}\n```') == {
        "category": "bug",
        "urgency": 2,
    }
    assert sig.parse_output('Sure: {"category": "billing", "urgency": 1} ok')["urgency"] == 1


def test_validation_error_names_the_field():
    with pytest.raises(ModelOutputError) as info:
        Signature.parse("t -> a: int, b").validate_outputs({"a": "x", "b": "y"})
    assert info.value.field == "a"


def test_output_schema():
    sig = Signature.parse("q -> n: int, c: Literal['x', 'y']")
    assert sig.output_schema("n") == {"type": "integer"}
    assert sig.output_schema("c")["enum"] == ["x", "y"]
    with pytest.raises(SignatureError):
        sig.output_schema("zzz")


def test_render_prompt_single_output():
    text = render_prompt(
        "request, orders -> selected_index: int",
        {"request": "cancel it", "orders": [{"id": "#W1"}]},
        "Pick the order.",
        [{"input": {"request": "x"}, "output": {"selected_index": 0}}],
    )
    lines = text.splitlines()
    assert lines[0] == "Pick the order."
    assert lines[1] == "Examples:"
    assert lines[2] == 'Input: {"request": "x"}'
    assert "- request: cancel it" in lines
    assert '- orders: [{"id": "#W1"}]' in lines
    assert lines[-1].startswith("Provide selected_index (an integer) as your entire response")


def test_render_prompt_multi_and_react():
    assert "JSON object containing exactly these keys: a (text), b" in render_prompt(
        "x -> a, b", {}
    )
    assert "Use the available tools" in render_prompt("x -> a", {"x": 1}, react=True)


def test_an_output_named_with_a_leading_underscore_validates() -> None:
    """pydantic keeps ``_name`` fields private: an imported call argument ``_raw_arguments``
    compiled to a choice whose replay raised ``AttributeError: 'Outputs' object has no
    attribute '_raw_arguments'``."""
    sig = Signature.parse("x -> _raw_arguments, n: int")
    assert sig.validate_outputs({"_raw_arguments": " a ", "n": "2"}) == {
        "_raw_arguments": "a",
        "n": 2,
    }
    with pytest.raises(ModelOutputError, match="output n: 'x' is not a valid int"):
        sig.validate_outputs({"_raw_arguments": "a", "n": "x"})
