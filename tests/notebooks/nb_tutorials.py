"""Shared helpers of the tutorial tests: where the notebooks are, the offline set-up, running."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"
KEY_VARIABLES = (
    "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
    "DEEPSEEK_API_KEY", "OPENAI_COMPATIBLE_API_KEY",
)
CLOSED = "http://127.0.0.1:9"
# a string each tutorial's outputs must show: the lesson actually happened
EXPECTED = {
    "01_quickstart.ipynb": "written by root/sequence.0/action.1",
    "02_predict_and_react.ipynb": "'max_steps'",
    "03_compile_retail.ipynb": "verification passed",
    "04_real_traces.ipynb": "airline_test_18",
    "05_providers_and_tools.ipynb": "cited: ['tau_retail/wiki.md#cancel-pending-order']",
}


def tutorial_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No keys, no reachable proxy, no stray renderer choice: the CI set-up."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, CLOSED)
    monkeypatch.setenv("NO_PROXY", "")


def execute(path: Path, workdir: Path, kernel_name: str = "python3") -> nbformat.NotebookNode:
    """Run every cell of ``path`` in ``workdir``; raises CellExecutionError on a failing cell."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name=kernel_name,
                            resources={"metadata": {"path": str(workdir)}})
    client.execute()
    return nb


def output_text(nb: nbformat.NotebookNode) -> str:
    """Every stream and text/plain output of ``nb``, joined."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(json.dumps(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)
