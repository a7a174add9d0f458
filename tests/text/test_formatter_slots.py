"""text/formatter.py takes a node's children from jdsl.ir.walk, so it prints every slot."""

from __future__ import annotations

import pytest
from jdsl.errors import ValidationError
from jdsl.text import format_behavior, parse_behavior

TEXT = """root r
  seq
    repeat max=2
      act a()
      until:
        guard done == true
    act b()
"""


def test_repeat_until_prints_as_its_own_block_and_reads_back() -> None:
    assert format_behavior(parse_behavior(TEXT)) == TEXT


@pytest.mark.parametrize(
    "node",
    [{"kind": "sequence", "children": [3]}, {"kind": "invert", "child": {"tool": "x"}}],
)
def test_a_slot_holding_no_node_is_a_validation_error(node: dict) -> None:
    with pytest.raises(ValidationError, match="where a node belongs"):
        format_behavior(node)
