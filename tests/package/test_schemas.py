"""Issue 26 items 1-2: schemas in a package are checked against a safe subset before use; a
package's model id is a hint, never a destination or a credential."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest
from jdsl.errors import PackageError
from jdsl.interaction.schemas import UnsafeSchemaError, check_schema, safe_validator
from jdsl.package import load_package
from jdsl.package.load import verify_package


def _tools(schema: object) -> dict:
    return {"tools": [{"logical_id": "demo.lookup", "input_schema": schema}]}


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        (
            {"type": "object", "properties": {"email": {"$ref": "http://127.0.0.1:9/x.json"}}},
            "outside",
        ),
        ({"$ref": "other.json#/a"}, "outside"),
        ({"$id": "http://evil.example/root", "type": "object"}, "outside"),
        ({"$ref": "#/$defs/missing"}, "points at nothing"),
        ({"type": "objekt"}, "unknown type"),
        ({"type": ["string", 5]}, "unknown type"),
        ({"properties": {"zip": {"type": "string", "pattern": "(a"}}}, "pattern"),
        ({"properties": {"zip": {"type": "string", "pattern": r"(a)\1"}}}, "pattern"),
        ({"properties": {"zip": {"type": "string", "pattern": "a" * 600}}}, "pattern"),
        ({"patternProperties": {"(?=x)": {}}}, "pattern"),
        ({"$schema": "http://evil.example/meta", "type": "object"}, "draft"),
        ({"type": "object", "minProperties": "two"}, "not a valid JSON Schema"),
        ({"patternProperties": {"a": {}}, "unevaluatedProperties": False}, "unevaluatedProperties"),
    ],
)
def test_an_unsafe_tool_schema_is_a_package_error(small, resigned, schema, says) -> None:
    with pytest.raises(UnsafeSchemaError, match=says):
        check_schema(schema)
    with pytest.raises(PackageError, match=says):
        verify_package(resigned(small, {"tools.json": _tools(schema)}))


def test_a_signature_output_schema_is_checked_too(small, resigned) -> None:
    record = small.json("signatures/answer_it.json")
    record["outputs"][0]["schema"] = {"$ref": "http://127.0.0.1:9/x.json"}
    with pytest.raises(PackageError, match="signatures/answer_it.json.*outside"):
        verify_package(resigned(small, {"signatures/answer_it.json": record}))


def test_local_refs_anchors_and_known_drafts_are_fine() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"zip": {"type": "string", "pattern": "^[0-9]{5}$", "$anchor": "zip"}},
        "type": "object",
        "properties": {"zip": {"$ref": "#/$defs/zip"}, "alt": {"$ref": "#zip"}},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": False,
    }
    check_schema(schema)
    validator = safe_validator(schema)
    assert validator.is_valid({"zip": "77209", "x-a": "b"})
    assert not validator.is_valid({"zip": "7720"})
    assert not validator.is_valid({"other": 1})
    assert not validator.is_valid({"x-a": 5})


def test_an_exponential_pattern_is_linear_under_the_safe_validator() -> None:
    validator = safe_validator({"type": "string", "pattern": "^(a+)+$"})
    started = time.perf_counter()
    assert not validator.is_valid("a" * 28 + "b")
    assert not safe_validator(
        {"patternProperties": {"^(a+)+$": {"type": "integer"}}, "additionalProperties": False}
    ).is_valid({"a" * 28 + "b": 1})
    assert time.perf_counter() - started < 0.5


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"type": "string"}')

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Handler", (_Recorder,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def test_a_remote_ref_is_refused_before_anything_is_fetched(
    small, resigned, listener, tmp_path
) -> None:
    from jdsl.package import export_jdsl

    url, hits = listener
    schema = {"type": "object", "properties": {"email": {"$ref": f"{url}/evil.json"}}}
    forged = resigned(small, {"tools.json": _tools(schema)})
    with pytest.raises(PackageError, match="outside"):
        load_package(export_jdsl(forged, tmp_path / "forged"))
    assert hits == []


def test_an_input_typed_through_a_local_ref_is_checked_with_its_definitions(
    small, resigned
) -> None:
    from jdsl.inputs import InputError, parse_inputs
    from jdsl.package import input_types

    schema = {
        "type": "object",
        "$defs": {"mail": {"type": "string", "pattern": "^[^@]+@[^@]+$"}},
        "properties": {"email": {"$ref": "#/$defs/mail"}},
    }
    forged = resigned(small, {"tools.json": _tools(schema)})
    verify_package(forged)
    types = input_types(forged)
    assert parse_inputs(["email=a@b.c"], types=types) == {"email": "a@b.c"}
    with pytest.raises(InputError, match="does not match"):
        parse_inputs(["email=nope"], types=types)


def test_a_large_schema_is_refused_at_once_and_deep_refs_are_found() -> None:
    wide = {
        "$defs": {f"d{i}": {"type": "string", "$anchor": f"a{i}"} for i in range(3_000)},
        "properties": {f"p{i}": {"$ref": f"#a{i}"} for i in range(3_000)},
    }
    started = time.perf_counter()
    with pytest.raises(UnsafeSchemaError, match="more than 1000 subschemas"):
        check_schema(wide)
    assert time.perf_counter() - started < 2.0
    check_schema(
        {"$defs": {"a": {"type": "string", "$anchor": "a"}}, "properties": {"p": {"$ref": "#a"}}}
    )
    deep: dict = {"$ref": "http://127.0.0.1:9/x.json"}
    for _ in range(200):
        deep = {"x-note": deep}
    with pytest.raises(UnsafeSchemaError, match="outside"):
        check_schema({"type": "object", "x-extra": deep})
