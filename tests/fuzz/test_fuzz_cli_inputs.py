"""Fuzz targets: command-line and notebook inputs (issue #26). Any ``--input`` pairs, read as
the commands read them (with and without recorded types), and any magic line: only
``InputError`` / ``UsageError``, and the magic line's words are ``shlex.split``'s."""

from __future__ import annotations

import shlex

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from IPython.core.error import UsageError
from jdsl.errors import InputError, JdslError
from jdsl.inputs import RUN_PARAMETERS, parse_inputs
from jdsl.tree import Action, Root
from jdsl_nb.magic_inputs import split_pairs, typed_inputs
from jdsl_nb.shellwords import split_words

keys = st.one_of(
    st.sampled_from(["a", "email", "n", "", " ", "a:", *sorted(RUN_PARAMETERS)]),
    st.text(max_size=6),
)
values = st.one_of(
    st.text(max_size=20),
    st.sampled_from(
        ["NaN", "Infinity", "-1e400", "1e400", "true", "null", '"\ud800"', "[" * 2000, "9" * 5000]
    ),
    st.integers(0, 5000).map(lambda n: "[" * n + "]" * n),
    st.integers(0, 500).map(lambda n: '{"a":' * n + "1" + "}" * n),
)
pairs = st.lists(st.tuples(keys, st.sampled_from(["=", ":="]), values).map("".join), max_size=4)
schemas = st.sampled_from(
    [{"type": t} for t in ("string", "integer", "number", "boolean", "array", "object", "null")]
    + [{"type": ["string", "null"]}, {"enum": [1, "a"]}, {"type": "string", "maxLength": 3}]
)
types = st.dictionaries(
    st.sampled_from(["a", "email", "n"]),
    st.lists(st.tuples(st.just("f.x"), schemas), max_size=2),
    max_size=3,
)
TREE = Root(name="r", child=Action(tool="t", args={"a": {"ref": "a"}, "n": {"ref": "n"}}))


@FUZZ
@given(pairs, types)
def test_command_line_inputs_give_only_input_errors(items: list[str], recorded: dict) -> None:
    try:
        found = parse_inputs(items, types=recorded)
    except JdslError as exc:
        assert isinstance(exc, InputError), repr(exc)
        return
    assert not set(found) & RUN_PARAMETERS


@FUZZ
@given(pairs)
def test_notebook_inputs_give_only_usage_errors(items: list[str]) -> None:
    try:
        typed_inputs(split_pairs(items), TREE, None)
    except UsageError:
        pass


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("ab '\"\\#$\t\n=é-")), max_size=40))
def test_magic_lines_split_as_shlex_does(line: str) -> None:
    def outcome(split):  # type: ignore[no-untyped-def]
        try:
            return "words", split(line)
        except ValueError as exc:
            return "error", str(exc)

    assert outcome(split_words) == outcome(shlex.split)
