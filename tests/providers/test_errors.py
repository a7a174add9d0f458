"""SDK failures surface as typed jdsl errors, with no key and no raw body in the text."""

from __future__ import annotations

import sys
import traceback
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from jdsl.errors import (
    AuthenticationError,
    BadRequest,
    ContextWindowExceeded,
    MissingDependencyError,
    ProviderError,
    ProviderTimeout,
    RateLimitError,
    ServerError,
)
from jdsl.providers import AnthropicModel, GeminiModel, Message, OpenAIModel
from jdsl.providers.errors import map_sdk_error, parse_retry_after
from loopback_server import Failure, Raw, Reply, Stall, Truncated

ASK = [Message.user("q")]
CLASSES = {"anthropic": AnthropicModel, "openai": OpenAIModel, "gemini": GeminiModel}


def assert_clean(error: BaseException, secret: str) -> None:
    text = "".join(traceback.format_exception(error))
    assert secret not in text
    assert "RAW-BODY-MARKER" not in text
    assert secret not in repr(vars(error))


def call(model, streamed: bool):
    if streamed:
        return list(model.stream("s", ASK))
    return model.converse("s", ASK)


@pytest.mark.parametrize("streamed", [False, True])
def test_wrong_key_is_an_authentication_error(server, make_model, vendor, streamed):
    model = make_model(vendor, api_key="sk-WRONG-key-9876543210-zz")
    with pytest.raises(AuthenticationError) as info:
        call(model, streamed)
    error = info.value
    assert error.status_code == 401 and error.provider == vendor
    assert model.key_env in str(error)  # names what to set
    assert_clean(error, "sk-WRONG-key-9876543210-zz")
    assert_clean(error, server.api_key)


@pytest.mark.parametrize("streamed", [False, True])
def test_429_is_a_rate_limit_with_retry_after(server, make_model, vendor, streamed):
    server.script(Failure(429, headers={"retry-after": "7"}))
    with pytest.raises(RateLimitError) as info:
        call(make_model(vendor), streamed)
    assert info.value.retry_after_s == 7.0
    assert info.value.retryable
    assert "retry after 7s" in str(info.value)
    assert_clean(info.value, server.api_key)


def test_429_without_retry_after(server, make_model, vendor):
    server.script(Failure(429))
    with pytest.raises(RateLimitError) as info:
        call(make_model(vendor), False)
    assert info.value.retry_after_s is None


def test_retry_after_forms():
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= (parse_retry_after({"retry-after": later}) or 0) <= 30
    assert parse_retry_after({"retry-after-ms": "1500"}) == 1.5
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after(None) is None


@pytest.mark.parametrize("streamed", [False, True])
def test_500_is_a_server_error(server, make_model, vendor, streamed):
    server.script(Failure(500))
    with pytest.raises(ServerError) as info:
        call(make_model(vendor), streamed)
    assert info.value.status_code == 500 and info.value.retryable
    assert_clean(info.value, server.api_key)


def test_sdk_retries_are_used_when_configured(server, make_model, vendor):
    server.script(Failure(500), Reply(text="second try"))
    model = make_model(vendor, max_retries=1)
    assert model.converse("s", ASK).text == "second try"
    assert len(server.requests) == 2


def test_context_window_400(server, make_model, vendor):
    body = b'{"error": {"type": "invalid_request_error", "code": "context_length_exceeded", "message": "prompt is too long: 300000 tokens"}}'
    server.script(Failure(400, body=body))
    with pytest.raises(ContextWindowExceeded) as info:
        call(make_model(vendor), False)
    assert "context window" in str(info.value)


def test_other_400_is_a_bad_request_with_detail(server, make_model, vendor):
    body = (
        b'{"error": {"type": "invalid_request_error", "message": "bad thing sk-abcdefghijklmnop"}}'
    )
    server.script(Failure(400, body=body))
    with pytest.raises(BadRequest) as info:
        call(make_model(vendor), False)
    assert "bad thing" in info.value.detail and "sk-abcdefghijklmnop" not in info.value.detail
    assert "bad thing" not in str(info.value)


