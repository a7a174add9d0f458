"""validate_ir: every structural problem of a Behavior IR document, all in one report."""

from __future__ import annotations

from typing import Any

import pytest
from jdsl.errors import ValidationError
from jdsl.ir import BEHAVIOR_FORMAT, validate_ir


def doc(child: Any, **root: Any) -> dict[str, Any]:
    return {
        "format": BEHAVIOR_FORMAT,
        "root": {"kind": "root", "name": "t", "child": child, **root},
    }


def act(tool: str = "lookup", **extra: Any) -> dict[str, Any]:
    return {"kind": "action", "tool": tool, "args": {"email": {"ref": "email"}}, **extra}


GOOD = doc(
    {
        "kind": "sequence",
        "id": "main",
        "children": [
            act(store="customer"),
            {
                "kind": "predict",
                "signature": "request, orders -> selected_index: int",
                "input_sources": {"orders": "customer.orders"},
            },
            {
                "kind": "guard",
                "expression": {
                    "eq": [{"ref": "orders[$selected_index].status"}, {"const": "pending"}]
                },
            },
            {"kind": "react", "signature": "q -> answer", "tools": ["search", "lookup"]},
            {
                "kind": "repeat",
                "max": 1000,
                "child": act("poll"),
                "until": {"kind": "check", "key": "status", "equals": "done"},
            },
            {
                "kind": "timeout",
                "seconds": 0.5,
                "child": {"kind": "guard_call", "predicate": "ok", "args": {"x": {"const": 1}}},
            },
            {
                "kind": "invert",
                "child": {"kind": "optional", "child": {"kind": "oneshot", "child": act("ping")}},
            },
            {"kind": "selector", "children": [act("a")]},
        ],
    }
)


def test_a_well_formed_document_has_no_problems() -> None:
    report = validate_ir(GOOD)
    assert report.ok and bool(report) and report.problems == ()
    assert report.capabilities == ("a", "lookup", "ping", "poll", "search")
    report.raise_for_problems()  # no-op


@pytest.mark.parametrize(
    ("child", "fragment"),
    [
        ({"kind": "loop"}, "unknown node kind 'loop'"),
        ({"kind": "sequence", "children": []}, "needs at least one child"),
        ({"kind": "invert"}, "invert needs a child"),
        ({"kind": "repeat", "child": act(), "max": 0}, "invalid max 0"),
        ({"kind": "repeat", "child": act(), "max": 1001}, "invalid max 1001"),
        ({"kind": "repeat", "child": act(), "max": True}, "invalid max True"),
        ({"kind": "repeat", "child": act(), "until": "x"}, "until must be a node"),
        ({"kind": "timeout", "child": act(), "seconds": 0}, "seconds must be a number > 0"),
        ({"kind": "timeout", "child": act(), "seconds": -1}, "seconds must be a number > 0"),
        ({"kind": "action", "args": {}}, "needs a tool name"),
        (act(args={"x": {"path": "a"}}), "argument 'x' must be"),
        (act(args={"x": {"ref": "a", "const": 1}}), "argument 'x' must be"),
        (act(args=["x"]), "args must be an object"),
        (act(bogus=1), "unknown field(s) ['bogus']"),
        ({"kind": "guard_call", "args": {}}, "needs a predicate name"),
        ({"kind": "guard"}, "guard needs an expression"),
        ({"kind": "react", "signature": "q -> a", "tools": []}, "at least one tool"),
        ({"kind": "react", "signature": "q -> a", "tools": ["t"], "max_steps": 0}, "max_steps"),
        ({"kind": "predict"}, "needs a signature"),
        ({"kind": "predict", "signature": "a -> b", "examples": [1]}, "examples must be"),
        ({"kind": "predict", "signature": "a -> b", "instructions": 3}, "instructions must be"),
        ({"kind": "check", "equals": 1}, "key must be a non-empty path"),
        (act(id=""), "id must be a non-empty string"),
        (act(context=3), "context must be a string"),
        (act(store=3), "store must be a blackboard key"),
        (7, "a node must be an object"),
    ],
)
def test_each_rule_reports_a_problem(child: Any, fragment: str) -> None:
    report = validate_ir(doc(child))
    assert not report.ok
    assert any(fragment in problem for problem in report.problems), report.problems


def test_problems_name_the_node_by_id_or_structural_id() -> None:
    report = validate_ir(
        doc(
            {
                "kind": "sequence",
                "children": [act("a"), {"kind": "invert"}, {"kind": "invert", "id": "neg"}],
            }
        )
    )
    assert report.problems == (
        "invert 'root/sequence.0/invert.1': invert needs a child",
        "invert 'neg': invert needs a child",
    )


def test_every_problem_is_reported_not_just_the_first() -> None:
    bad = doc(
        {
            "kind": "sequence",
            "children": [
                act(id="x"),
                act(id="x"),
                {"kind": "repeat", "child": act(), "max": 0},
                {"kind": "nope"},
            ],
        }
    )
    bad["extra"] = 1
    problems = validate_ir(bad).problems
    assert len(problems) == 4
    assert any("duplicate id 'x'" in p for p in problems)
    assert any("unknown top-level keys ['extra']" in p for p in problems)


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        ({"format": "jdsl.behavior.v0", "root": GOOD["root"]}, "format is 'jdsl.behavior.v0'"),
        ({"format": BEHAVIOR_FORMAT, "root": act()}, "kind 'root'"),
        ({"format": BEHAVIOR_FORMAT}, "kind 'root'"),
        (doc(act(), name=""), "non-empty name"),
        (doc(act(), system=1), "system must be a string"),
        ({"format": BEHAVIOR_FORMAT, "root": {"kind": "root", "name": "t"}}, "root needs a child"),
    ],
)
def test_envelope_and_root_rules(document: Any, fragment: str) -> None:
    assert any(fragment in p for p in validate_ir(document).problems)


def test_non_object_ir() -> None:
    assert validate_ir([1]).problems == ("the IR must be a JSON object, got list",)


def test_declared_capabilities() -> None:
    assert validate_ir(GOOD, required_capabilities=["a", "lookup", "ping", "poll", "search"]).ok
    problems = validate_ir(GOOD, required_capabilities=["lookup", "ping", "poll"]).problems
    assert problems == (
        "tool 'a' used but not declared in required_capabilities",
        "tool 'search' used but not declared in required_capabilities",
    )


def test_raise_for_problems_raises_validation_error_with_every_problem() -> None:
    report = validate_ir(doc({"kind": "sequence", "children": [{"kind": "invert"}, {"kind": "x"}]}))
    with pytest.raises(ValidationError) as info:
        report.raise_for_problems()
    assert info.value.problems == list(report.problems)
    assert len(info.value.problems) == 2


def test_malformed_paths_expressions_and_signatures() -> None:
    report = validate_ir(
        doc(
            {
                "kind": "sequence",
                "children": [
                    act(args={"x": {"ref": "orders[$"}}),
                    {"kind": "guard", "expression": {"xor": [{"ref": "a"}, {"const": 1}]}},
                    {"kind": "guard", "expression": {"eq": [{"ref": "a[oops"}, {"const": 1}]}},
                    {"kind": "predict", "signature": "a, b"},
                    {"kind": "react", "signature": "q -> a, b", "tools": []},
                    {"kind": "check", "key": "x[", "equals": 1},
                    {"kind": "predict", "signature": "a -> b", "input_sources": {"a": "]"}},
                ],
            }
        )
    )
    assert len(report.problems) == 7, report.problems
    where = [p.split(":")[0] for p in report.problems]
    assert where[0].startswith("action") and where[3].startswith("predict")
