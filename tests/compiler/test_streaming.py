"""Streaming compile: the same package bytes from paths, generators and lists; keyed reduce."""

from __future__ import annotations

import hashlib
import pickle
import random
import sys
from pathlib import Path

import pytest
from jdsl.compiler import CompileError, compile_behavior, normalize_all
from jdsl.compiler.consolidate import consolidate
from jdsl.compiler.pipeline import compile_normalized
from jdsl.compiler.reduce import FactTable, merge_tables
from jdsl.compiler.store import NormStore, heads, subset
from jdsl.compiler.stream import normalize_stream
from jdsl.envs.fixtures import RetailWorld
from jdsl.package import export_jdsl
from jdsl.testing import ScriptedModel
from jdsl.trace import JsonlTraceSink, iter_episodes, read_events

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.corpora import retail_corpus, retail_teacher  # noqa: E402


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> list[Path]:
    """Three retail teacher shards, 9 episodes in all (odd worlds pick the other order)."""
    folder = tmp_path_factory.mktemp("shards")
    return [retail_corpus(folder / f"s{i}.jsonl", 3, start=3 * i) for i in range(3)]


def _bytes(result, tmp_path: Path, name: str) -> str:
    written = export_jdsl(result.package, tmp_path / f"{name}.jdsl")
    return hashlib.sha256(Path(written).read_bytes()).hexdigest()


def test_paths_generators_and_lists_compile_to_the_same_bytes(shards, tmp_path) -> None:
    listed = [e for path in shards for e in read_events(path).episodes]
    from_list = _bytes(compile_behavior(listed, name="r"), tmp_path, "list")
    from_paths = _bytes(compile_behavior(shards, name="r"), tmp_path, "paths")
    generator = (e for e in iter_episodes(shards))
    from_generator = _bytes(compile_behavior(generator, name="r"), tmp_path, "gen")
    assert from_list == from_paths == from_generator
    assert compile_behavior(str(shards[0]), name="r").report()["episodes"] == 3


def test_a_broken_chain_is_refused_while_streaming(shards, tmp_path) -> None:
    broken = tmp_path / "broken.jsonl"
    lines = shards[1].read_text().splitlines(keepends=True)
    broken.write_text("".join(lines[:5] + lines[6:]))  # one event dropped
    with pytest.raises(CompileError, match="hash chain is broken") as info:
        compile_behavior([shards[0], broken], name="r")
    assert info.value.episodes == ("ep_3",)
    result = compile_behavior([shards[0], broken], name="r", allow_broken_chain=True)
    assert result.report()["episodes"] == 6


def test_equal_teacher_irs_are_shared_not_copied(shards) -> None:
    normalized = normalize_stream(iter_episodes(shards))
    assert isinstance(normalized, NormStore)
    assert len({id(e.teacher_ir) for e in normalized}) == 1
    unshared = NormStore(normalized, ir_limit=0)
    assert len({id(e.teacher_ir) for e in unshared}) == len(normalized)
    assert list(unshared) == list(normalized)


def test_the_store_reads_back_the_episodes_it_was_given(shards) -> None:
    episodes = normalize_all([e for path in shards for e in read_events(path).episodes])
    store = NormStore(episodes)
    assert len(store) == len(episodes) and list(store) == list(episodes)
    assert store[-1] == episodes[-1] and store[2:5] == tuple(episodes[2:5])
    assert list(subset(store, [4, 1])) == [episodes[4], episodes[1]]
    halves = NormStore.concat([store.take(range(4)), store.take(range(4, len(store)))])
    assert list(halves) == list(episodes)
    expected = [(e.episode_id, e.success, e.source_digest, e.complete) for e in episodes]
    assert heads(store) == heads(halves) == heads(list(episodes)) == expected  # none decoded
    assert heads(store.take([4, 1])) == [expected[4], expected[1]]
    assert pickle.loads(pickle.dumps(store)).heads() == expected
    assert [pickle.loads(pickle.dumps(e)) for e in episodes] == list(episodes)
    assert store.nbytes < sum(len(repr(e)) for e in episodes)  # compressed, not objects
    with pytest.raises(IndexError):
        store[len(store)]


def test_a_store_and_a_list_compile_to_the_same_bytes(shards, tmp_path) -> None:
    episodes = normalize_all([e for path in shards for e in read_events(path).episodes])
    from_list = _bytes(compile_normalized(list(episodes), name="r"), tmp_path, "l")
    from_store = _bytes(compile_normalized(NormStore(episodes), name="r"), tmp_path, "s")
    assert from_list == from_store


