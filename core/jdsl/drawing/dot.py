"""Graphviz DOT for behavior trees and IR (python ``graphviz`` package, imported when called).

Each node kind has one style (``NODE_STYLE``, a table lookup, not an isinstance chain); children
keep their IR order; labels are escaped and cut short with the full text in the tooltip; every
drawn node carries its effective node id as the SVG ``id`` attribute, so the drawing can be
matched against trace events; after a run, the fill colour is the node's last status
(:func:`node_statuses`) and nodes the run never reached are drawn dashed and grey;
:func:`legend_entries` names the colours (``jdsl.drawing.outline`` draws the legend in HTML under
every renderer's drawing, since the in-process renderer has no HTML-like labels).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

from jdsl.drawing.labels import drawing_label, node_label, unescape_quotes, wrap_label
from jdsl.errors import MissingDependencyError
from jdsl.ir.walk import as_ir, labelled_children, structural_ids

__all__ = [
    "LEGEND_TEXT",
    "NODE_STYLE",
    "NOT_RUN_STYLE",
    "STATUS_COLOURS",
    "legend_entries",
    "node_statuses",
    "tree_dot",
]

NODE_STYLE: dict[str, dict[str, str]] = {
    "root": {"shape": "house", "fillcolor": "#e8e8f8"},
    "sequence": {"shape": "box", "fillcolor": "#fff3d6", "style": "filled,rounded"},
    "selector": {"shape": "octagon", "fillcolor": "#e6f0ff"},
    "action": {"shape": "box", "fillcolor": "#ffffff"},
    "predict": {"shape": "ellipse", "fillcolor": "#f3e6ff"},
    "react": {"shape": "doubleoctagon", "fillcolor": "#f3e6ff"},
    "check": {"shape": "diamond", "fillcolor": "#f5f5f5"},
    "guard": {"shape": "diamond", "fillcolor": "#f5f5f5"},
    "guard_call": {"shape": "diamond", "fillcolor": "#f5f5f5"},
    "repeat": {"shape": "component", "fillcolor": "#eeeeee"},
    "for_each": {"shape": "component", "fillcolor": "#e3f4ea"},
    "invert": {"shape": "invtriangle", "fillcolor": "#eeeeee"},
    "optional": {"shape": "component", "fillcolor": "#eeeeee", "style": "filled,dashed"},
    "oneshot": {"shape": "component", "fillcolor": "#eeeeee"},
    "timeout": {"shape": "component", "fillcolor": "#eeeeee"},
}
"""Node kind -> Graphviz node attributes (shape, fill); an unknown kind is a white box."""

_DEFAULT_STYLE = {"shape": "box", "fillcolor": "#ffffff"}
_LABEL_CHARS = {"diamond": 28, "ellipse": 34}
"""Label line width by shape (default 40): a diamond is about twice as wide as its label."""
_LABEL_LINES = 3

STATUS_COLOURS: dict[str, str] = {
    "success": "#9be39b",
    "failure": "#f4a3a3",
    "error": "#f7b267",
    "cancelled": "#cccccc",
    "running": "#fff59d",
    "not_taken": "#ececec",
}
"""Node status (lower case, as :func:`node_statuses` gives it) -> fill colour after a run."""

NOT_RUN_STYLE: dict[str, str] = {"fillcolor": "#ffffff", "color": "#9a9a9a", "fontcolor": "#6b6b6b"}
"""Graphviz attributes of a node the run never reached (drawn dashed as well)."""

_LEGEND_ALWAYS = ("success", "failure", "running", "not_taken")
LEGEND_TEXT: dict[str, str] = {"not_taken": "failed, recovered", "not_run": "not run (dashed)"}
"""Legend wording where a status key is not plain English."""


def node_statuses(events: Iterable[Mapping[str, Any]], upto: int | None = None) -> dict[str, str]:
    """The status of every node in a run, by node id, from ``node.enter``/``node.exit``.

    Args:
        events: one episode's trace events as dicts (``kind``, ``payload``), in recorded order.
        upto: the last step (0-based event index) to read; None reads the whole run. A step
            debugger colours its drawing with ``node_statuses(events, upto=step)``.

    Returns:
        Node id -> ``success`` / ``failure`` / ``not_taken`` / ``running`` / ``error`` / ...
        (nodes not entered yet are absent). A failure that an ancestor recovered from (a
        selector trying its next child, an ``optional``, an ``invert``, a ``repeat`` that went
        on to succeed) is ``not_taken``: the branch the run did not take, not a failure of the
        run. A node entered but not exited is ``running`` (the run stopped inside it), unless
        the episode finished with an error or was cancelled, which marks it ``error``.
    """
    statuses: dict[str, str] = {}
    open_nodes: list[tuple[str, list[str]]] = []  # (node id, failed nodes below it)
    error = False
    for step, event in enumerate(events):
        if upto is not None and step > upto:
            break
        kind, payload = event.get("kind"), event.get("payload") or {}
        node_id = payload.get("node_id")
        if kind == "node.enter" and node_id:
            statuses[node_id] = "running"
            open_nodes.append((node_id, []))
        elif kind == "node.exit" and node_id:
            status = str(payload.get("status", "")).lower() or "success"
            statuses[node_id] = status
            _close(open_nodes, node_id, status, statuses)
        elif kind == "episode.finished":
            error = payload.get("status") in ("error", "cancelled")
    if error:
        for node_id, _ in open_nodes:
            statuses[node_id] = "error"
    return statuses


def _close(
    open_nodes: list[tuple[str, list[str]]], node_id: str, status: str, statuses: dict[str, str]
) -> None:
    """Pop ``node_id`` (and anything left open above it); settle the failures below it."""
    failed: list[str] = []
    for index in range(len(open_nodes) - 1, -1, -1):
        if open_nodes[index][0] == node_id:
            for _, below in open_nodes[index:]:
                failed += below
            del open_nodes[index:]
            break
    if status == "success":
        for below_id in failed:
            if statuses.get(below_id) == "failure":
                statuses[below_id] = "not_taken"
        failed = []
    elif status == "failure":
        failed.append(node_id)
    if open_nodes:
        open_nodes[-1][1].extend(failed)


def _escape(text: str) -> str:
    import graphviz

    return str(graphviz.escape(text))


def _node_attrs(
    node: Mapping[str, Any], node_id: str, status: str | None, coloured: bool
) -> dict[str, str]:
    """Attributes of one node; ``coloured``: the drawing shows a run (unreached nodes greyed)."""
    kind = str(node.get("kind", "?"))
    attrs = dict(NODE_STYLE.get(kind, _DEFAULT_STYLE))
    attrs.setdefault("style", "filled")
    limit = _LABEL_CHARS.get(attrs["shape"], 40)
    lines = wrap_label(drawing_label(node), limit, _LABEL_LINES)
    label = "\\n".join(_escape(line) for line in lines)
    if node.get("id"):
        id_lines = wrap_label("#" + str(node["id"]), limit, 2)
        label += "".join("\\n" + _escape(line) for line in id_lines)
    tooltip = _escape(unescape_quotes(node_label(node))) + "&#10;id: " + _escape(node_id)
    tooltip += f"&#10;status: {status or 'not run'}" if coloured else ""
    attrs.update(label=label, tooltip=tooltip, id=_escape(node_id))
    attrs["class"] = f"jdsl-node jdsl-{kind}" + (f" jdsl-status-{status}" if status else "")
    if status:
        attrs["fillcolor"] = STATUS_COLOURS.get(status, attrs["fillcolor"])
        attrs["penwidth"] = "2"
    elif coloured:
        attrs.update(NOT_RUN_STYLE, style=attrs["style"] + ",dashed")
        attrs["class"] += " jdsl-status-not-run"
    return attrs


def legend_entries(statuses: Mapping[str, str]) -> list[tuple[str, str, str, str]]:
    """``(status, fill, ink, text)`` per legend swatch: the usual statuses, any other status
    the run has, and "not run". Every renderer (SVG label, HTML outline) draws these."""
    shown = list(_LEGEND_ALWAYS) + sorted(set(statuses.values()) - set(_LEGEND_ALWAYS))
    entries = [
        (s, STATUS_COLOURS.get(s, "#ffffff"), "#000000", LEGEND_TEXT.get(s, s)) for s in shown
    ]
    entries.append(
        ("not_run", NOT_RUN_STYLE["fillcolor"], NOT_RUN_STYLE["fontcolor"], LEGEND_TEXT["not_run"])
    )
    return entries


def tree_dot(
    tree: Any, statuses: Mapping[str, str] | None = None, *, name: str = "", legend: bool = False
) -> str:
    """The DOT source of a tree or IR dict, coloured by ``statuses`` (node id -> status).

    Args:
        tree: a node object, an IR node dict, a ``behavior.json`` dict or an object with ``ir``.
        statuses: from :func:`node_statuses`; nodes without one keep their kind's fill.
        name: the graph name (defaults to the root's name).
        legend: with ``statuses``, put the status legend in the graph as an HTML-like label,
            for a standalone SVG file. Only ``dot`` draws those labels (the in-process renderer
            shows the graph name instead), so views draw the legend in HTML
            (:func:`jdsl.drawing.drawing_html`).

    Returns:
        DOT text; node names are ``n0, n1, ...`` in pre-order, ``id`` attributes are node ids.

    Raises:
        TypeError: when ``tree`` holds no tree.
        MissingDependencyError: when the python ``graphviz`` package is missing.
    """
    graphviz = _require_graphviz()
    ir = as_ir(tree)
    ids = structural_ids(ir)
    graph = graphviz.Digraph(
        name=_escape(name or str(ir.get("name") or "behavior")),
        graph_attr={"rankdir": "LR", "nodesep": "0.15", "ranksep": "0.3", "ordering": "out"},
        node_attr={"fontname": "Helvetica", "fontsize": "11", "margin": "0.08,0.04"},
        edge_attr={"arrowsize": "0.6", "fontsize": "11", "fontname": "Helvetica"},
    )
    counter = iter(range(1 << 30))

    def draw(node: Mapping[str, Any]) -> str:
        dot_name = f"n{next(counter)}"
        node_id = ids[id(node)]
        status = (statuses or {}).get(node_id)
        graph.node(dot_name, **_node_attrs(node, node_id, status, bool(statuses)))
        for edge_label, child in labelled_children(node):
            child_name = draw(child)
            graph.edge(dot_name, child_name, **({"label": edge_label} if edge_label else {}))
        return dot_name

    draw(ir)
    if statuses and legend:
        graph.attr(
            label=_legend(statuses),
            labelloc="b",
            labeljust="l",
            fontsize="11",
            fontname="Helvetica",
        )
    return str(graph.source)


def _legend(statuses: Mapping[str, str]) -> str:
    """An HTML-like Graphviz label: a swatch per :func:`legend_entries` entry."""
    cells = "".join(
        f'<td bgcolor="{fill}"><font color="{ink}"> {html.escape(text)} </font></td>'
        for _, fill, ink, text in legend_entries(statuses)
    )
    return (
        '<<table border="0" cellborder="1" cellspacing="4" cellpadding="2">'
        f'<tr><td border="0">status:</td>{cells}</tr></table>>'
    )


def _require_graphviz() -> Any:
    try:
        import graphviz
    except ImportError as exc:
        raise MissingDependencyError("graphviz", "notebook") from exc
    return graphviz
