"""The magic line's words (issue #26): what ``shlex.split`` gives, in linear time."""

from __future__ import annotations

import shlex
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError
from jdsl.tree import Action, Root
from jdsl_nb.magic_inputs import split_pairs, typed_inputs
from jdsl_nb.shellwords import split_words


def _outcome(split: Callable[[str], list[str]], line: str) -> tuple[str, object]:
    try:
        return "words", split(line)
    except ValueError as exc:
        return "error", str(exc)


@settings(max_examples=2_000, deadline=None, database=None)
@given(st.text(alphabet=st.sampled_from(list("ab '\"\\#$\t\n=é")), max_size=24))
def test_split_words_is_shlex_split(line: str) -> None:
    assert _outcome(split_words, line) == _outcome(shlex.split, line)


def test_a_400k_character_magic_line_splits_in_linear_time(growth: Callable[..., float]) -> None:
    lines: dict[int, str] = {}

    def split(n: int) -> None:
        line = lines.setdefault(n, '--input "x=' + "a" * n + '" --input y=b')
        for _ in range(20):  # a split takes about a millisecond: time enough of them
            split_words(line)

    assert growth(split, 100_000) < 10  # shlex.split: 100k 1.1 s, 400k 12 s (16x)


@pytest.mark.parametrize("pair", ["trace_sink=x", "model=m", "tools=t"])
def test_a_magic_input_named_like_a_run_parameter_is_a_usage_error(pair: str) -> None:
    with pytest.raises(UsageError, match="parameter of run"):
        split_pairs([pair])


@pytest.mark.parametrize(
    "raw", ["[" * 100_000 + "]" * 100_000, "9" * 5_000], ids=["deep", "digits"]
)
def test_deep_or_huge_json_in_a_magic_input_is_a_usage_error(raw: str) -> None:
    tree = Root(name="r", child=Action(tool="t", args={"x": {"ref": "x"}}))
    with pytest.raises(UsageError):
        typed_inputs([f"x:={raw}"], tree, None)
