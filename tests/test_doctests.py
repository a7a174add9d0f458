"""Every runnable example in a docstring stays true: the doctests of every module of ``jdsl``
and ``jdsl_nb`` that has one (found by its ``>>>`` lines) run with the suite."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOTS = (REPO / "core", REPO)
PACKAGES = (REPO / "core" / "jdsl", REPO / "core" / "jdsl_nb")


def modules_with_examples() -> list[str]:
    """Dotted names of the modules whose source holds a ``>>>`` example."""
    names = []
    for package in PACKAGES:
        for path in sorted(package.rglob("*.py")):
            if ">>> " not in path.read_text(encoding="utf-8"):
                continue
            root = ROOTS[0] if package.parent.name == "core" else ROOTS[1]
            parts = list(path.relative_to(root).with_suffix("").parts)
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = modules_with_examples()


def test_modules_with_examples_are_found() -> None:
    assert "jdsl.ir.walk" in MODULES and "jdsl.text" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} fail"
