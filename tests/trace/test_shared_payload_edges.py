"""Shared payloads from the outside: a traced tree copies and pickles, a field edited in place
shows in the next run's trace, and ints beyond 64 bits read back from a trace file exactly."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from jdsl import act, check, root, seq
from jdsl.trace import JsonlTraceSink, ListTraceSink, read_events, verify_chain
from jdsl.trace.reader import decode_json
from jdsl.trace.shared import JsonText

HUGE = 2**70


def value(x: Any = None) -> Any:
    """Returns its argument."""
    return x


def _tree(equals: Any = 1, x: Any = 1) -> Any:
    return root("edges").do(seq(act(value, x=x) >> "a", check("a", equals=equals)))


def _trace(tree: Any, **inputs: Any) -> list[tuple[str, Any]]:
    sink = ListTraceSink()
    tree.run(trace_sink=sink, raise_errors=False, **inputs)
    return [(e.kind, e.payload) for e in sink.events]


@pytest.mark.parametrize(
    "duplicate",
    [copy.deepcopy, lambda t: t.model_copy(deep=True), lambda t: pickle.loads(pickle.dumps(t))],
    ids=["deepcopy", "model_copy-deep", "pickle"],
)
def test_a_traced_tree_can_be_copied_and_the_copy_traces_itself(duplicate: Any) -> None:
    tree = _tree()
    _trace(tree)
    twin = duplicate(tree)
    twin.child.children[1].equals = 2
    assert _trace(twin) == _trace(_tree(equals=2))
    assert _trace(tree) == _trace(_tree())


def test_json_text_copies_and_pickles_as_itself() -> None:
    shared = JsonText.of({"n": HUGE, "s": "x"})
    assert copy.copy(shared) is shared and copy.deepcopy(shared) is shared
    again = pickle.loads(pickle.dumps(shared))
    assert again == shared and again.data() == {"n": HUGE, "s": "x"}


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: t.child.children[1].equals.append(2), {"equals": [1, 2]}),
        (lambda t: t.child.children[1].equals.__setitem__(0, 1.0), {"equals": [1.0]}),
        (lambda t: t.child.children[0].args["x"].__setitem__("const", 2), {"x": 2}),
    ],
    ids=["equals-appended", "equals-int-to-float", "args-const-replaced"],
)
def test_a_field_edited_in_place_shows_in_the_next_trace(edit: Any, expected: Any) -> None:
    tree = _tree(equals=[1])
    _trace(tree)
    edit(tree)
    assert _trace(tree) == _trace(_tree(**{"equals": [1], **expected}))


def test_ints_beyond_64_bits_read_back_exactly_and_verify(tmp_path) -> None:
    path = tmp_path / "huge.jsonl"
    with JsonlTraceSink(path) as sink:
        _tree(equals=HUGE, x=HUGE).run(trace_sink=sink, raise_errors=False, n=-HUGE)
    events = list(read_events(path))
    assert verify_chain(events) == []
    started = events[0].payload
    assert started["inputs"] == {"n": -HUGE}
    assert started["ir"]["child"]["children"][1]["equals"] == HUGE
    done = next(e for e in events if e.kind == "tool.call.completed")
    assert type(done.payload["result"]) is int and done.payload["result"] == HUGE


def test_decode_json_keeps_long_ints_and_digit_strings() -> None:
    assert decode_json(f'[{HUGE},{-(2**63) - 1},"{"1" * 30}",1.5]') == [
        HUGE, -(2**63) - 1, "1" * 30, 1.5,
    ]  # fmt: skip


def test_a_user_recorder_gets_shared_payloads_that_thaw_to_the_list_sink_payloads() -> None:
    from jdsl.trace.shared import Filled, thaw

    class Recording:
        """A user's sink with its own recorder (the documented fast path)."""

        def __init__(self) -> None:
            self.got: list[tuple[str, Any]] = []

        def emit(self, event: Any) -> Any:
            return event

        def recorder(self, capture_id: str, episode_id: str) -> Any:
            def record(kind: str, payload: Any, parent: Any = None, actor: Any = None) -> int:
                self.got.append((kind, payload))
                return len(self.got) - 1

            return record

    class Emitting:
        """A user's sink with only ``emit``: it gets plain dicts."""

        def __init__(self) -> None:
            self.got: list[Any] = []

        def emit(self, event: Any) -> Any:
            self.got.append(event)
            return event

    tree, mine, plain = _tree(), Recording(), Emitting()
    tree.run(trace_sink=mine, raise_errors=False)
    tree.run(trace_sink=plain, raise_errors=False)
    kinds = {type(p) for _, p in mine.got}
    assert JsonText in kinds and Filled in kinds
    assert {type(e.payload) for e in plain.got} == {dict}
    assert [(k, thaw(p)) for k, p in mine.got] == _trace(tree)


@pytest.mark.parametrize("episode_id", ['ep"quoted', "ep\u00a0nbsp"])
def test_ints_beyond_64_bits_stay_exact_when_ids_need_escaping(tmp_path, episode_id) -> None:
    path = tmp_path / "escaped.jsonl"
    with JsonlTraceSink(path) as sink:
        _tree(x=HUGE).run(trace_sink=sink, raise_errors=False, episode_id=episode_id)
    events = list(read_events(path))
    assert verify_chain(events) == [] and events[0].episode_id == episode_id
    done = next(e for e in events if e.kind == "tool.call.completed")
    assert type(done.payload["result"]) is int and done.payload["result"] == HUGE


def test_a_redactor_subclass_is_not_answered_from_the_default_redactors_screen(tmp_path) -> None:
    from jdsl.trace import Redactor

    class StoreIsSecret(Redactor):
        """Hides every ``store`` field (a rule of the user's own)."""

        def is_sensitive_key(self, key: str, value: Any = None) -> bool:
            return key == "store" or super().is_sensitive_key(key, value)

    tree = root("sub").do(seq(act(value) >> "acct_4711"))
    with JsonlTraceSink(tmp_path / "default.jsonl") as sink:
        tree.run(trace_sink=sink)
    assert '"store":"acct_4711"' in (tmp_path / "default.jsonl").read_text()
    with JsonlTraceSink(tmp_path / "strict.jsonl", redactor=StoreIsSecret()) as sink:
        tree.run(trace_sink=sink)
    text = (tmp_path / "strict.jsonl").read_text()
    # the value hidden under its "store" field is followed (issue 26): the blackboard
    # write's key, later in the run, is hidden too
    assert "acct_4711" not in text and '"store":"«redacted»"' in text.replace(
        "\\u00ab", "«"
    ).replace("\\u00bb", "»")
    assert verify_chain(read_events(tmp_path / "strict.jsonl")) == []