@pytest.mark.parametrize("streamed", [False, True])
def test_malformed_json_is_a_server_error(server, make_model, vendor, streamed):
    broken = b'{"id": "x", "content": [RAW-BODY-MARKER'
    if streamed:
        broken = b"event: message_start\r\ndata: {not json RAW-BODY-MARKER\r\n\r\n"
        server.script(Raw(broken, "text/event-stream"))
    else:
        server.script(Raw(broken))
    with pytest.raises(ServerError) as info:
        call(make_model(vendor), streamed)
    assert "malformed" in str(info.value)
    assert_clean(info.value, server.api_key)


@pytest.mark.parametrize("cut", ["marker", "connection"])
def test_truncated_stream_is_a_provider_timeout(server, make_model, vendor, cut):
    server.script(
        Truncated(Reply(text="héllo 世界 " * 5, tool_calls=[("c", "lookup", {"a": 1})]), cut)
    )
    with pytest.raises(ProviderTimeout) as info:
        list(make_model(vendor).stream("s", ASK))
    assert "incomplete" in str(info.value)
    assert_clean(info.value, server.api_key)


def test_connection_refused_is_a_provider_error(vendor):
    cls = CLASSES[vendor]
    root = "http://127.0.0.1:9" + ("/v1" if vendor == "openai" else "")
    model = cls("m", api_key="sk-x-1234567890abcdef", base_url=root, max_retries=0, timeout_s=5)
    with pytest.raises(ProviderError) as info:
        model.converse("s", ASK)
    assert_clean(info.value, "sk-x-1234567890abcdef")


def test_unrelated_exceptions_are_not_mapped():
    assert map_sdk_error(KeyError("x"), provider="openai") is None


@pytest.mark.parametrize(
    ("module", "cls", "extra"),
    [
        ("anthropic", AnthropicModel, "anthropic"),
        ("openai", OpenAIModel, "openai"),
        ("google.genai", GeminiModel, "gemini"),
    ],
)
def test_missing_sdk_names_the_extra(monkeypatch, module, cls, extra):
    monkeypatch.setitem(sys.modules, module, None)
    model = cls("m", api_key="k", base_url="http://127.0.0.1:9")
    with pytest.raises(MissingDependencyError) as info:
        model.converse("s", ASK)
    assert f"jdsl[{extra}]" in str(info.value)


def test_missing_key_names_the_variable(isolated_env, vendor):
    cls = CLASSES[vendor]
    with pytest.raises(AuthenticationError) as info:
        cls("m")
    assert cls.key_env in str(info.value)


def test_a_slow_answer_is_a_provider_timeout(server, make_model, vendor):
    server.script(Stall(1.0))
    with pytest.raises(ProviderTimeout) as info:
        make_model(vendor, timeout_s=0.2).converse("s", ASK)
    assert info.value.retryable


MID_STREAM = {
    "anthropic": b'event: message_start\r\ndata: {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 1}}}\r\n\r\n'
    b'event: error\r\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded RAW-BODY-MARKER"}}\r\n\r\n',
    "openai": b'data: {"error": {"message": "server overloaded RAW-BODY-MARKER", "type": "server_error"}}\r\n\r\n',
}


@pytest.mark.parametrize("vendor_name", sorted(MID_STREAM))
def test_an_error_event_mid_stream_is_a_server_error(server, make_model, vendor_name):
    server.script(Raw(MID_STREAM[vendor_name], "text/event-stream"))
    with pytest.raises(ServerError) as info:
        list(make_model(vendor_name).stream("s", ASK))
    assert "mid-stream" in str(info.value) and "Overloaded" not in str(info.value)
    assert_clean(info.value, server.api_key)


@pytest.mark.parametrize("vendor_class", sorted(CLASSES))
def test_nothing_listening_names_the_base_url(vendor_class):
    """A refused connection says which address was tried, so a typo in
    ``openai-compatible:NAME@URL`` is visible in the one-line error."""
    model = CLASSES[vendor_class](
        "m", api_key="k-SECRET-1234", base_url="http://127.0.0.1:9/v1", max_retries=0
    )
    with pytest.raises(ProviderError) as info:
        model.converse("s", ASK)
    message = str(info.value)
    assert "could not connect" in message
    assert "127.0.0.1:9/v1" in message
    assert_clean(info.value, "k-SECRET-1234")
