"""Payloads encoded once per tree (JsonText, PayloadTemplate): same data, same bytes, and
redaction never answered from another redactor's screen."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jdsl import act, check, root, seq
from jdsl.trace import JsonlTraceSink, ListTraceSink, Redactor, read_events
from jdsl.trace.canonical import event_json
from jdsl.trace.shared import JsonText, PayloadTemplate, thaw

KEY = "sk-proj-" + "a" * 40


def login(user: str, password: str) -> dict[str, Any]:
    """A tool whose arguments and result hold secrets."""
    return {"user": user, "token": "t-123", "note": f"key {KEY}"}


def noop() -> None:
    """Does nothing."""


def _tree() -> Any:
    return root("shared").do(
        seq(act(login, user="ref:user", password="ref:password") >> "session",
            check("user", equals=KEY))
    )  # fmt: skip


def _jsonl(tree: Any, path: Any, **options: Any) -> str:
    with JsonlTraceSink(path, **options) as sink:
        tree.run(trace_sink=sink, raise_errors=False, user="ann", password="hunter2")
    return path.read_text()


def test_secrets_in_shared_payloads_are_redacted_run_after_run(tmp_path) -> None:
    tree = _tree()
    for n in range(3):  # the second and third runs reuse the tree's encoded payloads
        text = _jsonl(tree, tmp_path / f"{n}.jsonl")
        assert KEY not in text and "hunter2" not in text and "t-123" not in text
        assert "«redacted»" in text


def test_a_screen_answer_is_not_reused_by_a_different_redactor(tmp_path) -> None:
    tree = root("plain").do(act(noop))
    first = _jsonl(tree, tmp_path / "a.jsonl")  # default redactor: the label is kept
    assert '"label":"act(noop)"' in first
    strict = _jsonl(tree, tmp_path / "b.jsonl", redactor=Redactor(key_names=["label"]))
    assert '"label":"act(noop)"' not in strict and '"label":"«redacted»"' in strict


def test_list_events_own_fresh_payloads() -> None:
    tree = _tree()
    one, two = ListTraceSink(), ListTraceSink()
    for sink in (one, two):
        tree.run(trace_sink=sink, raise_errors=False, user="ann", password="p")
    assert all(type(e.payload) is dict for e in one.events)
    enter = next(e for e in one.events if e.kind == "node.enter")
    enter.payload["label"] = "changed"
    enter.payload["ir"] = 1
    again = next(e for e in two.events if e.kind == "node.enter")
    assert again.payload["label"] != "changed" and "ir" not in again.payload
    started = [e for e in (*one.events, *two.events) if e.kind == "episode.started"]
    started[0].payload["ir"]["name"] = "changed"
    assert started[1].payload["ir"]["name"] == "shared"
    tool = [e for e in (*one.events, *two.events) if e.kind == "tool.call.started"]
    tool[0].payload["tool"]["host_name"] = "changed"
    assert tool[1].payload["tool"]["host_name"] == "login"


def test_an_ir_int_beyond_64_bits_stays_exact() -> None:
    big = 10**30
    tree = root("big").do(check("n", equals=big))
    sink = ListTraceSink()
    tree.run(trace_sink=sink, raise_errors=False, n=big)
    ir = sink.events[0].payload["ir"]
    assert ir["child"]["equals"] == big and type(ir["child"]["equals"]) is int


def test_list_and_jsonl_record_the_same_payloads(tmp_path) -> None:
    tree = _tree()
    listed = ListTraceSink(redactor=Redactor(enabled=False))
    tree.run(trace_sink=listed, raise_errors=False, user="ann", password="p")
    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path, redactor=Redactor(enabled=False)) as sink:
        tree.run(trace_sink=sink, raise_errors=False, user="ann", password="p")
    written = read_events(path)
    assert [(e.kind, e.payload) for e in listed.events] == [(e.kind, e.payload) for e in written]


def test_json_text_is_immutable_and_thaws_to_a_copy() -> None:
    shared = JsonText.of({"a": [1, 2]})
    with pytest.raises(AttributeError):
        shared.text = "{}"  # type: ignore[misc]
    first, second = thaw(shared), thaw(shared)
    assert first == second == {"a": [1, 2]} and first is not second


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(), json_values, max_size=4), st.text(), json_values)
def test_a_filled_template_is_the_canonical_json_of_its_payload(
    fixed: dict[str, Any], slot: str, value: Any
) -> None:
    fixed.pop(slot, None)
    template = PayloadTemplate(fixed, slot)
    whole = {**fixed, slot: value}
    assert template.text(value) == (event_json(whole), event_json(value))
    assert thaw(template.fill(value)) == thaw(JsonText.of(whole))


def test_a_template_of_orjson_text_and_a_fallback_value_is_written_whole() -> None:
    template = PayloadTemplate({"a": 1e16, "z": 1e-7}, "m")  # orjson writes 1e16, json 1e+16
    for value in (10**30, {"k": 10**20}, "plain", [1.5e300]):
        assert template.text(value)[0] == event_json({"a": 1e16, "m": value, "z": 1e-7})


def echo(q: Any) -> Any:
    """Returns its argument."""
    return q


def test_a_field_edited_in_place_is_seen_by_the_next_run() -> None:
    call, expect = act(echo, q=1), check("out", equals=[1])
    tree = root("edited").do(seq(call >> "out", expect))
    tree.run(trace_sink=ListTraceSink(), raise_errors=False)
    tree.run(trace_sink=ListTraceSink(), raise_errors=False)  # the tree's tables are kept now
    call.args["q"] = {"const": [2]}
    expect.equals[0] = 2
    sink = ListTraceSink()
    ctx = tree.run(trace_sink=sink)
    assert ctx.status.value == "success"
    ir = sink.events[0].payload["ir"]["child"]["children"]
    assert ir[0]["args"] == {"q": {"const": [2]}} and ir[1]["equals"] == [2]
    labels = [e.payload["label"] for e in sink.events if e.kind == "node.enter"]
    assert "check(out == [2])" in labels
    fresh = root("edited").do(seq(act(echo, q=[2]) >> "out", check("out", equals=[2])))
    assert fresh.to_ir() == tree.to_ir()
