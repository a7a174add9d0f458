"""One rule for numbers JSON cannot carry, in behavior text literals and in imported files."""

from __future__ import annotations

import pytest
from jdsl.errors import BehaviorSyntaxError
from jdsl.importers.jsondata import JsonDataError, loads
from jdsl.text import parse_behavior_ir


@pytest.mark.parametrize(
    ("literal", "problem"),
    [
        ("1e999", "the number 1e999 is too large for a double; write a smaller one"),
        ("-Infinity", "-Infinity is not a JSON number; write a finite number or null"),
    ],
)
def test_text_and_imports_refuse_a_number_json_cannot_carry_alike(
    literal: str, problem: str
) -> None:
    with pytest.raises(BehaviorSyntaxError) as text_error:
        parse_behavior_ir(f"act f(x={literal})")
    assert problem in str(text_error.value)
    with pytest.raises(JsonDataError) as import_error:
        loads(f'{{"x": {literal}}}')
    assert str(import_error.value) == problem
