"""Redactor: secrets out, usage counters in, chain intact."""

from __future__ import annotations

import pytest
from jdsl.trace import JsonlTraceSink, Redactor, TraceEvent, read_events, verify_chain
from jdsl.trace.redact import PLACEHOLDER

P = "«redacted»"
SECRETS = [
    "sk-" + "A1b2C3d4" * 4,
    "sk-proj-" + "x" * 40,
    "sk-ant-api03-" + "Q" * 40,
    "ghp_" + "a" * 36,
    "github_pat_" + "B" * 30,
    "AKIAIOSFODNN7EXAMPLE",
    "AIza" + "S" * 35,
    "xoxb-1234567890-abcdef",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_secret_looking_strings_are_replaced_inside_text(secret: str) -> None:
    out = Redactor().redact({"note": f"key is {secret} ok", "list": [secret]})
    assert secret not in str(out)
    assert out["note"] == f"key is {P} ok"
    assert out["list"] == [P]


def test_bearer_tokens_and_private_keys() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----"
    out = Redactor().redact({"h": "Authorization was Bearer abc.def-123456", "k": f"x {pem} y"})
    assert out["h"] == f"Authorization was Bearer {P}"
    assert out["k"] == f"x {P} y"


@pytest.mark.parametrize(
    "key",
    ["password", "api_key", "apiKey", "x-api-key", "Authorization", "access_token",
     "client_secret", "refresh-token", "OPENAI_API_KEY", "private_key"],
)  # fmt: skip
def test_values_under_sensitive_key_names_are_replaced(key: str) -> None:
    assert Redactor().redact({"outer": {key: "hunter2"}}) == {"outer": {key: P}}


def test_usage_counters_survive() -> None:
    usage = {
        "input_tokens": 120,
        "output_tokens": 30,
        "cached_input_tokens": 100,
        "total_tokens": 150,
        "reasoning_tokens": 7,
        "max_tokens": 1024,
    }
    payload = {"usage": usage, "react": {"usage": dict(usage)}, "tokens": 5}
    assert Redactor().redact(payload) == payload


def test_numeric_token_counters_of_any_provider_survive_but_token_strings_do_not() -> None:
    gemini = {"promptTokenCount": 10, "candidates_token_count": 3, "thoughtsTokenCount": 0}
    assert Redactor().redact(gemini) == gemini
    assert Redactor().redact({"token_count": "abc", "password": 1234}) == {
        "token_count": P,
        "password": P,
    }


def test_configured_key_names_and_paths() -> None:
    redactor = Redactor(key_names=["ssn"], json_paths=["customer.zip"])
    out = redactor.redact({"ssn": "123", "customer": {"zip": "02139", "name": "Ada"}, "zip": "1"})
    assert out == {"ssn": P, "customer": {"zip": P, "name": "Ada"}, "zip": "1"}
    assert redactor.with_paths(["zip"]).redact({"zip": "1"}) == {"zip": P}


def test_blackboard_write_of_a_sensitive_key_hides_value_and_previous() -> None:
    payload = {"key": "api_token", "value": "abc", "previous": None, "writer": "n"}
    assert Redactor().redact(payload) == {**payload, "value": P}


def test_disabled_redactor_returns_input_and_input_is_never_mutated() -> None:
    payload = {"password": "x"}
    assert Redactor(enabled=False).redact(payload) is payload
    Redactor().redact(payload)
    assert payload == {"password": "x"}


def test_jsonl_sink_redacts_before_disk_and_the_chain_verifies(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    sink = JsonlTraceSink(path)
    secret = "sk-ant-api03-" + "z" * 40
    event = sink.emit(TraceEvent(kind="user.message", payload={"content": f"my key {secret}"}))
    sink.flush()
    assert secret not in path.read_text()
    assert event.payload["content"] == f"my key {P}"  # the emitted event is what was written
    assert verify_chain(read_events(path)) == []


def test_jsonl_sink_can_opt_out_of_redaction(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    JsonlTraceSink(path, redactor=Redactor(enabled=False)).emit(
        TraceEvent(kind="annotation", payload={"password": "kept"})
    )
    assert read_events(path)[0].payload == {"password": "kept"}


def test_patterns_and_placeholder_are_configurable() -> None:
    secret = "sk-ant-api03-" + "Q" * 40
    plain = Redactor(patterns=[], placeholder=r"\1[gone]")
    assert plain.redact({"note": secret, "password": "x"}) == {
        "note": secret,
        "password": r"\1[gone]",
    }
    custom = Redactor(patterns=[r"\d{3}-\d{2}-\d{4}"])
    assert custom.redact_text("ssn 123-45-6789") == f"ssn {P}"


def test_a_basic_authorization_header_in_text_is_redacted() -> None:
    """``Authorization: Bearer ...`` was redacted in text, ``Authorization: Basic ...`` not."""
    from jdsl.trace import ListTraceSink, TraceEvent

    text = "curl -H 'Authorization: Basic dXNlcjpodW50ZXIy' https://x"
    assert Redactor().redact({"log": text}) == {
        "log": f"curl -H 'Authorization: Basic {PLACEHOLDER}' https://x"
    }
    assert Redactor().redact({"log": "a basic understanding of it"}) == {
        "log": "a basic understanding of it"
    }
    sink = ListTraceSink(redactor=Redactor())
    sink.emit(
        TraceEvent(
            capture_id="c", episode_id="e", kind="tool.call.completed", payload={"result": text}
        )
    )
    assert "dXNlcjpodW50ZXIy" not in str(sink.events[0].payload)


def test_an_unknown_actor_is_a_typed_error() -> None:
    from jdsl.errors import JdslError
    from jdsl.trace import ListTraceSink, recorder_for

    record = recorder_for(ListTraceSink(), "cap", "ep")
    with pytest.raises(JdslError, match="actor 'nobody' is not one of") as caught:
        record("note", {}, None, "nobody")
    assert isinstance(caught.value, ValueError)
