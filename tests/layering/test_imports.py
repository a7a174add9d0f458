"""Import direction (docs/design.md §1, docs/ARCHITECTURE.md "Layering"), read from every file's AST.

Core (``core/jdsl``) never imports ``jdsl_nb``. Inside core, each package may import the layers
to its left and the packages of its own layer, never a layer to its right, and the packages of
one layer never import each other in a cycle. Every import counts: module level, inside
functions (lazy), under ``TYPE_CHECKING``, and ``importlib.import_module("...")`` with a literal
name. A violation is reported as ``file:line: importer -> imported``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "core" / "jdsl"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "expr", "signature", "trace", "settings", "data", "lazy"),
    ("providers",),
    ("interaction",),
    ("flows",),
    ("tree",),
    ("authoring", "dsl", "ir", "text", "drawing", "inputs", "jdsl"),
    ("compiler", "package"),
    ("envs", "importers", "testing", "doctor"),
    ("demo",),
    ("commands",),
    ("cli",),
    ("__main__",),
)
"""Core packages from left (imported by all) to right, as ARCHITECTURE.md orders them.

``jdsl`` is the package's own ``__init__`` (it re-exports the authoring API from ``dsl`` and
``tree``, so a lower layer importing ``jdsl`` itself would import upward). Not named in
ARCHITECTURE.md, placed by what they hold and import: ``authoring`` (the argument checks of
``dsl``) with ``dsl``; ``settings`` (budgets YAML), ``data``
(package data) and ``lazy`` (the PEP 562 ``__getattr__`` of the packages that import their
names on first use) at the bottom; ``drawing`` (IR dicts + trace events -> DOT/SVG) with ``ir`` and
``text``; ``testing`` (public test doubles) with the top-level consumers, so no runtime layer
depends on test doubles; ``doctor`` (what the installation can do) with them, so the notebook's ``%behavior doctor`` and
``jdsl doctor`` share it; ``demo`` (the main job) under ``cli``, which runs it; ``commands``
(``jdsl run``, ``show``, ``doctor``, ``export``, ``package validate``, ``compile --holdout``) between them, so ``cli`` mounts them; ``__main__`` (``python -m jdsl``) on top, running ``cli``.
"""

ALLOWED_UPWARD: dict[tuple[str, str], str] = {}
"""(importer package, imported package) -> the documented reason an upward import is allowed."""


@dataclass(frozen=True)
class Import:
    """One import in a file: the importing module, the imported module, where it is."""

    importer: str
    imported: str
    path: Path
    line: int

    def where(self) -> str:
        try:
            shown = self.path.relative_to(REPO)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


def module_name(path: Path, source_root: Path) -> str:
    """``core/jdsl/tree/base.py`` -> ``jdsl.tree.base``; a package ``__init__`` is the package."""
    parts = list(path.relative_to(source_root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve_relative(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _literal_import(node: ast.Call) -> str | None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in ("import_module", "__import__") and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def imports_of(path: Path, source_root: Path) -> Iterator[Import]:
    """Every module ``path`` imports (``from a import b`` also yields ``a.b``: b may be a module)."""
    module = module_name(path, source_root)
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_relative(node, module, is_package) if node.level else node.module or ""
            names = [base, *(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")]
        elif isinstance(node, ast.Call) and (literal := _literal_import(node)):
            names = [literal]
        for name in names:
            yield Import(module, name, path, node.lineno)


def all_imports(source_root: Path, package: str = "jdsl") -> list[Import]:
    """The imports of every ``.py`` file of ``package`` under ``source_root``, in file order."""
    files = sorted((source_root / package).rglob("*.py"))
    return [found for path in files for found in imports_of(path, source_root)]


def notebook_imports(found: list[Import]) -> list[str]:
    """``file:line: module imports jdsl_nb...`` for every import of the notebook layer."""
    hits: dict[tuple[str, int], str] = {}
    for i in found:  # ``from jdsl_nb import x`` is reported once, as an import of jdsl_nb
        if i.imported == "jdsl_nb" or i.imported.startswith("jdsl_nb."):
            hits.setdefault(
                (str(i.path), i.line), f"{i.where()}: {i.importer} imports {i.imported}"
            )
    return [hits[key] for key in sorted(hits)]


def core_package(module: str) -> str | None:
    """``jdsl.tree.base`` -> ``tree``; ``jdsl`` -> ``jdsl``; not core -> None."""
    parts = module.split(".")
    if parts[0] != "jdsl":
        return None
    return parts[1] if len(parts) > 1 else "jdsl"


def layer_of(package: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> int | None:
    """The index of the layer holding ``package``, None when no layer names it."""
    return next((index for index, names in enumerate(layers) if package in names), None)


def package_edges(found: list[Import], root: Path = CORE) -> dict[tuple[str, str], list[Import]]:
    """(importer package, imported package) -> its imports, for imports across packages.

    ``from jdsl import x`` where ``x`` is not a module is counted once, as an import of ``jdsl``;
    the ``jdsl.x`` name it also yields maps to package ``x`` only when that package exists.
    """
    edges: dict[tuple[str, str], list[Import]] = {}
    for item in found:
        source, target = core_package(item.importer), core_package(item.imported)
        if source is None or target is None or source == target:
            continue
        if target != "jdsl" and not _is_core_package(target, root):
            continue
        places = edges.setdefault((source, target), [])
        if not places or places[-1].where() != item.where():
            places.append(item)
    return edges


def _is_core_package(name: str, root: Path) -> bool:
    return (root / name).is_dir() or (root / f"{name}.py").is_file()


def unknown_packages(root: Path = CORE) -> list[str]:
    """Core packages and modules that no layer names (each needs a place in :data:`LAYERS`)."""
    names = {p.stem for p in root.glob("*.py") if p.name != "__init__.py"}
    names |= {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return sorted(name for name in names if layer_of(name) is None)


def upward_imports(
    edges: dict[tuple[str, str], list[Import]], layers: tuple[tuple[str, ...], ...] = LAYERS
) -> dict[tuple[str, str], str]:
    """(importer, imported) -> one ``file:line: ...`` line per import of a layer to the right."""
    bad: dict[tuple[str, str], str] = {}
    for (source, target), places in sorted(edges.items()):
        low, high = layer_of(source, layers), layer_of(target, layers)
        if low is not None and high is not None and high > low:
            bad[(source, target)] = "\n".join(
                f"{item.where()}: {source} (layer {low}) imports {item.imported} "
                f"({target}, layer {high}); a layer imports only the layers to its left"
                for item in places
            )
    return bad


def same_layer_cycles(
    edges: dict[tuple[str, str], list[Import]], layers: tuple[tuple[str, ...], ...] = LAYERS
) -> list[str]:
    """A cycle among the packages of one layer, as ``a -> b -> a`` with where each edge is."""
    cycles = []
    for names in layers:
        graph = {a: sorted(b for (s, b) in edges if s == a and b in names) for a in names}
        for start in names:
            path = _path_back(graph, start)
            if path and start == min(path[:-1]):
                hops = [edges[(a, b)][0].where() for a, b in zip(path, path[1:], strict=False)]
                cycles.append(" -> ".join(path) + " (" + ", ".join(hops) + ")")
    return cycles


def _path_back(graph: dict[str, list[str]], start: str) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for nxt in graph.get(node, []):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None


# --- the checks on this repository -------------------------------------------------------------

CORE_IMPORTS = all_imports(CORE.parent)
EDGES = package_edges(CORE_IMPORTS)
UPWARD = upward_imports(EDGES)


def test_core_never_imports_the_notebook_layer():
    found = notebook_imports(CORE_IMPORTS)
    assert not found, "core must not import jdsl_nb (docs/design.md §1):\n" + "\n".join(found)


def test_the_notebook_imports_no_command_code():
    """``jdsl_nb`` reads inputs through ``jdsl.inputs``, never the command line's modules."""
    found = [
        f"{i.where()}: {i.importer} imports {i.imported}"
        for i in all_imports(REPO / "core", "jdsl_nb")
        if core_package(i.imported) in ("commands", "cli")
    ]
    assert not found, "jdsl_nb must not import command code:\n" + "\n".join(found)


