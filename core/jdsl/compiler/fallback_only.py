"""The package of a family whose compiled program fails verification: fallback only.

Issue 24 asks that every run a package meets is served end to end or handed to its fallback
("fallback or served 100 %"). A program that fails verification (a run it was compiled from
diverges or is handed over, or it serves none of its runs) is not written as it is; before,
the family got no package at all and its new runs were refused, while a family whose program
served none but accounted for every run got one. One rule now: such a family gets a package
whose compiled part is a single hand-over (``guard false``, :func:`~jdsl.compiler.fallback.
hand_over_guard`) before its ``react`` fallback (:func:`~jdsl.compiler.fallback.with_fallback`):
every run goes to the fallback at once, before any write. Its verification is that package's,
run on the family's runs: it fails (it serves none of them), and says so; it never reads
"passed". ``jdsl compile`` writes it marked *fallback only*.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.compiled import CompiledBehavior
from jdsl.compiler.fallback import compiled_program, family_tools, hand_over_guard, with_fallback
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.package import build_package
from jdsl.compiler.verify import VerificationReport, verify
from jdsl.package import BehaviorPackage

HAND_OVER_ID = "hand_over_fallback_only"
"""The id of the only compiled node of a fallback-only package."""
HAND_OVER_CONTEXT = (
    "this package is fallback only: the program compiled from the family's runs did not pass "
    "verification, so the fallback takes every run"
)
"""Its reason, as the fallback is told (a failing guard's reason carries its context)."""


def fallback_only_program(
    compiled: CompiledBehavior, report: VerificationReport, episodes: Sequence[NormEpisode]
) -> CompiledBehavior | None:
    """``compiled`` with its program replaced by one hand-over before its fallback (nothing
    compiled is left: no action, guard, residual or branch); None when the family has no tool
    to give a fallback."""
    tools = family_tools(episodes)
    if not tools:
        return None
    document = compiled_program(compiled.ir)
    hand_over = {**hand_over_guard(HAND_OVER_ID), "context": HAND_OVER_CONTEXT}
    document["root"] = {**document["root"], "child": hand_over}
    ir, tools = with_fallback(document, episodes, family=compiled.name, inputs=compiled.inputs)
    return dataclasses.replace(
        compiled, ir=ir, residuals=(), actions=(), guards=(), provenance=(), branches=(),
        required_capabilities=tuple(sorted(tools)), notes=(*compiled.notes, why_only(report)),
    )  # fmt: skip


def why_only(report: VerificationReport) -> str:
    """Why a package is fallback only: the compiled program's first problem."""
    why = report.problems[0] if report.problems else f"verification {report.status}"
    return (f"the program compiled from these runs did not pass verification ({why}); this "
            "package hands every run to its fallback before any write")  # fmt: skip


def fallback_only_package(
    compiled: CompiledBehavior,
    report: VerificationReport,
    episodes: Sequence[NormEpisode],
    *,
    effects: Mapping[str, Any] | None = None,
    reads: Any = None,
    **package: Any,
) -> BehaviorPackage | None:
    """The fallback-only package (:func:`fallback_only_program`) with its own verification on
    ``episodes``; None when the program passed, or there is no fallback to hand runs to.
    ``package``: :func:`~jdsl.compiler.package.build_package`'s keywords."""
    if report.ok:
        return None
    handed = fallback_only_program(compiled, report, episodes)
    if handed is None:
        return None
    checked = verify(handed, episodes, effects=effects, reads=reads)
    return build_package(handed, checked, (), episodes, effects=effects,
                         fallback_only=why_only(report), **package)  # fmt: skip
