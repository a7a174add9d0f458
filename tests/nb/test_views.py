"""Static HTML and text views: self-contained, capped, never raising from a display hook."""

from __future__ import annotations

import re

from jdsl_nb import compile_views, hooks, views
from jdsl_nb.rundata import RunData


def _no_external_refs(html: str) -> None:
    assert "<script" not in html and "<iframe" not in html
    assert not re.search(r"(src|href)=\"https?://", html)


def test_run_html_shows_tree_provenance_and_timeline(run_events):
    html = views.run_html(RunData.build(run_events))
    _no_external_refs(html)
    assert 'id="resolve_target"' in html or 'data-node-id="resolve_target"' in html
    assert "jdsl-provenance" in html and "root/sequence.0/action.0" in html
    assert "list_orders.customer_id &lt;- customer.id" in html
    assert "jdsl-timeline" in html and "jdsl-gantt" in html


def test_run_text_is_readable(run_events):
    text = views.run_text(RunData.build(run_events))
    assert text.startswith("run: success")
    assert 'customer = {"id": "C7"}  (by root/sequence.0/action.0)' in text


def test_error_runs_show_the_error(run_events):
    run = RunData.build(run_events[:5], error=RuntimeError("tool exploded"))
    assert run.status == "error"
    assert "RuntimeError: tool exploded" in views.run_html(run)


def test_large_values_are_cut_with_the_whole_in_details(run_events):
    html = views.provenance_html(RunData.build(run_events).records)
    assert "<details>" in html and "x" * 500 in html
    assert "x" * 500 not in views.provenance_html(RunData.build(run_events).records, full_limit=0)


def test_trace_view_lists_episodes(run_events):
    other = [dict(e, episode_id="ep2") for e in run_events]
    text = views.trace_text(run_events + other)
    assert "ep1: cancel_order success" in text and "ep2" in text
    _no_external_refs(views.trace_html(run_events + other))


def test_tree_text_outline(cancel_ir):
    lines = views.tree_text(cancel_ir).splitlines()
    assert lines[0] == "root cancel_order  [root]"
    assert lines[4].strip().startswith('predict "request, orders -> selected_index: int"')


def test_repeat_until_is_drawn_as_a_labelled_child():
    ir = {
        "kind": "root",
        "name": "r",
        "child": {
            "kind": "repeat",
            "max": 2,
            "child": {"kind": "action", "tool": "poll"},
            "until": {"kind": "check", "key": "done", "equals": True},
        },
    }
    text = views.tree_text(ir)
    assert "until: check done == true  [root/repeat.0/check.1]" in text


class _Result:
    candidates = [
        {
            "candidate_id": "cand_dataflow_000",
            "type": "DATAFLOW",
            "grade": "E2",
            "status": "accepted",
            "claim": {
                "source": "customer.id",
                "target": {"tool": "list_orders", "argument": "customer_id", "index": 1},
            },
            "evidence": {
                "support": 3,
                "applicable": 3,
                "counterexamples": 0,
                "episodes": ["a", "b", "c"],
            },
        }
    ]
    verification = {
        "status": "passed",
        "replay_checks": 3,
        "replay_passed": 3,
        "executed": 2,
        "matched": 2,
        "first_divergence": None,
    }

    class compiled:  # noqa: N801 - mimics CompileResult.compiled
        ir = {
            "kind": "sequence",
            "id": "flow",
            "children": [
                {
                    "kind": "predict",
                    "signature": "request, orders -> selected_index: int",
                    "id": "resolve_target",
                }
            ],
        }


def test_compile_views_read_a_result(run_events):
    html = compile_views.compile_html(_Result(), run_events)
    _no_external_refs(html)
    assert "teacher tree" in html and "cand_dataflow_000" in html
    assert "customer.id" in html and "list_orders.customer_id" in html
    assert "resolve_target" in html
    text = compile_views.compile_text(_Result())
    assert "verification passed (executed 2 episodes, 2 matched), 1 candidates {'E2': 1}" in text
    assert "executed 2 episodes, 2 matched" in html


def test_compile_views_tolerate_an_empty_result():
    html = compile_views.compile_html(object())
    assert "(no IR)" in html and "(none)" in html


def test_package_views():
    class Package:
        manifest = {
            "name": "cancel",
            "version": "0.1.0",
            "required_capabilities": ["retail.x"],
            "verification": {"status": "passed"},
            "files": {"behavior.json": "sha256:ab"},
        }
        ir = {"kind": "root", "name": "cancel", "child": {"kind": "action", "tool": "x"}}

    assert compile_views.package_text(Package()) == (
        "package cancel 0.1.0: verification passed; requires [retail.x]"
    )
    assert "sha256:ab" in compile_views.package_html(Package())
    Package.manifest = {
        **Package.manifest,
        "verification": {
            "status": "failed",
            "executed": 3,
            "matched": 2,
            "first_divergence": {
                "episode_id": "e2",
                "node_id": "cancel_3",
                "reason": "expected cancel(...)",
            },
        },
    }
    assert compile_views.package_text(Package()) == (
        "package cancel 0.1.0: verification failed (executed 3 episodes, 2 matched; first "
        "divergence: episode 'e2', node 'cancel_3': expected cancel(...)); requires [retail.x]"
    )


def test_display_hook_wrappers_never_raise():
    def broken(obj):
        raise ValueError("boom")

    html = hooks._safe_html(broken)(object())
    assert "could not draw" in html and "boom" in html

    class Printer:
        out = ""

        def text(self, value):
            self.out += value

    printer = Printer()
    hooks._safe_text(broken)(object(), printer, False)
    assert "text view failed" in printer.out


def test_a_trace_file_with_blobs_is_shown_whole(tmp_path, run_events):
    trace_mod = __import__("jdsl.trace", fromlist=["JsonlTraceSink"])
    path = tmp_path / "run.jsonl"
    sink = trace_mod.JsonlTraceSink(path, blob_threshold_bytes=100)
    for event in run_events:
        sink.emit(
            trace_mod.TraceEvent.from_dict(
                {k: v for k, v in event.items() if k not in ("sequence", "event_id")}
            )
        )
    loaded = trace_mod.read_events(path)
    assert any(e.blob_refs for e in loaded)
    run = RunData.build(loaded)
    orders = next(r for r in run.records if r.key == "orders")
    assert isinstance(orders.value, list) and orders.value[1]["note"] == "x" * 500
