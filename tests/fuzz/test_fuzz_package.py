"""Fuzz targets: the package loader (damaged archives, forged and re-signed content) and
export (member names never write outside the target folder)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.errors import JdslError, PackageError
from jdsl.package import BehaviorPackage, export_dir, load_package, package_from_root, zip_bytes
from jdsl.package.format import digest, dump_json, manifest_digest
from jdsl.package.load import verify_package
from strategies import json_values


def lookup(email: str) -> dict:
    """Find a customer."""
    return {"email": email}


PACKAGE = package_from_root(
    root("small", model="m").do(
        seq(
            act(lookup, email=ref("email")) >> "customer",
            predict("request, customer -> answer", id="answer_it"),
        )
    ),  # fmt: skip
    tool_contracts={"lookup": "demo.lookup"},
)
ARCHIVE = zip_bytes(PACKAGE)
FILES = sorted(PACKAGE.files)


def _resign(files: dict[str, bytes], manifest_changes: dict) -> dict[str, bytes]:
    manifest = {**json.loads(files["manifest.json"]), **manifest_changes}
    manifest["files"] = {n: digest(d) for n, d in sorted(files.items()) if n != "manifest.json"}
    manifest["manifest_digest"] = manifest_digest(manifest)
    return {**files, "manifest.json": dump_json(manifest)}


def _only_package_errors(load: object) -> None:
    try:
        load()  # type: ignore[operator]
    except JdslError as exc:
        assert isinstance(exc, PackageError), repr(exc)


@FUZZ
@given(
    st.lists(st.tuples(st.integers(0, len(ARCHIVE) - 1), st.integers(0, 255)), max_size=6),
    st.integers(0, len(ARCHIVE)),
)
def test_damaged_archives_give_only_package_errors(flips: list, keep: int) -> None:
    data = bytearray(ARCHIVE[: max(keep, 1)] if keep < 64 else ARCHIVE)
    for at, value in flips:
        data[at % len(data)] = value
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jdsl"
        path.write_bytes(bytes(data))
        _only_package_errors(lambda: load_package(path))


@FUZZ
@given(
    st.sampled_from([*FILES, "extra.json"]),
    json_values,
    st.dictionaries(
        st.sampled_from(["required_capabilities", "files", "format", "name", "source"]),
        json_values,
        max_size=2,
    ),
)
def test_forged_resigned_content_gives_only_package_errors(name, value, manifest) -> None:
    files = dict(PACKAGE.files)
    if name != "manifest.json":
        try:
            files[name] = dump_json(value)
        except (ValueError, RecursionError):  # a value JSON cannot hold: nothing to forge
            return
    try:
        forged = _resign(files, manifest)
    except (ValueError, TypeError, RecursionError):
        return
    _only_package_errors(lambda: verify_package(BehaviorPackage(forged)))


segment = st.sampled_from(["..", ".", "", "a", "signatures", "x.json", "..\\", "C:", "\0", "~"])
member_names = st.lists(segment, min_size=1, max_size=5).map("/".join)


@FUZZ
@given(st.dictionaries(member_names, st.binary(max_size=4), max_size=4), st.booleans())
def test_export_never_writes_outside_its_folder(extra: dict, absolute: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        target = base / "out" / "pkg"
        names = {(str(base / "abs") + "/" + k if absolute else k): v for k, v in extra.items()}
        package = BehaviorPackage({**PACKAGE.files, **names})
        try:
            export_dir(package, target)
        except PackageError:
            pass
        written = [p for p in base.rglob("*") if p.is_file()]
        assert all(target in p.parents for p in written), written
