"""Where runs part ways and no path has the support to be branched, and following one run's
path leaves another run unaccounted (its record cannot answer what that path asks), and the runs
do not make the same writes either (then each path is followed behind a route decision:
``test_same_writes.py``), the program compiles the common part and hands over to the family's
fallback at the parting point: every run is accounted for as a fallback at a recorded point (issue
24: "a tool-using agent would not refuse: it would do the known part and reason about the rest").
A program that serves none of its runs end to end is no verified program, though (fresh7: such
packages read "verification passed"): it fails verification, its problem says where every run is
handed over."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from jdsl.compiler import compile_normalized, normalize_all
from jdsl.compiler.fallback import compiled_program, split_fallback
from jdsl.compiler.lookups import initial_lookups
from jdsl.compiler.verify import verify
from jdsl.text import format_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder, hand_overs  # noqa: E402

USERS = {"u1": {"payments": ["P0", "P1"]}, "u7": {"payments": ["P6", "P7"]}}
RESERVATIONS = {"R1": {"id": "R1", "user": "u1", "paid": "P1"},
                "R7": {"id": "R7", "user": "u7", "paid": "P7"}}  # fmt: skip
READS = initial_lookups({"get_user": ("user_id", USERS),
                         "get_reservation": ("reservation_id", RESERVATIONS)})  # fmt: skip
"""The state every run starts from: answers a read a run never made, before its first write."""


def _after_a_shared_call(**meta: str) -> list:
    """Both runs look the reservation up. One then reads the user and updates the flights,
    paying with one of the user's payments (a position the model picks), the other updates the
    payment to what the reservation was paid with: one run per path and per write, neither can
    be branched, and the second run's record holds no pick to answer the first path's question."""
    one = EpisodeBuilder("one", inputs={"reservation_id": "R1"}, **meta)
    one.call("get_reservation", RESERVATIONS["R1"], store="res", reservation_id="R1")
    one.call("get_user", USERS["u1"], store="user", user_id="u1")
    one.call("update_flights", "ok", store="upd", reservation_id="R1", payment_id="P0")
    two = EpisodeBuilder("two", inputs={"reservation_id": "R7"}, **meta)
    two.call("get_reservation", RESERVATIONS["R7"], store="res", reservation_id="R7")
    two.call("update_payment", "ok", store="upd", reservation_id="R7", payment_id="P7")
    return normalize_all([one.done(True), two.done(True)])


def _at_the_start() -> list:
    """One run starts from the user and picks a reservation of theirs (a position), the other
    from the reservation the user named; each makes its own write."""
    one = EpisodeBuilder("one", inputs={"user_id": "u1"})
    one.call("get_user", {"reservations": ["R0", "R1"]}, store="user", user_id="u1")
    one.call("get_reservation", RESERVATIONS["R1"], store="res", reservation_id="R1")
    one.call("update_flights", "ok", store="upd", reservation_id="R1", payment_id="P1")
    two = EpisodeBuilder("two", inputs={"user_id": "u7"})
    two.call("get_reservation", RESERVATIONS["R7"], store="res", reservation_id="R7")
    two.call("update_payment", "ok", store="upd", reservation_id="R7", payment_id="P7")
    return normalize_all([one.done(True), two.done(True)])


def test_two_runs_parting_after_a_shared_call_hand_over_there() -> None:
    result = compile_normalized(_after_a_shared_call(), name="update", reads=READS)
    v = result.verification
    assert not result.ok and v.accounted, result.report().text
    assert v.problems == (v.serves_none,)
    assert v.serves_none.startswith("serves none of its 2 run(s) end to end: every run is handed")
    assert "hand_over" in v.serves_none and "the recorded runs part ways here" in v.serves_none
    assert (v.executed, v.matched, v.fallbacks, v.unreplayable) == (2, 0, 2, 0)
    # the known part is made (the shared read), then the fallback takes over
    assert {e.episode_id: (e.fallback.writes_done, e.fallback.call_index)
            for e in v.executions} == {"one": (0, 1), "two": (0, 1)}  # fmt: skip
    assert all(str(e.fallback.node_id).startswith("hand_over") for e in v.executions)
    flow = compiled_program(result.ir)["root"]["child"]["children"]
    assert [n.get("tool") or n["id"] for n in flow if n["kind"] in ("action", "guard")][-1:] == [
        hand_overs(result.ir)[0]["id"]
    ]
    assert any("hand" in note and "fallback" in note for note in result.compiled.notes)
    # the hand-over is the literal guard false, written so in the package's text
    assert hand_overs(result.ir)[0]["expression"] == {"const": False}
    assert f"guard false id={hand_overs(result.ir)[0]['id']}" in format_behavior(result.ir)


def test_two_runs_parting_at_the_start_go_to_the_fallback_at_once() -> None:
    result = compile_normalized(_at_the_start(), name="update", reads=READS)
    v = result.verification
    assert not result.ok and v.accounted and v.serves_none, result.report().text
    assert (v.executed, v.fallbacks, v.unreplayable) == (2, 2, 0)
    assert all(e.fallback.writes_done == 0 and e.fallback.call_index == 0 for e in v.executions)
    assert len(hand_overs(result.ir)) == 1
    assert split_fallback(result.compiled.ir)[1] is not None  # the package has its fallback


def test_a_package_without_the_hand_over_is_caught() -> None:
    result = compile_normalized(_after_a_shared_call(), name="update", reads=READS)
    ir = result.compiled.ir
    wrapper = ir["root"]["child"]
    compiled = wrapper["children"][0]
    flow = compiled["children"] if compiled.get("kind") == "sequence" else None
    assert flow is not None
    dropped = [n for n in flow if not str(n.get("id", "")).startswith("hand_over")]
    assert len(dropped) == len(flow) - 1
    wrong_ir = {**ir, "root": {**ir["root"], "child": {**wrapper, "children": [
        {**compiled, "children": dropped}, wrapper["children"][1]]}}}  # fmt: skip
    wrong = dataclasses.replace(result.compiled, ir=wrong_ir)
    report = verify(wrong, result.normalized, reads=READS)
    assert not report.ok
    assert [e.episode_id for e in report.unaccounted] == ["one", "two"]  # the write is unmade


def test_paths_that_replay_on_one_compiled_path_stay_served() -> None:
    """Runs that part only in reads the compiled path does not need stay served (no hand-over)."""
    runs = []
    for k, extra in enumerate((False, True)):
        b = EpisodeBuilder(f"r{k}", inputs={"user_id": f"u{k}"})
        b.call("get_user", {"id": f"u{k}", "name": "x"}, store="user", user_id=f"u{k}")
        if extra:
            b.call("get_rules", {"fee": 0}, store="rules")
        b.call("send_note", "ok", store="sent", user_id=f"u{k}")
        runs.append(b.done(True))
    result = compile_normalized(normalize_all(runs), name="note")
    v = result.verification
    assert result.ok and v.matched == v.executed == 2, result.report().text
    assert not hand_overs(result.ir)


def test_the_fallback_is_told_in_words_where_the_runs_part_ways() -> None:
    """The hand-over is ``guard false``, whose own reason ("guard false was false") says
    nothing: the react fallback's ``failure`` input names the parting point in words."""
    from jdsl.ir import from_ir
    from jdsl.testing import ScriptedModel
    from jdsl.trace import ListTraceSink

    result = compile_normalized(_after_a_shared_call(), name="update", reads=READS)
    tools = {
        "get_reservation": lambda reservation_id: RESERVATIONS[reservation_id],
        "get_user": lambda user_id: USERS[user_id],
        "update_flights": lambda reservation_id, payment_id: "ok",
        "update_payment": lambda reservation_id, payment_id: "ok",
    }
    sink = ListTraceSink()
    from_ir(result.package.ir).run(tools=tools, model=ScriptedModel("done"), trace_sink=sink,
                                   reservation_id="R1", raise_errors=False)  # fmt: skip
    started = next(e for e in sink.events if e.kind == "react.started").payload
    failure = started["inputs"]["failure"]
    assert failure.startswith(f"{hand_overs(result.ir)[0]['id']}: "), failure
    assert "the recorded runs part ways here" in failure, failure
    assert hand_overs(result.ir)[0]["expression"] == {"const": False}