def test_the_keyed_reduce_in_any_tree_shape_gives_consolidate(shards) -> None:
    episodes = normalize_all([e for path in shards for e in read_events(path).episodes])
    expected = consolidate(episodes)
    rng = random.Random(7)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(episodes)), 3))
        runs = [episodes[a:b] for a, b in zip([0, *cuts], [*cuts, len(episodes)], strict=True)]
        tables = [FactTable.of(run) for run in runs]
        merged = merge_tables(merge_tables(*tables[:2]), merge_tables(*tables[2:]))
        assert merged.candidates() == expected and merged.episodes == len(episodes)
        assert tables[0].candidates() == consolidate(runs[0])  # the merge left its inputs alone


def test_a_generator_with_a_control_episode_and_mappings(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path) as sink:
        tree = retail_teacher()
        for i in range(3):
            world = RetailWorld.numbered(i)
            tree.run(model=ScriptedModel("1"), trace_sink=sink, episode_id=f"e{i}",
                     tools=world.tools(), email=world.email, request="cancel")  # fmt: skip
    mappings = [
        {"episode_id": e.episode_id, "events": [ev.to_dict() for ev in e.events]}
        for e in read_events(path).episodes
    ]
    control = {"episode_id": "_capture", "events": [{"kind": "capture.started"}]}
    result = compile_behavior(iter([control, *mappings]), name="r")
    assert result.report()["episodes"] == 3


def test_a_slots_steps_read_like_a_tuple_of_them(shards) -> None:
    from jdsl.compiler.store import SlotSteps

    episodes = normalize_all([e for path in shards for e in read_events(path).episodes])
    store = NormStore(episodes)
    groups = ((0, store.take(range(4))), (1, store.take(range(4, len(store)))))
    expected = tuple(e.ok_steps()[0] for e in episodes[:4]) + tuple(
        e.ok_steps()[1] for e in episodes[4:]
    )
    steps = SlotSteps(groups)
    assert tuple(steps) == expected and len(steps) == len(expected)
    assert steps[5] == expected[5] and steps[-1] == expected[-1]
    for cut in (slice(1, None), slice(2, 6), slice(None, None, 2), slice(3, 3)):
        assert tuple(steps[cut]) == expected[cut]
    assert tuple(steps[1:][2:]) == expected[1:][2:]
    with pytest.raises(IndexError):
        steps[len(expected)]
    calls: list[int] = []
    derive = lambda view: calls.append(1) or len(tuple(view))  # noqa: E731
    assert steps.memo("n", derive) == steps.memo("n", derive) == len(expected)
    assert calls == [1]  # derived once, kept with the view


@pytest.mark.parametrize(
    ("source", "says"),
    [
        (None, r"cannot compile None: pass episodes"),
        (5, r"cannot compile 5: pass episodes"),
        ({"episode_id": "e", "events": []}, r"put one episode in a list"),
        ([5], r"cannot read int as an episode \(5\)"),
        (["a.jsonl", 5], r"not mixed with episodes"),
    ],
)
def test_a_source_of_the_wrong_form_is_a_compile_input_error(source, says) -> None:
    from jdsl.compiler import CompileInputError

    with pytest.raises(CompileInputError, match=says) as info:
        compile_behavior(source, name="x")
    assert isinstance(info.value, TypeError) and isinstance(info.value, CompileError)
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is CompileInputError and str(again) == str(info.value)


def test_a_missing_trace_path_is_named(tmp_path) -> None:
    from jdsl.trace import TraceNotFoundError

    for source in (tmp_path / "missing.jsonl", [str(tmp_path / "missing.jsonl")]):
        with pytest.raises(TraceNotFoundError, match=r"no trace file at .*missing\.jsonl"):
            compile_behavior(source, name="x")


def test_successful_episodes_without_a_completed_call_name_the_problem() -> None:
    events = [
        {"kind": "episode.started", "sequence": 0, "payload": {"skill": "s", "inputs": {}}},
        {"kind": "episode.finished", "sequence": 1, "payload": {"status": "success"}},
    ]
    episodes = [{"episode_id": f"ep{i}", "events": events} for i in range(2)]
    with pytest.raises(
        CompileError, match=r"successful episode\(s\) \(ep0, ep1\) complete no tool"
    ):
        compile_behavior(episodes, name="x")
