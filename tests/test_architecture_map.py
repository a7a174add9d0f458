"""docs/ARCHITECTURE.md opens with a map a newcomer follows in two hops: every module of the
layers line exists and every module of ``jdsl`` is on it; every dotted name the map gives
(``jdsl.tree.blackboard``, ``jdsl.trace.iter_episodes``) resolves to a module or an attribute."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]
_DOC = (_ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
_MAP = _DOC.split("## Map (start here)", 1)[1].split("\n## ", 1)[0]
_LAYERS = _MAP.split("```", 2)[1]
_NAMES = sorted(set(re.findall(r"`((?:jdsl|jdsl_nb)(?:\.\w+)+)", _MAP)))
_ON_LINE = set(re.findall(r"[a-z_]+", _LAYERS)) - {"jdsl_nb", "notebook", "core", "never", "back"}
_PACKAGE = _ROOT / "core" / "jdsl"
_NOT_CODE = {"__init__", "__pycache__", "examples"}  # the package itself; .behavior files


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(target, attr):
                return False
            target = getattr(target, attr)
        return True
    return False


def test_the_map_names_at_least_the_concepts_it_promises() -> None:
    assert len(_NAMES) >= 20, _NAMES  # the parse found the map, not an empty section


@pytest.mark.parametrize("dotted", _NAMES)
def test_every_name_on_the_map_resolves(dotted: str) -> None:
    assert _resolves(dotted), f"docs/ARCHITECTURE.md's map names {dotted}, which does not exist"


def test_every_module_of_jdsl_is_on_the_layers_line_and_nothing_else_is() -> None:
    modules = {p.stem for p in _PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    modules -= _NOT_CODE
    assert sorted(modules - _ON_LINE) == [], "modules missing from the map's layers line"
    assert sorted(_ON_LINE - modules) == [], "names on the map's layers line that are no module"


def test_every_module_on_the_layers_line_is_a_home_in_the_concept_table() -> None:
    table = set(re.findall(r"`(jdsl\.\w+)", _MAP.split("Where each concept lives", 1)[1]))
    homes = {f"jdsl.{name}" for name in _ON_LINE}
    assert sorted(homes - table - {"jdsl.cli", "jdsl.__main__"}) == []
