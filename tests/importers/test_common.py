"""jdsl.importers.common.read_json: typed errors that name the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from jdsl.errors import JdslError
from jdsl.importers.common import ImportFormatError, read_json


def test_read_json_parses_utf8(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text('{"name": "café"}', encoding="utf-8")
    assert read_json(path) == {"name": "café"}


def test_read_json_names_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"name": "café"}'.encode("latin-1"))
    with pytest.raises(ImportFormatError) as info:
        read_json(path)
    assert isinstance(info.value, JdslError)
    assert info.value.path == str(path)
    assert str(path) in str(info.value) and "UTF-8" in str(info.value)
    assert info.value.where == "byte 13"


def test_read_json_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="missing.json"):
        read_json(tmp_path / "missing.json")


def test_read_json_names_line_and_column_of_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": }', encoding="utf-8")
    with pytest.raises(ImportFormatError, match="line 2 col 8"):
        read_json(path)
