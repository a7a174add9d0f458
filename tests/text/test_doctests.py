"""The runnable examples in the docstrings of jdsl.text and jdsl.ir stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["jdsl.text", "jdsl.text.expression", "jdsl.ir.format", "jdsl.ir.validate"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
