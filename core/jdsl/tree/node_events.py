"""The payloads of one node's trace events that are the same in every run (:class:`NodeEvents`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jdsl.trace.shared import JsonText, PayloadTemplate

__all__ = ["NodeEvents"]


class NodeEvents:
    """The payloads of one node's events that are the same in every run, encoded once.

    A traced ``Root.run`` keeps them with the tree (a
    :class:`~jdsl.trace.canonical.JsonText` is written by a trace file as it is and screened
    for secrets once; a list sink parses a copy when its events are read). An action's
    ``tool.call.started`` / ``tool.call.completed`` differ only in their arguments / result:
    :meth:`tool_call` gives their :class:`~jdsl.trace.canonical.PayloadTemplate`.

    Args:
        node_id: the node's effective id; kind: its ``kind``; label: its label.

    Attributes:
        node_id: as given.
        enter: the ``node.enter`` payload, ``{"label", "node_id", "type"}``.
        exits: the ``node.exit`` payloads made so far, by status (see :meth:`exit`).
        tool: :meth:`tool_call`'s templates once made (None before).
    """

    __slots__ = ("_base", "_constants", "enter", "exits", "node_id", "tool")

    def __init__(self, node_id: str | None, kind: str, label: str) -> None:
        self.node_id = node_id
        self._base = {"node_id": node_id, "type": kind, "label": label}
        self.enter = JsonText.of(self._base)
        self.exits: dict[str, JsonText] = {}
        self.tool: tuple[PayloadTemplate, PayloadTemplate] | None = None
        self._constants: dict[str, JsonText] = {}

    def exit(self, status: str) -> JsonText:
        """The ``node.exit`` payload for ``status`` (``"success"``, ``"error"``, ...)."""
        found = self.exits.get(status)
        if found is None:
            found = self.exits[status] = JsonText.of({**self._base, "status": status})
        return found

    def constant(self, name: str, make: Callable[[], dict[str, Any]]) -> JsonText:
        """Another payload of this node that is the same every run (e.g. the
        ``tool.call.failed`` of a tool returning ``Status.FAILURE``): ``make()`` once."""
        found = self._constants.get(name)
        if found is None:
            found = self._constants[name] = JsonText.of(make())
        return found

    def tool_call(self, tool: str, store: str | None) -> tuple[PayloadTemplate, PayloadTemplate]:
        """``(started, completed)``: the templates of a call of ``tool`` storing ``store``,
        with slots ``arguments`` and ``result``."""
        if self.tool is None:
            fixed = {
                "node_id": self.node_id, "store": store,
                "tool": {"host_name": tool, "logical_id": None},
            }  # fmt: skip
            self.tool = PayloadTemplate(fixed, "arguments", {}), PayloadTemplate(fixed, "result")
        return self.tool
