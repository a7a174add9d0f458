"""The curated ``__all__`` of the packages this area owns names real, importable things."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "module", ["jdsl.envs", "jdsl.envs.tau_retail", "jdsl.importers", "jdsl.data"]
)
def test_all_names_resolve(module: str) -> None:
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", [])
    assert len(names) == len(set(names))
    missing = [name for name in names if not hasattr(mod, name)]
    assert missing == []
