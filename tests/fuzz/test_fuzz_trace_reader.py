"""Fuzz target: the JSONL trace reader (``read_events``, ``iter_episodes``) and appending to a
damaged file with ``JsonlTraceSink``.

Properties, over a real recorded trace cut, spliced and byte-flipped at random points and over
random junk lines:

- only :class:`~jdsl.trace.TraceFormatError` (a ``JdslError``) escapes a strict read;
- a lenient read (``strict=False``) never raises, and both readers agree on the episodes;
- a sink appending to any damaged prefix leaves a file whose new episode reads back with an
  intact hash chain.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.dsl import act, ref, root, seq
from jdsl.trace import JsonlTraceSink, TraceFormatError, iter_episodes, read_events


def lookup(email: str) -> dict:
    """Find a customer."""
    return {"email": email, "orders": [{"id": "#W1", "status": "pending"}], "note": "é✓"}


def cancel(order_id: str) -> str:
    """Cancel an order."""
    return "cancelled " + order_id


TREE = root("fuzz_reader").do(seq(
    act(lookup, email=ref("email")) >> "customer",
    act(cancel, order_id=ref("customer.orders[0].id")) >> "receipt",
))  # fmt: skip


def _recorded() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        with JsonlTraceSink(path) as sink:
            for n in range(2):
                TREE.run(trace_sink=sink, episode_id=f"ep{n}", email=f"c{n}@x.com")
        return path.read_bytes()


RECORDED = _recorded()

junk_line = st.one_of(
    st.binary(max_size=60),
    st.just(b"[" * 5000),
    st.just(b'{"a":' * 3000),
    st.just(b'{"kind": 5}'),
    st.just(b"null"),
    st.text(max_size=40).map(str.encode),
)


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """The recorded trace with a few random cuts, flips and inserted junk lines."""
    data = bytearray(RECORDED)
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["cut", "flip", "insert"]))
        if action == "cut":
            del data[at : at + draw(st.integers(1, 200))]
        elif action == "flip" and at < len(data):
            data[at] ^= draw(st.integers(1, 255))
        else:
            data[at:at] = b"\n" + draw(junk_line) + b"\n"
    if draw(st.booleans()):  # torn at the end, often inside a multi-byte character
        data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


def _episodes(path: Path, strict: bool) -> list[tuple[str, int]]:
    return [(e.episode_id, len(e.events)) for e in read_events(path, strict=strict).episodes]


@FUZZ
@given(data=damaged())
def test_only_trace_format_errors_escape_and_lenient_reads_never_raise(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(data)
        try:
            _episodes(path, strict=True)
        except TraceFormatError:
            pass
        lenient = _episodes(path, strict=False)
        streamed = [(e.episode_id, len(e.events)) for e in iter_episodes(path, strict=False)]
        assert streamed == lenient


@FUZZ
@given(data=damaged())
def test_a_sink_appends_a_whole_episode_after_any_damaged_prefix(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(data)
        with JsonlTraceSink(path) as sink:
            TREE.run(trace_sink=sink, episode_id="appended", email="new@x.com")
        episodes = {e.episode_id: e for e in read_events(path, strict=False).episodes}
        appended = [e for key, e in episodes.items() if key.split("#")[0] == "appended"]
        assert appended, "the appended episode is not in the file"
        assert appended[-1].verify() == [], appended[-1].verify()
