"""Issue #17: malformed 200 answers, stream deltas for unopened blocks, odd Retry-After values
and vendor error codes holding a key are typed errors that never show the key."""

from __future__ import annotations

import json
import math
import traceback

import pytest
from jdsl.errors import BadRequest, ProviderError, RateLimitError, ServerError
from jdsl.providers import Message
from jdsl.providers.errors import parse_retry_after
from loopback_server import Failure, Raw

ASK = [Message.user("q")]
KEY_IN_CODE = "bad key sk-test-SECRET0123456789abcdef"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"<html><body>502 Bad Gateway</body></html>", "text/html"),
        (b"[]", "application/json"),
        (b"[1, 2]", "application/json"),
        (b"{}", "application/json"),
        (b"", "application/json"),
        (b'"just a string"', "application/json"),
    ],
)
def test_a_malformed_200_is_a_server_error(server, make_model, vendor, body, content_type):
    server.script(Raw(body, content_type))
    with pytest.raises(ServerError) as info:
        make_model(vendor).converse("s", ASK)
    assert "malformed" in str(info.value)


def test_anthropic_delta_for_a_block_never_opened_is_a_server_error(server, make_model):
    frames = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "x"}},
        {"type": "message_stop"},
    ]
    body = "".join(f"event: {f['type']}\ndata: {json.dumps(f)}\n\n" for f in frames)
    server.script(Raw(body.encode(), "text/event-stream"))
    with pytest.raises(ServerError, match="malformed"):
        list(make_model("anthropic").stream("s", ASK))


@pytest.mark.parametrize("field", ["type", "code"])
@pytest.mark.parametrize("status", [400, 404, 500])
def test_a_key_in_the_vendor_error_code_is_scrubbed(server, make_model, vendor, field, status):
    body = json.dumps({"error": {field: KEY_IN_CODE, "message": "m"}}).encode()
    server.script(Failure(status, body=body))
    with pytest.raises(ProviderError) as info:
        make_model(vendor).converse("s", ASK)
    error = info.value
    shown = "".join(traceback.format_exception(error)) + repr(error) + repr(vars(error))
    assert "SECRET" not in shown
    assert isinstance(error, BadRequest | ServerError)


@pytest.mark.parametrize("value", ["nan", "NaN", "1e309", "inf", "-inf", "infinity"])
@pytest.mark.parametrize("header", ["retry-after", "retry-after-ms"])
def test_retry_after_is_finite_or_none(value, header):
    wait = parse_retry_after({header: value})
    assert wait is None or math.isfinite(wait)


def test_a_429_with_retry_after_nan_has_no_wait(server, make_model, vendor):
    server.script(Failure(429, headers={"retry-after": "nan"}))
    with pytest.raises(RateLimitError) as info:
        make_model(vendor).converse("s", ASK)
    assert info.value.retry_after_s is None or math.isfinite(info.value.retry_after_s)


def test_a_partial_usage_sum_says_a_turn_reported_none():
    from jdsl.providers import Usage

    total = Usage.sum([Usage(input_tokens=3, output_tokens=2), None, Usage(total_tokens=4)])
    assert total is not None and total.missing_turns == 1
    assert total.input_tokens == 3 and total.total_tokens == 9  # 3 + 2, then 4
    assert Usage.sum([None, None]) is None
    assert (Usage(input_tokens=1) + Usage(output_tokens=2)).total_tokens == 3


def _sdk_call(model, vendor):
    """The adapter's SDK call for one vendor: (owner object, attribute, stream attribute)."""
    if vendor == "openai":
        return model.client.chat.completions, "create", "create"
    if vendor == "anthropic":
        return model.client.messages, "create", "create"
    return model.client.models, "generate_content", "generate_content_stream"


@pytest.mark.parametrize("streamed", [False, True])
def test_a_local_type_error_in_the_sdk_call_is_not_a_server_error(
    server, make_model, vendor, streamed, monkeypatch
):
    """Only the reading of a response is guarded: a TypeError raised by the SDK call itself (a
    local bug, a bad argument) propagates as itself, not as a retryable ServerError."""
    model = make_model(vendor)
    owner, plain, stream = _sdk_call(model, vendor)

    def broken(*args, **kwargs):
        raise TypeError("create() got an unexpected keyword argument 'bogus'")

    monkeypatch.setattr(owner, stream if streamed else plain, broken)
    with pytest.raises(TypeError, match="bogus"):
        if streamed:
            list(model.stream("s", ASK))
        else:
            model.converse("s", ASK)
