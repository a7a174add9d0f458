"""The compile's report: a dict with a readable text (``str(report)``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["CompileReport", "inputs_text"]


class CompileReport(dict[str, Any]):
    """The report as a dict; ``str(report)`` (or ``report.text``) is a readable summary."""

    @property
    def text(self) -> str:
        v, m = self["verification"], self["metrics"]
        lines = [
            f"behavior {self['name']!r}: {self['episodes']} episode(s), "
            f"{self['aligned_episodes']} follow the compiled path(s)",
            f"  skeleton      {' -> '.join(self['skeleton']) or '(empty)'}",
            *(f"  branch        {b}" for b in self["branch_text"]),
            f"  verification  {v['status']} (structure {'ok' if v['structural_ok'] else 'FAILED'},"
            f" replay {v['replay_passed']}/{v['replay_checks']}, coverage"
            f" {'n/a' if v['replay_coverage'] is None else v['replay_coverage']};"
            f" executed {v['executed']} episode(s), {v['matched']} matched,"
            f" {v.get('fallback', 0)} fallback)",
            f"  decisions     {m['model_dependent_decisions']} model / {m['meaningful_decisions']}"
            f" (RDB {m['residual_decision_burden']}, coverage {m['deterministic_coverage']})",
            f"  dataflow      {m['exact_dataflow_refs']}/{m['action_arguments']} arguments ref a"
            f" tool result (rate {m['exact_dataflow_rate']}); {m['residual_refs']} ref a model"
            f" output, {m['input_refs']} a run input",
            f"  run inputs    {_inputs_text(self)}",
            f"  capabilities  {', '.join(self['required_capabilities']) or '-'}",
            f"  candidates    {self['candidates']}",
        ]
        lines += [f"  args          {line}" for line in self["arguments"]]
        lines += [f"  constant      {line}" for line in self["constants"]]
        lines += [f"  problem       {p}" for p in v["problems"]]
        lines += [f"  note          {n}" for n in self["notes"]]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text


def _inputs_text(report: Mapping[str, Any]) -> str:
    return inputs_text(report["required_inputs"], report["input_alternatives"])


def inputs_text(
    required: Sequence[str], alternatives: Sequence[Sequence[Sequence[str]]], empty: str = "-"
) -> str:
    """The run inputs a host must give: ``request; one of: email | first_name, last_name, zip``.

    Args:
        required: inputs every path reads.
        alternatives: per branch point, the input sets of its alternatives.
        empty: the text when nothing is required.
    """
    text = ", ".join(required) or empty
    for branch in alternatives:
        if any(branch):  # a branch whose alternatives read no input of their own says nothing
            text += "; one of: " + " | ".join(", ".join(alt) or "(none)" for alt in branch)
    return text
