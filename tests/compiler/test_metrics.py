"""package_metrics: exact dataflow refs are refs to tool results; branching counts selectors."""

from __future__ import annotations

from jdsl.compiler.metrics import package_metrics


def _ir(*children: dict) -> dict:
    return {"format": "jdsl.behavior.v1",
            "root": {"kind": "root", "name": "m", "child": {"kind": "sequence",
                                                           "children": list(children)}}}  # fmt: skip


def test_only_refs_to_tool_results_are_exact_dataflow() -> None:
    m = package_metrics(_ir(
        {"kind": "action", "tool": "find", "args": {"email": {"ref": "email"}}, "store": "uid"},
        {"kind": "action", "tool": "get", "args": {"id": {"ref": "uid"}}, "store": "user"},
        {"kind": "predict", "signature": "user -> pick: int, reason: str"},
        {"kind": "action", "tool": "cancel", "args": {
            "order": {"ref": "user.orders[$pick]"}, "reason": {"ref": "reason"},
            "note": {"const": "x"}}},
    ))  # fmt: skip
    assert (m.exact_dataflow_refs, m.residual_refs, m.input_refs) == (2, 1, 1)
    assert m.action_arguments == 5 and m.exact_dataflow_rate == 0.4


def test_a_ref_before_its_store_or_to_a_model_output_is_not_dataflow() -> None:
    m = package_metrics(_ir(
        {"kind": "predict", "signature": "q -> order_id"},
        {"kind": "action", "tool": "get", "args": {"id": {"ref": "order_id"},
                                                   "user": {"ref": "user.id"}}},
        {"kind": "action", "tool": "who", "args": {}, "store": "user"},
    ))  # fmt: skip
    assert (m.exact_dataflow_refs, m.residual_refs, m.input_refs) == (0, 1, 1)
    assert m.exact_dataflow_rate == 0.0


def test_selectors_are_deterministic_branching_not_tool_branching() -> None:
    act = {"kind": "action", "tool": "a"}
    m = package_metrics(_ir(
        {"kind": "selector", "children": [act, act, act]},
        {"kind": "selector", "children": [act]},
        {"kind": "react", "signature": "q -> a", "tools": ["a", "b"]},
    ))  # fmt: skip
    assert (m.branch_points, m.deterministic_branching, m.tool_branching) == (2, 2.0, 2.0)
    assert package_metrics(_ir(act)).branch_points == 0
