"""demo/styles_job.py reports a frozen value at its own node, not again at a repeat above."""

from __future__ import annotations

from jdsl.demo.styles_job import frozen_values


def test_a_position_under_until_is_reported_once_at_its_node() -> None:
    ir = {"kind": "repeat", "max": 2, "child": {"kind": "action", "tool": "a"},
          "until": {"kind": "check", "key": "orders[2].ok", "equals": True}}  # fmt: skip
    assert frozen_values(ir) == ["check: a fixed list position '[2]'"]
