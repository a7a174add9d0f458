"""Shared pytest fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """No provider keys, no user config: a clean environment for provider tests."""
    for var in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GOOGLE_API_KEY",
        "GEMINI_API_KEY",
        "DEEPSEEK_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path
