"""Issue 26 item 2 (redaction follows the value): once a value is secret (by key, pattern or
store name), every later event, prompt and error text carrying it shows it redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.testing import ScriptedModel
from jdsl.trace import JsonlTraceSink, Redactor

SECRET = "hunter2-correct-horse"


def get_password(user: str) -> str:
    """Fetch the user's password."""
    return SECRET


def login(user: str, pw: str) -> dict:
    """Log in."""
    raise RuntimeError(f"login failed for {user} with {pw}")


def secret_run(path: Path) -> list[dict]:
    tree = root("t", model="m").do(seq(
        act(get_password, user=ref("user")) >> "password",
        predict("user, password -> note", id="think"),
        act(login, user=ref("user"), pw=ref("password")) >> "session",
    ))  # fmt: skip
    sink = JsonlTraceSink(path)
    tree.run(model=ScriptedModel("ok"), trace_sink=sink, raise_errors=False, user="bob")
    sink.close()
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_value_stored_under_a_secret_name_is_hidden_in_every_later_event(tmp_path) -> None:
    events = secret_run(tmp_path / "r.jsonl")
    assert SECRET not in (tmp_path / "r.jsonl").read_text()
    by_kind = {e["kind"]: e["payload"] for e in events}
    assert by_kind["tool.call.completed"]["result"] == "«redacted»"
    assert by_kind["tool.call.started"]["arguments"]["pw"] == "«redacted»"
    assert "password: «redacted»" in by_kind["model.requested"]["messages"][0]["content"]
    assert by_kind["tool.call.failed"]["error"] == "login failed for bob with «redacted»"
    assert by_kind["episode.finished"]["error_message"].endswith("with «redacted»")
    assert by_kind["episode.finished"]["failure"]["reason"].endswith("with «redacted»")


@pytest.mark.parametrize(
    "first",
    [
        {"api_key": "plain-key-0001"},
        {"key": "db.password", "value": "plain-key-0001"},
        {"store": "token", "result": {"value": "plain-key-0001"}},
    ],
)
def test_the_redactor_follows_values_it_hid(first) -> None:
    redactor = Redactor()
    assert "plain-key-0001" not in json.dumps(redactor.redact(first))
    later = redactor.redact({"args": {"x": "plain-key-0001"}, "text": "using plain-key-0001 now"})
    assert later == {"args": {"x": "«redacted»"}, "text": "using «redacted» now"}
    assert redactor.redact_text("error: plain-key-0001") == "error: «redacted»"
    assert Redactor().redact_text("error: plain-key-0001") == "error: plain-key-0001"


def test_short_values_and_counters_are_not_followed() -> None:
    redactor = Redactor()
    redactor.redact({"password": "1234", "token_count": 123456, "secret": None})
    assert redactor.redact({"n": "1234", "m": 123456, "s": "abc"}) == {
        "n": "1234",
        "m": 123456,
        "s": "abc",
    }


def test_the_live_otel_sink_follows_secret_values_too() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from jdsl.trace import FanoutSink, ListTraceSink
    from jdsl.trace.otel import OtelSink
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tree = root("t", model="m").do(seq(
        act(get_password, user=ref("user")) >> "password",
        predict("user, password -> note", id="think"),
        act(login, user=ref("user"), pw=ref("password")) >> "session",
    ))  # fmt: skip
    with OtelSink(exporter=exporter, batch=False, capture_content=True) as sink:
        tree.run(model=ScriptedModel("ok"), trace_sink=FanoutSink(ListTraceSink(), sink),
                 raise_errors=False, user="bob")  # fmt: skip
    spans = exporter.get_finished_spans()
    text = repr([(dict(s.attributes), s.status.description, [dict(e.attributes) for e in s.events])
                 for s in spans])  # fmt: skip
    assert spans and SECRET not in text


def test_following_is_bounded() -> None:
    import time

    redactor = Redactor()
    redactor.redact(
        {"secret": [f"v{i:05d}-secret" for i in range(5000)], "password": "x" * 100_000}
    )
    started = time.perf_counter()
    text = "y" * 200_000 + " v04999-secret"
    assert redactor.redact_text(text).endswith("«redacted»")
    assert redactor.redact_text("v00000-secret") == "v00000-secret"  # the oldest were dropped
    assert time.perf_counter() - started < 1.0
