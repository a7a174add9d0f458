"""Fuzz target: the JSONL trace reader.

TODO(#14): the trace reader and sinks are being rewritten under issue #14 (torn UTF-8,
appending after a torn file, deeply nested lines), so this target is a marked stub here; #14
fills it in with the reader it ships (only TraceFormatError escapes ``read_events(strict=
False)``; an append after any torn prefix leaves a parseable file with an intact chain).
"""

from __future__ import annotations

import pytest


@pytest.mark.skip(reason="TODO(#14): the trace reader target lands with the rewritten reader")
def test_trace_reader_raises_only_trace_format_errors() -> None:
    raise AssertionError("see the module docstring")
