"""The front ends the views speak of are the ones the notebook extra installs (issue 27)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_notebook_extra_installs_notebook_7_and_jupyterlab():
    extra = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]["notebook"]  # fmt: skip
    names = {spec.split(">")[0].split("[")[0]: spec for spec in extra}
    assert names["notebook"].startswith("notebook>=7") and "jupyterlab" in names
