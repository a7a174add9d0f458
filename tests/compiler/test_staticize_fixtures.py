"""Fixture pairs pinning the program shapes staticize compiles (issue 24): each
``fixtures/staticize/<shape>.jsonl`` (traced runs of a teacher over the real tau-bench retail
environment, written by the teachers of ``retail_teachers.py``) compiles, verified, to exactly
``<shape>.behavior``. A change to the compiler that changes a shape shows here as a text diff."""

from __future__ import annotations

from pathlib import Path

import pytest
from jdsl.compiler import compile_behavior
from jdsl.ir import from_ir
from jdsl.text import format_behavior

FIXTURES = Path(__file__).parent / "fixtures" / "staticize"
SHAPES = sorted(p.stem for p in FIXTURES.glob("*.jsonl"))


def test_every_shape_has_its_pair() -> None:
    assert SHAPES == ["loop", "recovery_mix", "two_branch_points"]
    assert all((FIXTURES / f"{shape}.behavior").is_file() for shape in SHAPES)


@pytest.mark.parametrize("shape", SHAPES)
def test_the_episodes_compile_to_the_pinned_behavior(shape: str) -> None:
    result = compile_behavior(FIXTURES / f"{shape}.jsonl", name=shape)
    v = result.verification
    assert result.ok and v.executed == v.matched, result.report().text
    expected = (FIXTURES / f"{shape}.behavior").read_text(encoding="utf-8")
    assert format_behavior(from_ir(result.ir)) == expected
