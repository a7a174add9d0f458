"""Fixtures for provider tests: the loopback server and adapters pointed at it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from jdsl.providers.anthropic import AnthropicModel  # noqa: E402
from jdsl.providers.gemini import GeminiModel  # noqa: E402
from jdsl.providers.openai import OpenAIModel  # noqa: E402
from loopback_server import LoopbackServer  # noqa: E402

VENDORS = ("anthropic", "openai", "gemini")
MODEL_IDS = {"anthropic": "claude-test", "openai": "gpt-test", "gemini": "gemini-test"}
CLASSES: dict[str, Any] = {
    "anthropic": AnthropicModel,
    "openai": OpenAIModel,
    "gemini": GeminiModel,
}


@pytest.fixture(scope="session")
def _running_server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as running:
        yield running


@pytest.fixture
def server(_running_server: LoopbackServer) -> LoopbackServer:
    """The loopback server, with an empty script and no recorded requests."""
    _running_server.reset()
    return _running_server


@pytest.fixture
def make_model(server: LoopbackServer) -> Callable[..., Any]:
    """make_model(vendor, **kw): an adapter with max_retries=0 aimed at the loopback server."""

    def make(vendor: str, **kw: Any) -> Any:
        options: dict[str, Any] = {
            "api_key": server.api_key,
            "base_url": server.url(vendor),
            "max_retries": 0,
            "timeout_s": 10,
        }
        options.update(kw)
        return CLASSES[vendor](MODEL_IDS[vendor], **options)

    return make


@pytest.fixture(params=VENDORS)
def vendor(request: pytest.FixtureRequest) -> str:
    return str(request.param)
