"""Branches: successful paths that differ only in read-only calls before a shared tail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior
from jdsl.compiler.metrics import package_metrics
from jdsl.ir import from_ir
from jdsl.package import export_jdsl, load_package
from jdsl.testing import ScriptedModel
from jdsl.tree import Status

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

USERS = {
    f"u{i}": {"user_id": f"user_{i:03d}", "orders": [f"#W{i}00", f"#W{i}01"]} for i in range(9)
}


def _tail(
    b: EpisodeBuilder, i: int, signature: str = "request, user -> order_index: int"
) -> dict[str, Any]:
    user = USERS[f"u{i}"]
    b.call("get_user", user, store="user", user_id=user["user_id"])
    b.predict("choose", signature, order_index=1)
    b.call("cancel", {"ok": True}, store="receipt", order_id=user["orders"][1], reason="mistake")
    return b.done(True)


def by_email(i: int) -> dict[str, Any]:
    b = EpisodeBuilder(f"email_{i}", inputs={"email": f"u{i}@x.com", "request": "cancel"})
    b.call("find_by_email", USERS[f"u{i}"]["user_id"], store="user_id", email=f"u{i}@x.com")
    return _tail(b, i)


def by_name(i: int, *, tool: str = "find_by_name", store: str = "user_id") -> dict[str, Any]:
    inputs = {"first": f"Ann{i}", "last": f"Lee{i}", "zip": f"0{i}123", "request": "cancel"}
    b = EpisodeBuilder(f"name_{i}", inputs=inputs)
    b.call(tool, USERS[f"u{i}"]["user_id"], store=store, first=f"Ann{i}", last=f"Lee{i}",
           zip=f"0{i}123")  # fmt: skip
    return _tail(b, i)


class Host:
    """Fake tools recording every call."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        emails = {f"u{i}@x.com": u["user_id"] for i, u in enumerate(USERS.values())}
        names = {(f"Ann{i}", f"0{i}123"): u["user_id"] for i, u in enumerate(USERS.values())}
        users = {u["user_id"]: u for u in USERS.values()}

        def find_by_email(email: str) -> str:
            self.calls.append("find_by_email")
            return emails[email]

        def find_by_name(first: str, last: str, zip: str) -> str:
            self.calls.append("find_by_name")
            return names[(first, zip)]

        def get_user(user_id: str) -> dict[str, Any]:
            self.calls.append("get_user")
            return users[user_id]

        def cancel(order_id: str, reason: str) -> dict[str, Any]:
            self.calls.append(f"cancel {order_id}")
            return {"ok": True}

        self.tools = {f.__name__: f for f in (find_by_email, find_by_name, get_user, cancel)}


@pytest.fixture
def two_paths() -> Any:
    episodes = [by_email(0), by_name(1), by_email(2), by_name(3), by_email(4)]
    return compile_behavior(episodes, name="cancel")


def test_both_paths_compile_to_a_verified_branch(two_paths) -> None:
    result = two_paths
    assert result.ok and result.verification.replay_coverage == 1.0
    (branch,) = result.compiled.branches
    first, second = branch.alternatives
    assert (first.tools, len(first.episodes), first.guard_inputs) == (
        ("find_by_email",), 3, ("email",))  # fmt: skip
    assert (second.tools, len(second.episodes), second.guard_inputs) == (
        ("find_by_name",), 2, ("first", "last", "zip"))  # fmt: skip
    assert branch.tail == ("get_user", "cancel") and branch.teacher_selector is None
    flow = result.ir["root"]["child"]["children"]
    selector = flow[0]
    assert selector["kind"] == "selector" and [c["kind"] for c in flow[1:3]] == [
        "action",
        "predict",
    ]
    guards = [alt["children"][0]["expression"] for alt in selector["children"]]
    assert guards == [
        {"exists": {"ref": "email"}},
        {"and": [{"exists": {"ref": x}} for x in ("first", "last", "zip")]},
    ]
    assert result.compiled.aligned == ("email_0", "name_1", "email_2", "name_3", "email_4")
    assert result.compiled.required_inputs == ("request",)
    assert result.compiled.input_alternatives() == [[["email"], ["first", "last", "zip"]]]


def test_each_path_replays_against_its_own_episodes(two_paths) -> None:
    checks = two_paths.verification.checks
    by_node: dict[str, set[str]] = {}
    for check in checks:
        assert check.passed, check.problem
        by_node.setdefault(check.node_id, set()).add(check.episode_id)
    assert by_node["find_by_email_node"] == {"email_0", "email_2", "email_4"}
    assert by_node["find_by_name_node"] == {"name_1", "name_3"}
    assert by_node["branch_0_1_inputs"] == {"email_0", "email_2", "email_4"}
    assert len(by_node["get_user_node"]) == 5 and len(by_node["cancel_node"]) == 5
    replay = two_paths.package.jsonl("tests/replay.jsonl")
    assert all(r["aligned"] and r["checks"] == r["passed"] > 0 for r in replay)


