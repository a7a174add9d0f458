"""Fuzz target: package schemas (issue #26). A re-signed package whose tool contract has any
argument schema (unknown types, bad or catastrophic regexes, remote or broken ``$ref``,
hostile JSON) is loaded, its input types read and ``--input`` values checked against them as
``jdsl package run`` does: only ``PackageError`` / ``InputError`` / ``UnsafeSchemaError``
escape, and nothing is fetched."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.dsl import act, ref, root
from jdsl.errors import InputError, JdslError, PackageError
from jdsl.inputs import parse_inputs
from jdsl.interaction.schemas import UnsafeSchemaError
from jdsl.package import BehaviorPackage, input_types, load_package, package_from_root, zip_bytes
from jdsl.package.format import digest, dump_json, manifest_digest
from strategies import json_values


def lookup(email: str, count: int) -> dict:
    """Find a customer."""
    return {"email": email}


PACKAGE = package_from_root(
    root("schemas").do(act(lookup, email=ref("email"), count=ref("count")) >> "customer"),
    tool_contracts={"lookup": "demo.lookup"},
)
hostile_schemas = st.one_of(
    json_values,
    st.sampled_from([
        {"type": "nope"}, {"type": ["string", 5]}, {"pattern": "("}, {"pattern": "^(a+)+$"},
        {"pattern": "(?<=a)b"}, {"pattern": "\\1"}, {"$ref": "http://127.0.0.1:9/x.json"},
        {"$ref": "#/nope"}, {"$ref": "#"}, {"$ref": 5}, {"format": "email"}, {"enum": []},
        {"minLength": -1}, {"maxLength": 10**400}, {"type": "integer", "minimum": "a"},
        {"allOf": [{"$ref": "#/definitions/x"}], "definitions": {"x": {"$ref": "#/definitions/x"}}},
        {"patternProperties": {"(": {}}}, {"$schema": "http://example.com/custom"},
    ]),
)  # fmt: skip
values = st.one_of(
    st.text(max_size=30), st.sampled_from(["a" * 28 + "!", "3", "-1", "1e400", "null"])
)


def _resign(files: dict[str, bytes]) -> dict[str, bytes]:
    manifest = json.loads(files["manifest.json"])
    manifest["files"] = {n: digest(d) for n, d in sorted(files.items()) if n != "manifest.json"}
    manifest["manifest_digest"] = manifest_digest(manifest)
    return {**files, "manifest.json": dump_json(manifest)}


@FUZZ
@given(
    st.dictionaries(st.sampled_from(["email", "count"]), hostile_schemas, max_size=2),
    st.lists(values, max_size=2),
)
def test_hostile_argument_schemas_give_only_typed_errors(
    properties: dict, given_values: list
) -> None:
    tools = json.loads(PACKAGE.files["tools.json"])
    tools["tools"][0]["input_schema"] = {"type": "object", "properties": properties}
    try:
        files = _resign({**PACKAGE.files, "tools.json": dump_json(tools)})
    except (ValueError, TypeError, RecursionError):  # a value JSON cannot hold: nothing to forge
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jdsl"
        path.write_bytes(zip_bytes(BehaviorPackage(files)))
        try:
            package = load_package(path)
            pairs = [f"{k}={v}" for k, v in zip(["email", "count"], given_values, strict=False)]
            parse_inputs(pairs, types=input_types(package))
        except JdslError as exc:
            assert isinstance(exc, PackageError | InputError | UnsafeSchemaError), repr(exc)
