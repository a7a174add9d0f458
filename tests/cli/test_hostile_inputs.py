"""Hostile command-line input (issue #26): run()'s own parameter names, deep JSON and bad
endpoints are usage errors or error lines, never tracebacks."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from jdsl.cli import app
from jdsl.inputs import RUN_PARAMETERS
from jdsl.tree import Root
from typer.testing import CliRunner

BEHAVIOR = str(Path(__file__).parents[2] / "core" / "jdsl" / "examples" / "retail_lookup.behavior")
RUNNER = CliRunner()


def test_run_parameters_are_every_keyword_parameter_of_run() -> None:
    keyword = {
        n for n, p in inspect.signature(Root.run).parameters.items() if p.kind is p.KEYWORD_ONLY
    }
    assert RUN_PARAMETERS == keyword and {"trace_sink", "model", "tools"} <= RUN_PARAMETERS


@pytest.mark.parametrize("name", sorted(RUN_PARAMETERS))
def test_an_input_named_like_a_run_parameter_is_a_usage_error(name: str) -> None:
    result = RUNNER.invoke(app, ["run", BEHAVIOR, "--reply", "x", "--input", f"{name}=x"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "is a parameter of run() itself" in result.output


@pytest.mark.parametrize(
    "value",
    ["[" * 100_000 + "]" * 100_000, "[" * 300 + "]" * 300, "9" * 5_000, "NaN", "[Infinity]"],
    ids=["100,000 deep", "300 deep", "5,000 digits", "NaN", "Infinity"],
)
def test_json_no_run_can_carry_is_a_usage_error(value: str) -> None:
    result = RUNNER.invoke(app, ["run", BEHAVIOR, "--reply", "x", "--input", f"request:={value}"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("endpoint", ["http://[::1", "http://h:99999999", "http://[zz]:1/x"])
def test_an_endpoint_that_is_not_a_url_is_an_error_line(endpoint: str, tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    assert RUNNER.invoke(
        app, ["run", BEHAVIOR, "--reply", "x", "--trace", str(trace)]
    ).exit_code in (0, 1)
    result = RUNNER.invoke(app, ["export", "otel", str(trace), "--endpoint", endpoint])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "is not a URL" in result.output or "is not an http(s) URL" in result.output


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"allOf": [{"$ref": "#/definitions/x"}], "definitions": {"x": {"$ref": "#/definitions/x"}}},
    ],
    ids=["#", "a definition that is itself"],
)
def test_a_schema_that_refers_to_itself_is_an_input_error(schema: dict) -> None:
    """Found by the package-schema fuzz target at 10,000 examples (a RecursionError)."""
    from jdsl.errors import InputError
    from jdsl.inputs import parse_inputs

    with pytest.raises(InputError, match="refers to itself"):
        parse_inputs(["email=x"], types={"email": [("f.email", schema)]})


def test_deep_json_for_a_typed_input_is_an_input_error() -> None:
    """Found by the command-line inputs fuzz target at 10,000 examples (a RecursionError)."""
    from jdsl.errors import InputError
    from jdsl.inputs import parse_inputs

    with pytest.raises(InputError):
        parse_inputs(["n=" + "[" * 2000 + "]" * 2000], types={"n": [("f.n", {"type": "integer"})]})
