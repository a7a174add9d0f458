"""The program staticize compiles from a family (issue 24): nested branch points, on teachers
run over the real tau-bench retail environment (``retail_teachers.py``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior
from jdsl.compiler.verify import verify
from jdsl.ir import from_ir
from jdsl.text import format_behavior, parse_behavior

sys.path.insert(0, str(Path(__file__).parent))
from retail_teachers import TWO_POINTS, episodes, same_behavior, two_point_inputs  # noqa: E402


@pytest.fixture(scope="module")
def two_points() -> Any:
    """2 runs per path: email or name+zip, then cancel (pending) or escalate."""
    return compile_behavior(episodes(TWO_POINTS, two_point_inputs(0, 8)), name="handle")


def _flow(ir: dict[str, Any]) -> list[dict[str, Any]]:
    """The compiled program's steps (the sequence the package's fallback is tried after)."""
    return next(n for n in _ir_nodes(ir["root"]) if str(n.get("id", "")).endswith("_flow"))[
        "children"]  # fmt: skip


def _ir_nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    from jdsl.ir.nodes import child_slots

    return [node] + [n for child in child_slots(node) for n in _ir_nodes(child)]


@pytest.mark.slow
def test_each_branch_point_is_its_own_selector_where_the_runs_part(two_points) -> None:
    result = two_points
    v = result.verification
    assert result.ok and v.executed == v.matched == 8, result.report().text
    identity, outcome = result.compiled.branches
    assert (identity.position, identity.selection) == (0, "inputs")
    assert [a.tools for a in identity.alternatives] == [
        ("find_user_id_by_email",), ("find_user_id_by_name_zip",)]  # fmt: skip
    assert identity.tail[:2] == ("get_user_details", "get_order_details")
    assert (outcome.position, outcome.selection) == (3, "conditions")
    assert [a.selected_by for a in outcome.alternatives] == [
        ('order.status == "pending"',), ('not order.status == "pending"',)]  # fmt: skip
    flow = _flow(result.ir)
    assert [n["kind"] for n in flow] == ["selector", "action", "action", "selector"]
    assert not any(n["kind"] == "predict" for n in _ir_nodes(result.ir["root"]))  # no route
    root = from_ir(result.ir)
    assert parse_behavior(format_behavior(root)).to_ir() == root.to_ir()


@pytest.mark.slow
def test_no_name_id_or_list_position_is_frozen(two_points) -> None:
    constants = {(a.tool, c.argument): c.spec["const"] for a in two_points.compiled.actions
                 for c in a.choices if c.how == "const"}  # fmt: skip
    assert constants == {("cancel_pending_order", "reason"): "no longer needed"}
    refs = [
        c.spec["ref"] for a in two_points.compiled.actions for c in a.choices if "ref" in c.spec
    ]
    assert not any("[0]" in r or "[1]" in r for r in refs)
    assert ("get_order_details", "order_id") in {(a.tool, c.argument) for a in
                                                 two_points.compiled.actions for c in a.choices
                                                 if c.how == "input"}  # fmt: skip


@pytest.mark.slow
def test_the_package_behaves_like_the_teacher_on_20_fresh_inputs(two_points) -> None:
    teacher, package = parse_behavior(TWO_POINTS), from_ir(two_points.ir)
    fresh = two_point_inputs(10, 20)
    assert len({tuple(sorted(i)) for i in fresh}) == 2  # both identities
    for inputs in fresh:
        same, why = same_behavior(teacher, package, inputs)
        assert same, why


@pytest.mark.slow
def test_a_swapped_outcome_branch_fails_verification(two_points) -> None:
    import copy
    import dataclasses

    # the compiled program alone (result.ir, without the fallback), edited by hand
    wrong = dataclasses.replace(two_points.compiled, ir=copy.deepcopy(two_points.ir))
    outcome = _flow(wrong.ir)[-1]["children"]
    outcome[0]["children"][-1], outcome[1]["children"][-1] = (
        outcome[1]["children"][-1], outcome[0]["children"][-1])  # fmt: skip
    report = verify(wrong, two_points.normalized)
    assert report.status == "failed" and report.matched == 0


# -- recovery: any mix of failing and succeeding runs ------------------------------------------
@pytest.fixture(scope="module")
def recovery_mix() -> Any:
    """5 runs: in 3 the email lookup fails first and name+zip recovers, in 2 it succeeds."""
    from retail_teachers import RECOVER, recovery_inputs

    return compile_behavior(episodes(RECOVER, recovery_inputs(0, 5, {0, 2, 3})), name="find")


@pytest.mark.slow
def test_a_recovery_mix_of_3_failing_of_5_is_one_verified_recovery(recovery_mix) -> None:
    result = recovery_mix
    v = result.verification
    assert result.ok and v.executed == v.matched == 5, result.report().text
    assert result.compiled.branches == ()  # the runs where the email worked are no other way
    first = _flow(result.ir)[0]
    assert first["kind"] == "selector"
    primary, backup = first["children"]
    assert (primary["tool"], primary.get("on_error")) == ("find_user_id_by_email", "fail")
    assert backup["tool"] == "find_user_id_by_name_zip"


@pytest.mark.slow
def test_the_recovery_package_behaves_like_the_teacher_on_20_fresh_inputs(recovery_mix) -> None:
    from retail_teachers import RECOVER, recovery_inputs

    teacher, package = parse_behavior(RECOVER), from_ir(recovery_mix.ir)
    fresh = recovery_inputs(10, 20, set(range(0, 20, 3)))
    for inputs in fresh:
        same, why = same_behavior(teacher, package, inputs)
        assert same, why


@pytest.mark.slow
def test_a_recovery_package_without_its_fallback_fails_verification(recovery_mix) -> None:
    import copy

    wrong = copy.deepcopy(recovery_mix.compiled)
    _flow(wrong.ir)[0]["children"].pop()
    report = verify(wrong, recovery_mix.normalized)
    assert report.status == "failed" and report.matched <= 2  # the 3 recovering runs diverge


# -- loops ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def loop() -> Any:
    """A teacher that reads each of the user's orders; its users have 1 to 4 orders."""
    from retail_teachers import LOOP, loop_inputs

    return compile_behavior(episodes(LOOP, loop_inputs([1, 2, 3, 4, 1, 2, 3, 4])), name="orders")


