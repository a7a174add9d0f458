"""The shipped package data is the shared tau-bench data, byte for byte, and installs with jdsl."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from jdsl.envs.data import DataNotFoundError, data_path, load_json, read_text

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
PACKAGE_DATA = REPO / "core" / "jdsl" / "data"


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.name != "__init__.py"
    }


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/data next to this checkout")
def test_package_data_is_byte_identical_to_shared_data() -> None:
    shared, shipped = _files(SHARED), _files(PACKAGE_DATA)
    assert sorted(shipped) == sorted(shared)
    changed = [name for name in shared if shared[name] != shipped[name]]
    assert changed == []


def test_importlib_resources_finds_every_shipped_file() -> None:
    root = resources.files("jdsl.data")
    for name, content in _files(PACKAGE_DATA).items():
        assert root.joinpath(*name.split("/")).read_bytes() == content, name


def test_the_license_notice_ships_with_the_data() -> None:
    assert "MIT License" in read_text("LICENSE-tau-bench")
    assert "Sierra" in read_text("LICENSE-tau-bench")
    assert "LICENSE-tau-bench" in read_text("README.md")


def test_pyproject_package_data_covers_the_data_folder() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["jdsl"]
    assert "data/**/*" in patterns


@pytest.mark.slow
def test_a_build_of_the_package_ships_the_data(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "core").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        if (REPO / name).exists():
            (source / name).write_bytes((REPO / name).read_bytes())
    subprocess.run(["cp", "-r", str(REPO / "core" / "jdsl"), str(source / "core")], check=True)
    (source / "core" / "jdsl_nb").mkdir()
    (source / "core" / "jdsl_nb" / "__init__.py").write_text("")
    build = tmp_path / "build"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools import setup; setup()",
            "-q",
            "build_py",
            "--build-lib",
            str(build),
        ],
        cwd=source,
        check=True,
        capture_output=True,
    )
    assert _files(build / "jdsl" / "data") == _files(PACKAGE_DATA)


def test_data_path_and_load_json_read_the_shipped_files() -> None:
    assert data_path("tau_retail", "db").is_dir()
    tasks = load_json("tau_retail", "tasks.json")
    assert len(tasks) == 635
    assert load_json("tau_retail", "tasks.json") is not tasks  # a fresh object each call
    assert len(load_json("tau_airline", "episodes.json")) == 54


def test_a_missing_data_file_names_itself_and_the_shipped_folders() -> None:
    with pytest.raises(DataNotFoundError, match="tau_retail/nope.json.*tau_airline") as info:
        data_path("tau_retail", "nope.json")
    assert info.value.parts == ("tau_retail", "nope.json")
    assert isinstance(info.value, FileNotFoundError)
