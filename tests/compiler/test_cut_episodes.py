"""An episode cut mid-run (no ``episode.finished``, no outcome) is told from a finished one
whose outcome is unknown, and never compiled from."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, holdout_split, normalize_all
from jdsl.compiler.errors import CompileError
from jdsl.errors import JdslError
from jdsl.importers.otel import import_otel
from jdsl.trace import TraceEvent, segment_episodes

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

OTEL = Path(__file__).parents[1] / "importers" / "fixtures" / "openai_agent.otlp.json"


def _run(eid: str, *, finished: bool = True, status: str | None = "success") -> dict[str, Any]:
    b = EpisodeBuilder(eid, inputs={"email": f"{eid}@x.com"})
    b.call("lookup", {"id": f"U{eid}"}, store="customer", email=f"{eid}@x.com")
    if not finished:
        return {"episode_id": eid, "events": b.events}  # the file ends here: cut mid-run
    b.call("list_orders", [{"id": f"#{eid}"}], store="orders", customer_id=f"U{eid}")
    if status is None:
        b.emit("episode.finished", {"skill": "hand"})  # finished, outcome not recorded
        return {"episode_id": eid, "events": b.events}
    return b.done(status == "success")


def test_the_normalizer_tells_a_cut_episode_from_a_finished_one_of_unknown_outcome() -> None:
    cut, unknown, done = normalize_all(
        [_run("a", finished=False), _run("b", status=None), _run("c")]
    )
    assert (cut.success, cut.complete) == (None, False)
    assert (unknown.success, unknown.complete) == (None, True)
    assert (done.success, done.complete) == (True, True)


def test_a_recorded_episode_says_whether_it_finished() -> None:
    events = [TraceEvent.model_validate(e) for e in _run("a", finished=False)["events"]]
    assert segment_episodes(events)[0].complete is False


def test_only_cut_episodes_are_refused_with_a_typed_error() -> None:
    with pytest.raises(CompileError) as caught:
        compile_behavior([_run("a", finished=False), _run("b", finished=False)], name="x")
    assert isinstance(caught.value, JdslError)
    assert str(caught.value).startswith(
        "the 2 episode(s) to compile from (a, b) end without episode.finished: they look cut "
        "off mid-run"
    )
    assert list(caught.value.episodes) == ["a", "b"]


def test_cut_episodes_are_left_out_with_a_note() -> None:
    runs = [_run("a"), _run("b"), _run("c"), _run("d", finished=False)]
    result = compile_behavior(runs, name="x")
    report = result.report()
    assert result.ok and report["episodes"] == 3
    assert "d" not in [e.episode_id for e in result.normalized]
    assert report["notes"][-1] == (
        "1 episode(s) cut off mid-run (no episode.finished: d) left out; pass the complete "
        "trace file, or record the runs again"
    )
    assert report["cut_off"] == ["d"]
    families = compile_behavior(runs, name="x", group_by="sequence")
    assert families.cut_off == ("d",)
    assert all("d" not in [e.episode_id for e in m] for m in families.members.values())


def test_finished_runs_of_unknown_outcome_and_imported_runs_without_reward_still_compile() -> None:
    result = compile_behavior([_run("a", status=None), _run("b", status=None)], name="x")
    assert result.ok and result.report()["cut_off"] == []
    imported = compile_behavior(import_otel(OTEL).episodes, name="agent")  # no reward recorded
    assert imported.ok and imported.report()["episodes"] == 4
    assert not any("cut off" in note for note in imported.report()["notes"])


def test_a_cut_episode_is_never_held_out() -> None:
    runs = normalize_all([_run("a"), _run("b"), _run("c", finished=False)])
    kept, held = holdout_split(runs, 1)
    assert [e.episode_id for e in held] == ["b"]
    assert [e.episode_id for e in kept] == ["a", "c"]  # the compile leaves c out, with a note


def _rewarded_but_cut(eid: str) -> dict[str, Any]:
    """A run whose reward event is there but whose ``episode.finished`` line is not."""
    run = _run(eid)
    events = [e for e in run["events"] if e["kind"] != "episode.finished"]
    events.append({"kind": "environment.reward", "sequence": len(events), "event_id": f"{eid}-r",
                   "parent_event_id": None, "payload": {"reward": 1.0}})  # fmt: skip
    return {"episode_id": eid, "events": events}


def test_an_episode_with_its_reward_but_no_episode_finished_is_cut_off() -> None:
    (cut,) = normalize_all([_rewarded_but_cut("a")])
    assert cut.complete is False
    events = [TraceEvent.model_validate(e) for e in _rewarded_but_cut("a")["events"]]
    assert segment_episodes(events)[0].complete is False
    result = compile_behavior([_run("b"), _run("c"), _rewarded_but_cut("a")], name="x")
    assert result.report()["cut_off"] == ["a"]
    kept, held = holdout_split(normalize_all([_run("b"), _run("c"), _rewarded_but_cut("a")]), 1)
    assert "a" not in [e.episode_id for e in held]
