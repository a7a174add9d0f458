"""System packages some tests need (Graphviz's ``dot``, chromium, apt packages for Binder).

Locally a missing one skips the test with the reason and the install command; in CI (``CI`` is
``true``, as GitHub Actions sets it) it fails instead, so CI always runs these tests.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

__all__ = ["in_ci", "require_program"]


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def require_program(program: str, install: str) -> str:
    """The path of ``program`` (a name on PATH or an absolute path); skip (fail in CI) if none.

    ``install``: how to get it, e.g. ``apt-get install graphviz``.
    """
    found = program if Path(program).is_absolute() and Path(program).exists() else (
        shutil.which(program))  # fmt: skip
    if found:
        return found
    reason = f"{program} is not installed ({install}); CI runs this test"
    if in_ci():
        pytest.fail(reason)
    pytest.skip(reason)
