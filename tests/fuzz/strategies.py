"""Hypothesis strategies for hostile input: mutated behavior text, forged IR, odd paths, JSON
with extreme numbers and deep nesting."""

from __future__ import annotations

import copy
import math
from typing import Any

from hypothesis import strategies as st

SEED_TEXTS = (
    "act lookup(email=email) -> customer",
    'root demo model=m\n  seq\n    act a(x=1, y="s") -> out\n    guard out.ok == true\n',
    'sel\n  check done == true\n  seq id=s\n    predict "request, orders -> idx: int"\n'
    "      | Pick one.\n    act get(order=orders[$idx].id) -> order\n",
    "repeat max=3\n  act step() -> n\n  until: guard n >= 2\n",
    'timeout seconds=2.5\n  react "q -> a" tools=[t1, t2] max_steps=4\n',
    'optional\n  invert\n    guard not (a.b[0] in [1, 2] or exists(c["k"]))\n',
    "oneshot\n  guard_call ready(x=y)\n",
    "for_each order_id in user.orders[$i].ids collect=order -> orders max=5 id=loop\n"
    "  act get_order(id=order_id) -> order\n",
)
TOKENS = (
    "seq", "sel", "act", "guard", "check", "repeat", "timeout", "predict", "react", "not",
    "and", "or", "in", "exists", "until:", "root", "|", "(", ")", "[", "]", "{", "}", "$", ".",
    ",", "=", "==", "!=", "<=", "->", '"', "'", "\\", "\n", "  ", "\t", "#", "max=", "seconds=",
    "id=", "tools=[", "9" * 40, "9" * 5000, "1e999", "-Infinity", "NaN", "-0", "\x00", "é", "\r",
    "for_each", " in ", "collect=", "for_each a in b\n",
)  # fmt: skip


def _mutate(seed: str, edits: list[tuple[int, int, str]]) -> str:
    text = seed
    for position, cut, token in edits:
        at = position % (len(text) + 1)
        text = text[:at] + token + text[at + cut % 4 :]
    return text


behavior_texts = st.one_of(
    st.builds(
        _mutate,
        st.sampled_from(SEED_TEXTS),
        st.lists(
            st.tuples(st.integers(0, 10**4), st.integers(0, 3), st.sampled_from(TOKENS)),
            max_size=6,
        ),
    ),
    st.text(max_size=80),
    st.integers(1, 400).map(lambda n: "  " * 0 + "".join("  " * i + "seq\n" for i in range(n))),
    st.integers(1, 3000).map(lambda n: "guard " + "(" * n + "a == 1" + ")" * n),
    st.integers(1, 3000).map(lambda n: "guard " + "not " * n + "a"),
)

numbers = st.one_of(
    st.integers(),
    st.integers(min_value=0, max_value=6000).map(lambda n: 10**n - 1),  # up to 6000 digits
    st.floats(),
    st.sampled_from([math.inf, -math.inf, math.nan, 1e308, -0.0, 10**400]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=20))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def deep(levels: int, kind: str) -> Any:
    value: Any = {"exists": "a"} if kind == "not" else {"kind": "action", "tool": "t"}
    for _ in range(levels):
        value = {"not": value} if kind == "not" else {"kind": "invert", "child": value}
    return value


def _positions(value: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    stack = [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in list(items):
            out.append((node, key))
            if isinstance(item, dict | list):
                stack.append(item)
    return out


def _forge(document: dict, edits: list[tuple[int, Any]]) -> dict:
    forged = copy.deepcopy(document)
    for index, value in edits:
        spots = _positions(forged, [])
        if not spots:
            break
        container, key = spots[index % len(spots)]
        container[key] = value
    return forged


replacement = st.one_of(
    json_values,
    st.sampled_from(["action", "root", "guard", "timeout", "", "a[" + "9" * 5000 + "]"]),
    st.integers(0, 3000).map(lambda n: deep(n, "not")),
    st.integers(0, 3000).map(lambda n: deep(n, "node")),
    st.builds(lambda: {"ref": ["a"]}),  # fresh objects: a shared one could be nested in itself
    st.builds(lambda: ["action"]),
)


def ir_documents(documents: list[dict]) -> st.SearchStrategy[dict]:
    """Valid IR documents with 0-3 values replaced by hostile ones."""
    return st.builds(
        _forge,
        st.sampled_from(documents),
        st.lists(st.tuples(st.integers(0, 10**4), replacement), max_size=3),
    )


path_texts = st.one_of(
    st.text(alphabet="ab_$.[]\"' -09\\*", max_size=24),
    st.builds(lambda n: f"a[{'9' * n}]", st.integers(0, 6000)),
    st.sampled_from(["g.gi_frame.f_globals", "a.__class__", "a.model_dump", "x[$y].z"]),
)
blackboards = st.dictionaries(
    st.sampled_from(["a", "b", "x", "y", "g", "a.b"]), json_values, max_size=4
)
