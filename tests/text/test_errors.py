"""Every malformed behavior text is a BehaviorSyntaxError with line, column and a fix hint."""

from __future__ import annotations

import pytest
from jdsl.errors import BehaviorSyntaxError
from jdsl.text import parse_behavior_ir

CASES = {
    # the failure-path list of the issue
    "bad indentation": ("seq\n    act a()\n  act b()\n", 3, 3, "does not match its siblings"),
    "unknown node kind": ("seq\n  frobnicate x\n", 2, 3, "unknown node kind 'frobnicate'"),
    "unterminated string": ('act a(x="abc)\n', 1, 9, "unterminated string"),
    "$ outside brackets": ("act a(x=$i)\n", 1, 9, "only inside brackets"),
    "signature without ->": ('predict "a, b"\n', 1, 9, "has no '->'"),
    "unknown attribute": ("seq foo=1\n  act a()\n", 1, 5, "unknown attribute 'foo' for seq"),
    "child under a leaf": ("act a()\n  act b()\n", 2, 3, "act takes no children"),
    "| under a non-instructed node": ("seq\n  | hi\n  act a()\n", 2, 3, "instruction lines"),
    # more
    "tab indentation": ("seq\n\tact a()\n", 2, 1, "tab"),
    "no-break space indentation": (
        "root x\n\u00a0 act a()\n",
        2,
        1,
        "a no-break space (U+00A0) in the indentation",
    ),
    "form feed indentation": ("seq\n  \x0cact a()\n", 2, 3, "(U+000C) in the indentation"),
    "empty text": ("# only a comment\n\n", 1, 1, "empty"),
    "positional argument": ("act a(x)\n", 1, 7, "keyword only"),
    "unclosed arguments": ("act a(x=1\n", 1, 10, "unclosed argument list"),
    "second root": ("root a\n  seq\n    root b\n      act x()\n", 3, 5, "first line"),
    "two top-level nodes after root": ("root a\n  act x()\nact y()\n", 3, 1, "second top-level"),
    "decorator with two children": ("invert\n  act a()\n  act b()\n", 3, 3, "exactly one child"),
    "decorator without child": ("optional\n", 1, 1, "needs one child"),
    "composite without children": ("sel id=x\n", 1, 1, "at least one child"),
    "until outside repeat": ("seq\n  until: act a()\n", 2, 3, "directly under a repeat"),
    "two untils": ("repeat\n  act a()\n  until: act b()\n  until: act c()\n", 4, 3, "one 'until:'"),
    "max not whole": ("repeat max=2.5\n  act a()\n", 1, 12, "whole number"),
    "seconds not a number": ('timeout seconds="x"\n  act a()\n', 1, 17, "a number"),
    "attribute twice": ("seq id=a id=b\n  act x()\n", 1, 10, "given twice"),
    "argument twice": ("act a(x=1, x=2)\n", 1, 12, "given twice"),
    "single quotes": ("act a(x='y')\n", 1, 9, "single-quoted"),
    "guard without comparison": ("guard is_vip\n", 1, 13, "expected a comparison"),
    "check against a path": ("check a == b\n", 1, 12, "constant"),
    "tools not a list": ('react "q -> a" tools=t\n', 1, 22, "expected '['"),
    "instruction with nothing above": ("| hi\n", 1, 1, "no node above"),
    "missing store key": ("act a() ->\n", 1, 11, "blackboard key"),
    "dedent to no level": ("seq\n  seq\n      act a()\n    act b()\n", 4, 5, "siblings"),
    "dangling dot": ("act a(x=b.)\n", 1, 11, "field name"),
    "bad bracket": ("act a(x=b[c])\n", 1, 11, "index inside brackets"),
    "$ with no key": ("act a(x=b[$])\n", 1, 12, "expected a blackboard key after '$'"),
    "$ with no key in a guard": ("guard b[$ ] == 1\n", 1, 11, "blackboard key after '$'"),
    "| under until:": ("repeat\n  act a()\n  until:\n    | hi\n", 4, 5, "not under until:"),
    "root inside until:": ("repeat\n  act a()\n  until: root x\n", 3, 10, "first line"),
    "unterminated key": ('act a(x=b["c)\n', 1, 11, "unterminated key"),
    "duplicate id": ("seq id=a\n  act x() id=a\n", 2, 3, "already used on line 1"),
    "unknown signature type": ('predict "a -> b: integer"\n', 1, 9, "b: integer"),
    "react signature without ->": ('react "q" tools=[t]\n', 1, 7, "has no '->'"),
    "repeat max 0": ("repeat max=0\n  act a()\n", 1, 12, "> 0 and <= 1000"),
    "repeat max too big": ("repeat max=1001\n  act a()\n", 1, 12, "<= 1000"),
    "timeout seconds 0": ("timeout seconds=0\n  act a()\n", 1, 17, "a number > 0"),
    "max_steps 0": ('react "q -> a" tools=[t] max_steps=0\n', 1, 36, "whole number > 0"),
    "examples not a list": ('predict "a -> b" examples={}\n', 1, 27, "a JSON list"),
    # a rule of the node's kind (validate_ir's) is told at its line, not as an IR problem
    "react without tools": ('seq\n  react "q -> a"\n', 2, 3, "at least one tool (tools=[...])"),
    "react with no tool": ('react "q -> a" tools=[]\n', 1, 1, "at least one tool"),
    "examples not objects": ('predict "a -> b" examples=[1]\n', 1, 1, "{input, output} objects"),
    "input source not a path": (
        'predict "a -> b" input_sources={"a": "x..y"}\n',
        1,
        1,
        "input_sources['a']: malformed path 'x..y'",
    ),
    "empty id": ('seq\n  act a() id=""\n', 2, 3, "id must be a non-empty string"),
    "empty root name": ('root ""\n  act a()\n', 1, 1, "root needs a non-empty name"),
    # a stray word after the head names that word, not "the end of the line"
    "stray word after act": ("act f(a=b) -> x junk\n", 1, 17, "unexpected 'junk'"),
    "stray word after for_each": (
        "for_each x in user.orders junk\n  act f()\n",
        1,
        27,
        "unexpected 'junk'",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_text_raises_typed_error_with_position(case: str) -> None:
    text, line, col, fragment = CASES[case]
    with pytest.raises(BehaviorSyntaxError) as info:
        parse_behavior_ir(text)
    error = info.value
    assert (error.line, error.col) == (line, col), str(error)
    assert fragment in error.message
    assert error.hint, "every syntax error says how to fix the line"
    assert "write it as" in error.hint or not case.startswith(("react with", "empty id"))
    assert error.source_line == text.split("\n")[line - 1] or case == "empty text"


def test_a_byte_order_mark_opening_the_text_is_dropped() -> None:
    # an editor's "UTF-8 with BOM": the first word was read as '\ufeffroot', an unknown kind
    assert parse_behavior_ir("\ufeffroot x\n  act a()\n") == parse_behavior_ir(
        "root x\n  act a()\n"
    )


def test_error_message_points_at_the_column() -> None:
    with pytest.raises(BehaviorSyntaxError) as info:
        parse_behavior_ir("seq\n  act a(x=$i)\n")
    rendered = str(info.value).splitlines()
    assert rendered[0].startswith("line 2, col 11:")
    assert rendered[1].strip() == "act a(x=$i)"
    assert rendered[2].index("^") == rendered[1].index("$")
    assert rendered[3].lstrip().startswith("hint:")


def test_unknown_kind_suggests_the_closest() -> None:
    with pytest.raises(BehaviorSyntaxError) as info:
        parse_behavior_ir("sequ\n  act x()\n")
    assert "did you mean 'seq'" in info.value.hint