def test_the_compile_table_says_a_program_that_hands_every_run_over_serves_none() -> None:
    """A fresh user's finding: such a family read only "passed ... fallback N" in `jdsl compile
    --group-by`; the line under its row now says it serves none, and why."""
    from jdsl.commands.compile import _serves_none

    line = _serves_none(compile_normalized(_at_the_start(), name="update", reads=READS))
    assert line is not None and "serves none: every run is handed to the fallback" in line
    assert "part ways after 0 shared call(s)" in line
    served = compile_normalized(_after_a_shared_call()[:1], name="one", reads=READS)
    assert served.verification.status == "passed" and _serves_none(served) is None


def test_a_program_failing_verification_is_fallback_only_and_takes_its_held_out_run() -> None:
    """Issue 24 (fallback or served 100 %): a family whose program fails verification gets a
    package handing every run to its fallback at once (compiler/fallback_only.py), so its
    held-out run is handed over, not refused; that package's verification fails too (it
    serves none), never "passed"."""
    from jdsl.compiler.holdout import holdout_families

    third = EpisodeBuilder("three", inputs={"reservation_id": "R1"})
    third.call("get_reservation", RESERVATIONS["R1"], store="res", reservation_id="R1")
    third.call("update_payment", "ok", store="upd", reservation_id="R1", payment_id="P1")
    runs = [*_after_a_shared_call(), *normalize_all([third.done(True)])]
    (one,) = holdout_families(
        [("update", runs)], 1, lambda f, kept, peers: compile_normalized(kept, name=f, reads=READS)
    )
    assert one.result is not None and one.result.fallback_only, one.result
    assert one.result.verification.status == "failed"
    package = one.result.fallback_package
    assert package is not None
    program = compiled_program(package.ir)["root"]["child"]
    assert program["kind"] == "guard" and program["expression"] == {"const": False}, program
    assert split_fallback(package.ir)[1] is not None
    verification = package.manifest["verification"]
    assert verification["status"] == "failed" and verification["matched"] == 0, verification
    assert verification["executed"] == verification["fallback"] == 2, verification
    assert package.manifest["fallback_only"].startswith("the program compiled from these runs")
    assert "\nFallback only: the program compiled" in package.files["README.md"].decode()
    assert one.report is not None, "no report: its held-out run was refused"
    assert [r.outcome for r in one.report.rows] == ["fallback"], one.report.text
    assert "this package is fallback only" in one.report.text, one.report.text
    served = compile_normalized(_after_a_shared_call()[:1], name="one", reads=READS)
    assert served.ok and not served.fallback_only


def test_jdsl_compile_writes_a_failed_family_fallback_only_and_says_so(tmp_path, capsys) -> None:
    """``jdsl compile --group-by``: the failed family's package is written, the line under its
    row says "fallback only" and why its program failed; the command still exits 1."""
    import pytest
    from jdsl.commands.compile import _compile_families
    from jdsl.package import load_package

    runs = _after_a_shared_call(task_family="update")
    with pytest.raises(Exception) as failed:  # typer's Exit(1), the error on stderr
        _compile_families(runs, "task", None, "", tmp_path, 2, lambda _runs: READS)
    assert getattr(failed.value, "exit_code", None) == 1, failed.value
    out, err = capsys.readouterr()
    assert "a failed family's package is 'fallback only'" in err, err
    (row,) = [line for line in out.splitlines() if line.startswith("update ")]
    assert " failed " in row and row.endswith("update.jdsl"), out
    assert "    fallback only: verification failed: serves none of its 2 run(s)" in out, out
    package = load_package(tmp_path / "update.jdsl")
    assert package.manifest["verification"]["status"] == "failed"
    assert compiled_program(package.ir)["root"]["child"]["kind"] == "guard"