def test_provenance_report_and_metrics_name_the_support(two_paths) -> None:
    nodes = {n["node_id"]: n for n in two_paths.package.json("provenance.json")["nodes"]}
    assert (
        len(nodes["branch_0"]["source_episodes"]) == 5 and nodes["branch_0"]["kind"] == "selector"
    )
    assert "3, 2 episodes" in nodes["branch_0"]["rationale"]
    assert nodes["branch_0_1"]["source_episodes"] == ["email_0", "email_2", "email_4"]
    assert nodes["branch_0_2_inputs"]["evidence_grade"] == "E4"  # replay-verified
    text = str(two_paths.report())
    assert "find_by_email (3 episodes, when exists(email))" in text
    assert "run inputs    request; one of: email | first, last, zip" in text
    source = two_paths.package.manifest["source"]
    assert source["inputs"] == ["request"] and source["optional_inputs"] == [
        "email", "first", "last", "zip"]  # fmt: skip
    assert [a["support"] for a in source["branches"][0]["alternatives"]] == [3, 2]
    metrics = package_metrics(two_paths.ir)
    assert (metrics.branch_points, metrics.deterministic_branching) == (1, 2.0)
    assert metrics.tool_branching == 0.0  # a guard picks the path, not a model


def test_the_package_serves_either_identity_and_fails_cleanly_without(two_paths, tmp_path) -> None:
    package = load_package(export_jdsl(two_paths.package, tmp_path / "p.jdsl"))
    for inputs, first, user in (({"email": "u7@x.com"}, "find_by_email", "u7"),
                                ({"first": "Ann8", "last": "Lee8", "zip": "08123"}, "find_by_name",
                                 "u8")):  # fmt: skip
        host = Host()
        ctx = package.as_root(host.tools).run(model=ScriptedModel("0"), request="x", **inputs)
        assert ctx.status is Status.SUCCESS and host.calls[0] == first
        assert host.calls[1:] == ["get_user", f"cancel {USERS[user]['orders'][0]}"]
    host = Host()  # no identity: no compiled path holds, the fallback answers (no tool call)
    ctx = package.as_root(host.tools).run(model=ScriptedModel("0"), request="x", zip="01123")
    assert ctx.status is Status.SUCCESS and host.calls == [] and ctx.blackboard["answer"] == "0"
    assert package.missing_inputs({"request": "x", "zip": "1"}) == [
        "one of: email | first, last, zip"]  # fmt: skip
    assert package.missing_inputs({"request": "x", "email": "e"}) == []


def test_an_effectful_difference_the_teacher_chose_silently_is_a_route_decision() -> None:
    """No condition was evaluated where the paths part ways, and update_user is not read-only:
    a residual route decision selects each alternative (never reachable without it)."""
    episodes = [by_email(0), by_name(1, tool="update_user"), by_email(2),
                by_name(3, tool="update_user")]  # fmt: skip
    result = compile_behavior(episodes, name="cancel")
    assert result.ok and result.verification.executed == result.verification.matched == 4
    (branch,) = result.compiled.branches
    assert branch.selection == "route"
    assert [a.selected_by for a in branch.alternatives] == [
        ('route == "find_by_email"',), ('route == "update_user"',)]  # fmt: skip
    flow = result.ir["root"]["child"]["children"]
    assert flow[0]["kind"] == "predict" and flow[0]["signature"] == (
        'request -> route: Literal["find_by_email", "update_user"]')  # fmt: skip
    for alternative in flow[1]["children"]:
        kinds = [n["kind"] for n in alternative["children"]]
        assert kinds.index("check") < kinds.index("action")
    replay = {r["episode"]: r["aligned"] for r in result.package.jsonl("tests/replay.jsonl")}
    assert all(replay.values())


def test_a_route_the_model_does_not_name_reaches_no_effectful_call() -> None:
    episodes = [by_email(0), by_name(1, tool="update_user"), by_email(2),
                by_name(3, tool="update_user")]  # fmt: skip
    package = from_ir(compile_behavior(episodes, name="cancel").ir)
    host = Host()
    tools = {**host.tools, "update_user": host.tools["find_by_name"]}
    inputs = {"request": "x", "first": "Ann5", "last": "Lee5", "zip": "05123", "email": "u5@x.com"}
    ctx = package.run(model=ScriptedModel("escalate"), tools=tools, **inputs)
    assert ctx.status is Status.FAILURE and host.calls == []
    assert ctx.failure is not None and ctx.failure.node_id == "choose_route"
    ctx = package.run(model=ScriptedModel("update_user", "0"), tools=tools, **inputs)
    assert ctx.status is Status.SUCCESS and host.calls[0] == "find_by_name"


