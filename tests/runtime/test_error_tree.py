"""The error tree drawn in ``jdsl/errors.py`` is every JdslError subclass jdsl defines."""

from __future__ import annotations

import importlib
import pkgutil
import re

import jdsl
import jdsl.errors

_BRANCH = re.compile(r"^(?P<indent>[ │]*)[├└]── (?P<name>\w+)")


def drawn_parents() -> dict[str, str]:
    """Class name -> its parent in the drawing of ``jdsl.errors``' docstring."""
    lines = (jdsl.errors.__doc__ or "").split("JdslError\n", 1)[1].splitlines()
    parents: dict[str, str] = {}
    stack = ["JdslError"]
    for line in lines:
        match = _BRANCH.match(line.strip("\n")[4:])
        if not match:
            if line.strip() and not line.strip().startswith(("│", "├", "└")):
                break
            continue
        depth = len(match["indent"]) // 4
        del stack[depth + 1 :]
        parents[match["name"]] = stack[depth]
        stack.append(match["name"])
    return parents


def defined_parents() -> dict[str, str]:
    """Every JdslError subclass of every jdsl module -> its nearest JdslError base."""
    for module in pkgutil.walk_packages(jdsl.__path__, "jdsl."):
        importlib.import_module(module.name)
    found: dict[str, str] = {}
    stack = [jdsl.errors.JdslError]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("jdsl."):
                base = next(b for b in sub.__bases__ if issubclass(b, jdsl.errors.JdslError))
                found[sub.__name__] = base.__name__
            stack.append(sub)
    return found


def test_the_drawing_is_the_classes_that_exist() -> None:
    drawn, defined = drawn_parents(), defined_parents()
    missing = sorted(set(defined) - set(drawn))
    extra = sorted(set(drawn) - set(defined))
    assert not missing, f"draw these in jdsl/errors.py: {missing}"
    assert not extra, f"these drawn errors do not exist: {extra}"
    moved = {
        name: (drawn[name], parent) for name, parent in defined.items() if drawn[name] != parent
    }
    assert not moved, f"drawn under the wrong parent (drawn, actual): {moved}"
