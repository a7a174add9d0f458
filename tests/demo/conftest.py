"""Every package the demo tests compile passes the check of ``tests/compiler/frozen.py``: no
frozen name, id or list position."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True, scope="session")
def _nothing_frozen() -> Any:
    sys.path.insert(0, str(Path(__file__).parents[1] / "compiler"))
    from frozen import checking_packages

    with checking_packages():
        yield
