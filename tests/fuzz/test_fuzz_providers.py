"""Fuzz target: provider error mapping over loopback servers speaking each vendor's wire format
to the official SDK clients. Any status, body and Retry-After gives a ProviderError subclass
(or a turn for a 200 that is well formed) with no key in its text, repr or traceback."""

from __future__ import annotations

import json
import math
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.errors import ProviderError, RateLimitError
from jdsl.providers import AnthropicModel, GeminiModel, Message, OpenAIModel

sys.path.insert(0, str(Path(__file__).parents[1] / "providers"))
from loopback_server import Failure, LoopbackServer, Raw  # noqa: E402

KEY = "sk-loopback-SECRET-0123456789"
CLASSES = {"anthropic": AnthropicModel, "openai": OpenAIModel, "gemini": GeminiModel}
IDS = {"anthropic": "claude-test", "openai": "gpt-test", "gemini": "gemini-test"}


@pytest.fixture(scope="module")
def models() -> Iterator[tuple[LoopbackServer, dict]]:
    with LoopbackServer(api_key=KEY) as server:
        made = {
            vendor: cls(
                IDS[vendor], api_key=KEY, base_url=server.url(vendor), max_retries=0, timeout_s=10
            )  # fmt: skip
            for vendor, cls in CLASSES.items()
        }
        yield server, made


texts = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            KEY,
            f"bad key {KEY}",
            "rate_limit_exceeded",
            "context_length_exceeded",
            "RESOURCE_EXHAUSTED",
            "x" * 5000,
        ]
    ),  # fmt: skip
)
error_bodies = st.one_of(
    st.builds(
        lambda code, kind, message: json.dumps(
            {"error": {"code": code, "type": kind, "message": message, "status": kind}}
        ).encode(),
        texts, texts, texts,
    ),
    st.binary(max_size=40),
    st.sampled_from([b"", b"[]", b"{}", b"null", b"<html>oops</html>", KEY.encode()]),
)  # fmt: skip
retry_after = st.one_of(
    st.none(), st.sampled_from(["nan", "inf", "1e309", "-1", "3", "Wed, 21 Oct 2015 07:28:00 GMT"]),
    st.text(alphabet="0123456789.e-+naif", max_size=8),
)  # fmt: skip


# 30% 200 with an odd body, 69% 4xx, 1% 5xx (a 5xx costs the SDKs ~0.2 s each: kept rare; the
# 5xx mapping runs the same scrubbing code as 4xx)
statuses = st.integers(0, 199).map(
    lambda n: 200 if n < 60 else (400 + n % 100 if n < 198 else 500 + n % 100)
)


@FUZZ
@given(
    st.sampled_from(sorted(CLASSES)),
    statuses,
    error_bodies,
    retry_after,
    st.sampled_from(["application/json", "text/html", "text/event-stream"]),
)
def test_any_error_answer_is_a_provider_error_without_the_key(
    models, vendor, status, body, wait, content_type
) -> None:
    server, made = models
    server.reset()
    headers = {"retry-after": wait} if wait is not None else {}
    server.script(Failure(status, body=body, headers=headers) if status != 200 else
                  Raw(body, content_type))  # fmt: skip
    try:
        made[vendor].converse("s", [Message.user("q")])
    except ProviderError as exc:
        shown = "".join(traceback.format_exception(exc)) + repr(exc) + repr(vars(exc))
        assert KEY not in shown
        if isinstance(exc, RateLimitError) and exc.retry_after_s is not None:
            assert math.isfinite(exc.retry_after_s) and exc.retry_after_s >= 0
