"""compiler/reads.py reads a node's own fields: no child slot's subtree, a repeat's until too."""

from __future__ import annotations

from jdsl.compiler.reads import unused_reads
from jdsl.ir.walk import walk_ir


def test_a_read_under_until_whose_result_nothing_reads_is_unused() -> None:
    ir = {"kind": "repeat", "max": 2,
          "child": {"kind": "action", "tool": "get_poll", "store": "done"},
          "until": {"kind": "action", "tool": "get_status", "store": "status"}}  # fmt: skip
    assert unused_reads(list(walk_ir(ir))) == {"get_poll", "get_status"}


def test_a_read_the_until_check_reads_is_used() -> None:
    ir = {"kind": "repeat", "max": 2,
          "child": {"kind": "action", "tool": "get_poll", "store": "done"},
          "until": {"kind": "check", "key": "done", "equals": True}}  # fmt: skip
    assert unused_reads(list(walk_ir(ir))) == frozenset()