def test_trusted_effects_decide_how_alternatives_are_selected() -> None:
    episodes = [
        by_email(0),
        by_name(1, tool="load_user"),
        by_email(2),
        by_name(3, tool="load_user"),
    ]
    effects = {"load_user": {"read_only": False, "destructive": False, "idempotent": True}}
    (effectful,) = compile_behavior(episodes, name="c", effects=effects).compiled.branches
    (read_only,) = compile_behavior(episodes, name="c").compiled.branches
    assert (effectful.selection, read_only.selection) == ("route", "inputs")


def test_thin_support_is_not_branched_and_alternative_lookups_share_their_store() -> None:
    """Two lookups the next call reads whole, each under its own key (``uid`` against
    ``user_id``), are alternatives: they store under one key and the paths meet again after
    them (jdsl.compiler.rejoin), one continuation for both."""
    once = compile_behavior([by_email(0), by_name(1), by_email(2)], name="c")
    assert once.compiled.branches == () and "fewer than 2 episodes" in once.compiled.notes[0]
    keys = [by_email(0), by_name(1, store="uid"), by_email(2), by_name(3, store="uid")]
    result = compile_behavior(keys, name="c")
    assert result.ok and result.verification.executed == result.verification.matched == 4
    (branch,) = result.compiled.branches
    assert branch.tail == ("get_user", "cancel")
    assert [a.tools for a in branch.alternatives] == [("find_by_email",), ("find_by_name",)]


def test_branched_ir_round_trips_through_text() -> None:
    from jdsl.text import format_behavior, parse_behavior

    result = compile_behavior([by_email(0), by_name(1), by_email(2), by_name(3)], name="c")
    root = from_ir(result.ir)
    assert parse_behavior(format_behavior(root)).to_ir() == root.to_ir()


_COMPILE = """
import sys
sys.path.insert(0, sys.argv[1])
from test_branches import by_email, by_name
from jdsl.compiler import compile_behavior
episodes = [by_name(1), by_email(0), by_email(2), by_name(3), by_name(5), by_email(4)]
for name, data in sorted(compile_behavior(episodes, name="c").package.files.items()):
    sys.stdout.write(name + " " + data.hex() + "\\n")
"""


def test_branched_packages_are_byte_identical_under_other_hash_seeds() -> None:
    outputs = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _COMPILE, str(Path(__file__).parent)],
                              env=env, capture_output=True, text=True, check=True)  # fmt: skip
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and "behavior.json" in outputs[0]
    assert (
        bytes.fromhex(outputs[0].split("behavior.json ")[1].split()[0]).count(b"selector") == 2
    )  # the branch, the fallback


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    from jdsl.ir.nodes import child_slots

    return [node] + [n for child in child_slots(node) for n in _walk(child)]


def test_what_only_one_alternative_stores_is_not_available_after_the_branch() -> None:
    sig = "request, profile -> order_index: int"  # profile: stored on the second path only

    def email(i: int) -> dict[str, Any]:
        b = EpisodeBuilder(f"email_{i}", inputs={"email": f"u{i}@x.com", "request": "cancel"})
        b.call("find_by_email", USERS[f"u{i}"]["user_id"], store="user_id", email=f"u{i}@x.com")
        return _tail(b, i, signature=sig)

    def name(i: int) -> dict[str, Any]:
        inputs = {"first": f"Ann{i}", "last": f"Lee{i}", "zip": f"0{i}123", "request": "cancel"}
        b = EpisodeBuilder(f"name_{i}", inputs=inputs)
        b.call("find_by_name", USERS[f"u{i}"]["user_id"], store="user_id", first=f"Ann{i}",
               last=f"Lee{i}", zip=f"0{i}123")  # fmt: skip
        b.call("get_profile", {"vip": True}, store="profile", user_id=USERS[f"u{i}"]["user_id"])
        return _tail(b, i, signature=sig)

    result = compile_behavior([email(0), name(1), email(2), name(3), email(4)], name="c")
    (branch,) = result.compiled.branches
    assert branch.alternatives[1].tools == ("find_by_name", "get_profile") and result.ok
    assert "profile" in result.compiled.inputs  # not produced on every path: a run input
    assert "user_id" not in result.compiled.inputs  # produced on every path
