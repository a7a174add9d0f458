"""The curated public surface of jdsl.trace."""

from __future__ import annotations

import inspect

import jdsl.trace as trace


def test_every_public_name_exists_and_public_callables_are_documented() -> None:
    assert sorted(trace.__all__) == sorted(set(trace.__all__))
    for name in trace.__all__:
        value = getattr(trace, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"jdsl.trace.{name} has no docstring"


def test_the_runtime_contract_names_are_exported() -> None:
    for name in ("TraceEvent", "ListTraceSink", "JsonlTraceSink", "jsonable", "read_events",
                 "verify_chain", "segment_episodes", "Trace", "Redactor", "BlobStore"):  # fmt: skip
        assert name in trace.__all__
