from __future__ import annotations

from pathlib import Path

import pytest
from jdsl.settings import Settings, SettingsError, load_settings


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "jdsl.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_yaml_and_call_precedence(tmp_path: Path) -> None:
    assert load_settings().react.max_steps == 8
    settings = load_settings(
        write(tmp_path, "react:\n  max_steps: 4\n  timeout_s: 120\nconcurrency: 2\n")
    )
    assert (settings.react.max_steps, settings.react.timeout_s, settings.concurrency) == (
        4,
        120.0,
        2,
    )
    assert settings.react.max_action_calls == 16  # library default kept
    assert settings.merged({"react": {"max_steps": 2}}).react.max_steps == 2
    assert settings.merged({"react": {"max_steps": 2}}).react.timeout_s == 120.0


@pytest.mark.parametrize(
    "text",
    [
        "react:\n  max_stpes: 4\n",  # unknown key
        "colour: blue\n",
        "react:\n  max_steps: 4\n  max_steps: 5\n",  # duplicate key
        "base: &b {max_steps: 3}\nreact: *b\n",  # anchors and aliases
        "react:\n  max_steps: '4'\n",  # strings are not numbers
        "react:\n  max_steps: 0\n",
        "- a list\n",
        "react: [unclosed\n",
    ],
)
def test_strict_yaml_rejects(tmp_path: Path, text: str) -> None:
    with pytest.raises(SettingsError):
        load_settings(write(tmp_path, text))


def test_missing_file_and_bad_override(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="cannot read"):
        load_settings(tmp_path / "missing.yaml")
    with pytest.raises(SettingsError):
        Settings().merged({"react": {"nope": 1}})


def test_empty_file_is_defaults(tmp_path: Path) -> None:
    assert load_settings(write(tmp_path, "")) == Settings()