def test_every_core_package_has_a_layer():
    missing = unknown_packages()
    assert not missing, f"add {missing} to LAYERS in {Path(__file__).name} (ARCHITECTURE.md order)"


@pytest.mark.parametrize("layer", range(len(LAYERS)), ids=["/".join(n) for n in LAYERS])
def test_no_layer_imports_a_layer_to_its_right(layer: int):
    mine = {key: text for key, text in UPWARD.items() if layer_of(key[0]) == layer}
    for key in ALLOWED_UPWARD:
        mine.pop(key, None)
    assert not mine, "imports against the layer order:\n" + "\n".join(mine.values())


def test_packages_of_one_layer_import_each_other_without_cycles():
    cycles = same_layer_cycles(EDGES)
    assert not cycles, "import cycles inside a layer:\n" + "\n".join(cycles)


def test_every_allowed_upward_import_still_exists():
    stale = sorted(set(ALLOWED_UPWARD) - set(UPWARD))
    assert not stale, f"no longer needed, remove from ALLOWED_UPWARD: {stale}"


# --- the checker finds what it should (a synthetic package) ------------------------------------


@pytest.fixture
def fake_core(tmp_path: Path) -> Path:
    files = {
        "jdsl/__init__.py": "from jdsl.dsl import seq\n",
        "jdsl/errors.py": "def f():\n    from jdsl.tree import Node\n    import jdsl.tree.base\n",
        "jdsl/dsl.py": "from jdsl.text import parse\n",
        "jdsl/text/__init__.py": "from . import parser\n",
        "jdsl/text/parser.py": "from ..dsl import seq\nimport importlib\n"
        "importlib.import_module('jdsl_nb.views')\n",
        "jdsl/tree/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from jdsl_nb import drawing\n",
        "jdsl/demo/report.py": "from jdsl.drawing import tree_dot\nimport jdsl_nb.render\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_checker_reports_notebook_imports_with_file_and_line(fake_core: Path):
    found = notebook_imports(all_imports(fake_core))
    assert [line.split(": ")[0].rsplit("/", 3)[-3:] for line in found] == [
        ["jdsl", "demo", "report.py:2"],
        ["jdsl", "text", "parser.py:3"],
        ["jdsl", "tree", "__init__.py:3"],
    ]


def test_checker_reports_upward_and_cyclic_imports(fake_core: Path):
    edges = package_edges(all_imports(fake_core), fake_core / "jdsl")
    upward = upward_imports(edges)
    assert set(upward) == {("errors", "tree")}
    lines = upward[("errors", "tree")].replace(str(fake_core) + "/jdsl/", "").splitlines()
    assert [line.split(";")[0] for line in lines] == [
        "errors.py:2: errors (layer 0) imports jdsl.tree (tree, layer 4)",
        "errors.py:3: errors (layer 0) imports jdsl.tree.base (tree, layer 4)",
    ]
    cycles = same_layer_cycles(edges)
    assert len(cycles) == 1 and cycles[0].startswith("dsl -> text -> dsl (")
    assert "parser.py:1" in cycles[0]


def test_a_clean_package_passes(tmp_path: Path):
    (tmp_path / "jdsl" / "tree").mkdir(parents=True)
    (tmp_path / "jdsl" / "tree" / "__init__.py").write_text("from jdsl.errors import E\n")
    (tmp_path / "jdsl" / "errors.py").write_text("class E(Exception):\n    pass\n")
    found = all_imports(tmp_path)
    assert not notebook_imports(found)
    edges = package_edges(found, tmp_path / "jdsl")
    assert not upward_imports(edges) and not same_layer_cycles(edges)
