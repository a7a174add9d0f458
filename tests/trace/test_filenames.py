"""File names made from data stay one safe path component inside their directory."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from jdsl.errors import JdslError
from jdsl.trace.filenames import (
    MAX_NAME_BYTES,
    OutputPathError,
    file_names,
    path_inside,
    prefixed,
    safe_file_name,
)

HOSTILE = [
    "../../pwned", "..", ".", "", "/etc/passwd", "C:\\Windows\\x", "C:x", "a/../b", "\\\\host\\s",
    ".hidden", "a\0b", "a\nb", "x\u202egpj.exe", "nul", "CON.txt", "com1", "lpt9.jdsl",
    'a<b>c:d"e|f?g*h', "a" * 1000, "é" * 400, "trailing. ", " ../", "\ud800x",
]  # fmt: skip


def _safe(name: str) -> bool:
    stem = name.split(".", 1)[0].upper()
    return (
        bool(name)
        and len(name.encode("utf-8", "surrogatepass")) <= MAX_NAME_BYTES
        and not any(c in name for c in '/\\<>:"|?*\0')
        and ".." not in name
        and not name.startswith((".", " "))
        and not name.endswith((".", " "))
        and all(c.isprintable() for c in name)
        and stem not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT9"}
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_makes_a_safe_name(text: str, tmp_path: Path) -> None:
    name = safe_file_name(text, suffix=".jdsl")
    assert _safe(name) and name.endswith(".jdsl"), name
    assert path_inside(tmp_path, name).parent == tmp_path


@given(st.text(max_size=300))
def test_any_text_makes_a_safe_name(text: str) -> None:
    assert _safe(safe_file_name(text, suffix=".jdsl"))


def test_a_safe_name_is_kept_and_a_traversal_is_cut_to_its_last_words() -> None:
    assert safe_file_name("airline.cancel_reservation") == "airline.cancel_reservation"
    assert safe_file_name("task-12", suffix=".jdsl") == "task-12.jdsl"
    assert safe_file_name("../../pwned", suffix=".jdsl") == "pwned.jdsl"
    assert safe_file_name("..") == "unnamed"


def test_long_names_stay_apart() -> None:
    a, b = safe_file_name("x" * 300 + "a"), safe_file_name("x" * 300 + "b")
    assert a != b and len(a.encode()) <= MAX_NAME_BYTES


def test_colliding_names_are_told_apart_whatever_their_order() -> None:
    texts = ["a/b", "a_b", "A_B", "a:b"]
    names = file_names(texts, suffix=".jdsl")
    assert names == file_names(reversed(texts), suffix=".jdsl")
    assert len({n.casefold() for n in names.values()}) == len(texts)
    assert names["A_B"] == "A_B.jdsl"  # first in sorted order keeps its name
    assert all(_safe(n) for n in names.values())


@pytest.mark.parametrize("name", ["../x", "/etc/x", "a/b", "..", ".", "", "a\\b", "C:x", "a\0b"])
def test_path_inside_refuses_what_leaves_the_directory(name: str, tmp_path: Path) -> None:
    with pytest.raises(OutputPathError) as caught:
        path_inside(tmp_path, name)
    assert isinstance(caught.value, JdslError | ValueError)
    assert str(tmp_path) in str(caught.value)
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.name, again.directory) == (name, str(tmp_path))


def test_a_link_named_like_the_file_is_inside(tmp_path: Path) -> None:
    (tmp_path / "x.jdsl").symlink_to("/etc/passwd")  # a write replaces the link itself
    assert path_inside(tmp_path, "x.jdsl") == tmp_path / "x.jdsl"


@given(st.text(min_size=1, max_size=200), st.text(min_size=1, max_size=60))
def test_a_prefixed_name_keeps_its_name_whole_when_cut(prefix: str, name: str) -> None:
    """cli11: ``NAME-FAMILY`` cut as one name kept NAME and lost FAMILY; the prefix is cut
    (a name of up to 60 bytes, as families are, is kept whole)."""
    assume(len(safe_file_name(name).encode()) <= 60 and safe_file_name(prefix) != "unnamed")
    file = safe_file_name(prefixed(prefix, name, suffix=".jdsl"), suffix=".jdsl")
    assert len(file.encode()) <= MAX_NAME_BYTES
    family = safe_file_name(f"x-{name}").removeprefix("x-")  # as cleaned after a prefix
    if family not in ("", "x"):
        assert family in file, (file, family)


def test_a_short_prefix_is_kept_as_it_is_and_a_long_one_is_cut_with_its_hash() -> None:
    assert prefixed("shop", "airline.cancel", suffix=".jdsl") == "shop-airline.cancel"
    assert prefixed(None, "airline.cancel") == prefixed("", "airline.cancel") == "airline.cancel"
    long = prefixed("n" * 115, "seq-lookup", suffix=".jdsl")
    assert long.startswith("n" * 90) and long.endswith("-seq-lookup")
    assert long != prefixed("n" * 114 + "m", "seq-lookup", suffix=".jdsl")
    assert safe_file_name(long, suffix=".jdsl") == f"{long}.jdsl"
