"""Live calls to the real APIs: ``pytest -m live tests/providers`` with keys in env or .env.

Skipped unless the ``live`` marker is selected (or JDSL_LIVE=1) and the vendor's key is set, so
``make test`` never touches the network. Model ids: JDSL_LIVE_<VENDOR>_MODEL overrides.
"""

from __future__ import annotations

import os

import pytest
from jdsl.providers import Message, ModelTurn, ProviderSettings, ToolSpec, read_env, resolve_model

pytestmark = pytest.mark.live

LIVE = {
    "anthropic": ("claude-haiku-4-5", ("ANTHROPIC_API_KEY",)),
    "openai": ("gpt-4o-mini", ("OPENAI_API_KEY",)),
    "gemini": ("gemini-2.5-flash", ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
}
ADD = ToolSpec(
    name="add",
    description="Add two integers.",
    parameters={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)


@pytest.fixture(params=sorted(LIVE))
def live_model(request: pytest.FixtureRequest):
    selected = "live" in (request.config.getoption("markexpr") or "")
    if not (selected or os.environ.get("JDSL_LIVE") == "1"):
        pytest.skip("live tests run only with -m live or JDSL_LIVE=1")
    vendor = request.param
    default_id, keys = LIVE[vendor]
    env = read_env()
    if not any(env.get(k) for k in keys):
        pytest.skip(f"set {' or '.join(keys)} to run live {vendor} tests")
    model_id = env.get(f"JDSL_LIVE_{vendor.upper()}_MODEL", default_id)
    return resolve_model(model_id, settings=ProviderSettings(max_retries=2, timeout_s=60))


def test_live_converse_and_tool_round_trip(live_model):
    ask = [Message.user("Use the add tool to add 2 and 3, then reply with only the number.")]
    turn = live_model.converse("Be terse.", ask, [ADD])
    assert turn.finish_reason == "tool_call" and turn.tool_calls[0].name == "add"
    assert turn.usage is not None and turn.usage.input_tokens
    history = [*ask, turn.as_message(), Message.tool(turn.tool_calls[0], "5")]
    final = live_model.converse("Be terse.", history, [ADD])
    assert "5" in final.text


def test_live_stream(live_model):
    items = list(live_model.stream("Be terse.", [Message.user("Say hello in one word.")]))
    assert isinstance(items[-1], ModelTurn) and items[-1].text
    assert "".join(i for i in items if isinstance(i, str)) == items[-1].text
