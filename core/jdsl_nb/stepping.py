"""The step debugger's data: the run as of step N, where to jump, and the CSS that shows it.

A *step* is an event's position in the run's ordered event list (0-based). The live run view
draws its tree and timeline once; moving the step changes only a small style sheet
(:func:`step_css`) scoped to that view, which recolours the drawing's nodes by their status as
of the step (entered, running, success, failure so far; nodes not entered yet shown as not run),
outlines the current node and moves the timeline's cursor. Nothing is laid out again, so a
300-node tree steps as fast as a 3-node one.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.drawing import NOT_RUN_STYLE, STATUS_COLOURS, node_statuses

__all__ = ["JUMP_KINDS", "StepIndex", "css_string", "step_css"]

JUMP_KINDS = ("model call", "tool call", "write", "loop pass", "failure")
"""What the debugger can jump to (next / previous); a ``loop pass`` is a for_each's write of
its item (a ``blackboard.write`` with a ``source``), also a ``write``."""

_FAILED = frozenset({"failure", "error", "failed", "cancelled"})
_CURRENT_STROKE = "#1565c0"
_SHAPES = ":is(polygon,ellipse,path)"


def _jump_kind(event: Mapping[str, Any]) -> str | None:
    kind, payload = event.get("kind"), event.get("payload") or {}
    if kind == "model.requested":
        return "model call"
    if kind == "tool.call.started":
        return "tool call"
    if kind == "blackboard.write":
        return "write"
    status = str(payload.get("status", "")).lower()
    if kind == "tool.call.failed" or (kind == "node.exit" and status in _FAILED):
        return "failure"
    if kind == "model.responded" and payload.get("error"):
        return "failure"
    return None


@dataclass(frozen=True)
class StepIndex:
    """The steps of each :data:`JUMP_KINDS` kind, and the node each step belongs to.

    Attributes:
        events: the run's events (steps index into this list).
        jumps: kind -> the steps of that kind, ascending.
        enters: the steps of every ``node.enter`` (to find the innermost running node).
    """

    events: Sequence[Mapping[str, Any]]
    jumps: Mapping[str, tuple[int, ...]]
    enters: tuple[int, ...]

    @classmethod
    def build(cls, events: Sequence[Mapping[str, Any]]) -> StepIndex:
        jumps: dict[str, list[int]] = {kind: [] for kind in JUMP_KINDS}
        enters: list[int] = []
        for step, event in enumerate(events):
            kind = _jump_kind(event)
            if kind is not None:
                jumps[kind].append(step)
            if kind == "write" and (event.get("payload") or {}).get("source") is not None:
                jumps["loop pass"].append(step)
            if event.get("kind") == "node.enter":
                enters.append(step)
        return cls(events, {k: tuple(v) for k, v in jumps.items()}, tuple(enters))

    def jump(self, kind: str, step: int, direction: int) -> int | None:
        """The next (``direction`` 1) or previous (-1) step of ``kind`` from ``step``, or None."""
        steps = self.jumps.get(kind, ())
        if direction > 0:
            index = bisect.bisect_right(steps, step)
            return steps[index] if index < len(steps) else None
        index = bisect.bisect_left(steps, step) - 1
        return steps[index] if index >= 0 else None

    def state(self, step: int) -> tuple[dict[str, str], str]:
        """``(statuses, current node id)`` as of ``step`` (:func:`jdsl.drawing.node_statuses`).

        The current node is the node the step's event belongs to, else the innermost node
        still running.
        """
        statuses = node_statuses(self.events, upto=step)
        payload = self.events[step].get("payload") or {} if self.events else {}
        current = str(payload.get("node_id") or "")
        if current not in statuses:
            current = ""
            index = bisect.bisect_right(self.enters, step) - 1
            while index >= 0 and not current:
                node_id = str((self.events[self.enters[index]].get("payload") or {})["node_id"])
                current = node_id if statuses.get(node_id) == "running" else ""
                index -= 1
        return statuses, current


def css_string(text: str) -> str:
    """``text`` as a quoted CSS string (for attribute selectors such as ``g[id="..."]``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return f'"{escaped}"'


def _node_rule(scope: str, node_ids: Iterable[str], body: str, target: str = _SHAPES) -> str:
    """One rule for the ``target`` elements inside the drawn nodes ``node_ids``."""
    groups = ",".join(f"g[id={css_string(n)}]" for n in node_ids)
    return f".{scope} :is({groups}) {target}{{{body}}}" if groups else ""


_STATUS_NODES = 60
"""Trees up to this many nodes get a timeline status column that follows the step."""


def _timeline_status_rules(scope: str, groups: Mapping[str, list[str]]) -> list[str]:
    """The timeline's status column as of the step: its final statuses hidden, each node's
    status at the step written in (``not run`` before the node is entered)."""
    rules = [f".{scope} .jdsl-tl-final{{display:none}}"]
    for status, ids in sorted(groups.items()):
        selectors = ",".join(f".{scope} .jdsl-tl-now[data-node={css_string(i)}]::after"
                             for i in ids)  # fmt: skip
        word = "not run" if status == "not_run" else status
        rules.append(f'{selectors}{{content:"{word}"}}')
    return rules


def step_css(
    scope: str,
    node_ids: Sequence[str],
    statuses: Mapping[str, str],
    current: str,
    step: int,
    total: int,
) -> str:
    """The style sheet that shows step ``step`` of ``total`` in the view with class ``scope``.

    Args:
        scope: the view's unique CSS class.
        node_ids: every node id of the drawn tree.
        statuses: node id -> status as of the step (absent: not entered yet).
        current: the node to outline, or "".
        step, total: the step shown and the number of steps (for the timeline cursor).

    Returns:
        ``<style>...</style>``: fills by status, dashed grey for nodes not entered yet, a blue
        outline on the current node, and the timeline cursor's position.
    """
    groups: dict[str, list[str]] = {}
    for node_id in node_ids:
        groups.setdefault(statuses.get(node_id, "not_run"), []).append(node_id)
    rules = []
    for status, ids in sorted(groups.items()):
        if status == "not_run":
            body = (
                f"fill:{NOT_RUN_STYLE['fillcolor']};stroke:{NOT_RUN_STYLE['color']};"
                "stroke-width:1px;stroke-dasharray:5,2"
            )
            rules.append(_node_rule(scope, ids, f"fill:{NOT_RUN_STYLE['fontcolor']}", "text"))
        else:
            body = (
                f"fill:{STATUS_COLOURS.get(status, '#ffffff')};stroke:#000;stroke-width:2px;"
                "stroke-dasharray:none"
            )
        rules.append(_node_rule(scope, ids, body))
    if current:
        rules.append(_node_rule(scope, [current], f"stroke:{_CURRENT_STROKE};stroke-width:4px"))
    left = 100.0 * (step + 0.5) / max(total, 1)
    rules.append(f".{scope} .jdsl-cursor{{display:block;left:{left:.3f}%}}")
    if len(node_ids) <= _STATUS_NODES:  # a bigger tree keeps the final statuses (CSS budget)
        rules += _timeline_status_rules(scope, groups)
    return "<style>" + "".join(rules) + "</style>"