@pytest.mark.slow
def test_calls_over_each_element_of_a_list_compile_to_for_each(loop) -> None:
    v = loop.verification
    assert loop.ok and v.executed == v.matched == 8, loop.report().text
    flow = _flow(loop.ir)
    (each,) = [n for n in flow if n["kind"] == "for_each"]
    assert (each["items"], each["item"]) == ("user.orders", "order_id")
    assert each["child"]["tool"] == "get_order_details"
    assert each["child"]["args"] == {"order_id": {"ref": "order_id"}}
    assert [n.get("tool") for n in flow] == [
        "find_user_id_by_email", "get_user_details", None, "transfer_to_human_agents"]  # fmt: skip
    assert loop.compiled.branches == ()  # 1 to 4 orders are one path
    assert "for_each order_id in user.orders" in format_behavior(from_ir(loop.ir))


@pytest.mark.slow
def test_the_loop_package_serves_a_user_with_5_orders(loop) -> None:
    from retail_teachers import LOOP, loop_inputs, run

    teacher, package = parse_behavior(LOOP), from_ir(loop.ir)
    (inputs,) = loop_inputs([5])
    (_, t_env), (p_ctx, p_env) = run(teacher, inputs), run(package, inputs)
    calls = [(s.name, dict(s.arguments)) for s in p_env.history]
    assert p_ctx.status.name == "SUCCESS" and calls == [
        (s.name, dict(s.arguments)) for s in t_env.history]  # fmt: skip
    assert [name for name, _ in calls].count("get_order_details") == 5


@pytest.mark.slow
def test_a_loop_over_the_wrong_list_fails_verification(loop) -> None:
    import copy

    wrong = copy.deepcopy(loop.compiled)
    each = next(n for n in _flow(wrong.ir) if n["kind"] == "for_each")
    each["items"] = "user.payment_methods"
    report = verify(wrong, loop.normalized)
    assert report.status == "failed" and report.matched == 0
