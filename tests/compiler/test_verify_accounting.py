"""Verification accounts for every executed run: matched, a recorded fallback hand-over, or a
problem (an unreplayable run counts against verification, aligned or not)."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from jdsl.compiler import compile_behavior
from jdsl.compiler.verify import verify


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _nodes(child) if isinstance(child, dict) else []
    return found


def test_a_run_neither_matched_nor_handed_over_fails_verification(retail_episodes) -> None:
    result = compile_behavior(retail_episodes(3), name="cancel")
    first = result.normalized[0]
    compiled = copy.deepcopy(result.compiled)
    compiled = dataclasses.replace(compiled, aligned=(first.episode_id,))
    action = next(n for n in _nodes(compiled.ir["root"]) if n.get("tool") == "list_orders")
    action["args"]["customer_id"] = {"const": first.steps[1].arguments["customer_id"]}
    report = verify(compiled, result.normalized)
    # ep_1 and ep_2 were not compiled from; the frozen lookup is a read their records lack
    assert report.matched == 1 and report.unreplayable == 2
    assert report.status == "failed" and not report.ok
    assert [e.episode_id for e in report.unaccounted] == ["ep_1", "ep_2"]
    assert any("ep_1" in p and "a read the episode never made" in p for p in report.problems)
    assert report.to_dict()["unreplayable"] == 2


def test_the_package_summary_says_how_every_executed_run_ended(retail_episodes) -> None:
    from jdsl.commands.show import package_summary

    package = compile_behavior(retail_episodes(3), name="cancel").package
    package.manifest["verification"].update(executed=2, matched=1, fallback=1, unreplayable=0)
    line = next(s for s in package_summary(package).splitlines() if s.startswith("verification"))
    assert line.endswith("executed 2 episode(s), 1 matched, 1 handed to the fallback)")
