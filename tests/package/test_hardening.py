"""Issue #17: forged package content, escaping member names, linked folders and damaged
archives are PackageErrors; nothing is written outside an export's folder."""

from __future__ import annotations

import io
import json
import os
import random
import struct
import time
import zipfile

import pytest
from jdsl.errors import JdslError, PackageError
from jdsl.package import BehaviorPackage, export_dir, export_jdsl, load_package, zip_bytes
from jdsl.package.load import verify_package


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"tools.json": []}, "tools.json"),
        ({"tools.json": {"tools": 5}}, "tools.json"),
        ({"tools.json": {"tools": [{"description": "no id"}]}}, "logical_id"),
        ({"tools.json": {"tools": [{"logical_id": "demo.lookup", "input_schema": 5}]}}, "tools"),
        ({"behavior.json": 5}, "behavior.json"),
        ({"behavior.json": []}, "behavior.json"),
        ({"signatures/answer_it.json": {"signature": "a -> b"}}, "'id'"),
        ({"signatures/answer_it.json": ["not", "an", "object"]}, "signatures/answer_it.json"),
        ({"manifest": {"required_capabilities": 5}}, "required_capabilities"),
        ({"manifest": {"required_capabilities": [5]}}, "required_capabilities"),
    ],
)
def test_resigned_bad_content_is_a_package_error(small, resigned, tmp_path, changes, says):
    forged = resigned(small, changes)
    with pytest.raises(PackageError, match=says):
        verify_package(forged)
    with pytest.raises(PackageError, match=says):
        load_package(export_jdsl(forged, tmp_path / "forged"))


@pytest.mark.parametrize("name", ["../escaped.txt", "ABSOLUTE", "a/../../up.txt", "c:\\x"])
def test_export_refuses_member_names_that_leave_the_folder(small, tmp_path, name):
    absolute = tmp_path.parent / f"{tmp_path.name}-abs.txt"
    name = str(absolute) if name == "ABSOLUTE" else name
    files = {**small.files, name: b"pwned"}
    forged = BehaviorPackage(files)
    target = tmp_path / "out" / "pkg"
    with pytest.raises(PackageError, match="refusing member") as info:
        export_dir(forged, target)
    assert info.value.path == name
    with pytest.raises(PackageError, match="refusing member"):
        export_jdsl(forged, tmp_path / "out" / "pkg")
    with pytest.raises(PackageError, match="refusing member"):
        verify_package(forged)
    assert not (tmp_path / "out" / "escaped.txt").exists()
    assert not absolute.exists()
    assert list(tmp_path.rglob("*")) == []  # checked before anything is written


def test_one_member_name_check_for_load_and_export():
    from jdsl.package.format import check_member_name

    for good in ("behavior.json", "signatures/a.json", "tests/replay.jsonl"):
        assert check_member_name(good) == good
    for bad in ("", "a\0b", "..", "../x", "/x", "x\\y", "C:x", 5, None):
        with pytest.raises(PackageError):
            check_member_name(bad)


def test_a_linked_signatures_folder_is_refused(small, tmp_path):
    target = export_dir(small, tmp_path / "pkg")
    outside = tmp_path / "elsewhere"
    (target / "signatures").rename(outside)
    os.symlink(outside, target / "signatures")
    with pytest.raises(PackageError, match="link") as info:
        load_package(target)
    assert info.value.path == "signatures/answer_it.json"


def _with_method(data: bytes, method: int) -> bytes:
    """The archive with every local and central header claiming compression ``method``."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        start = out.find(signature)
        while start >= 0:
            out[start + offset : start + offset + 2] = struct.pack("<H", method)
            start = out.find(signature, start + 4)
    return bytes(out)


@pytest.mark.parametrize("method", [99, 14, 12])  # unknown, LZMA header damage, bzip2 damage
def test_an_archive_with_a_bad_compression_method_is_a_package_error(small, tmp_path, method):
    path = tmp_path / "bad.jdsl"
    path.write_bytes(_with_method(zip_bytes(small), method))
    with pytest.raises(PackageError, match="re-export"):
        load_package(path)


def test_an_encrypted_member_is_a_package_error(small, tmp_path):
    data = bytearray(zip_bytes(small))
    start = data.find(b"PK\x01\x02")
    while start >= 0:  # set the "encrypted" flag in every central header
        data[start + 8] |= 0x01
        start = data.find(b"PK\x01\x02", start + 4)
    path = tmp_path / "enc.jdsl"
    path.write_bytes(bytes(data))
    with pytest.raises(PackageError):
        load_package(path)


def test_byte_flipped_archives_give_only_package_errors(small, tmp_path):
    data = zip_bytes(small)
    rng = random.Random(17)
    path = tmp_path / "flipped.jdsl"
    for _ in range(300):
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        path.write_bytes(bytes(flipped))
        try:
            load_package(path)
        except JdslError as exc:
            assert isinstance(exc, PackageError), repr(exc)


def test_a_resigned_package_with_a_huge_signature_loads_or_fails_fast(small, resigned, tmp_path):
    names = ", ".join(f"f{i}" for i in range(50_000))
    record = json.loads(small.files["signatures/answer_it.json"])
    huge = f"{names} -> answer"
    behavior = json.loads(small.files["behavior.json"])
    behavior["root"]["child"]["children"][1]["signature"] = huge
    forged = resigned(small, {"signatures/answer_it.json": {**record, "signature": huge},
                              "behavior.json": behavior})  # fmt: skip
    started = time.perf_counter()
    load_package(export_jdsl(forged, tmp_path / "huge"))
    assert time.perf_counter() - started < 10  # was > 30 s: Signature.parse was quadratic


def test_the_archive_has_no_member_outside_after_a_good_export(small, tmp_path):
    from jdsl.package.format import check_member_name

    with zipfile.ZipFile(io.BytesIO(zip_bytes(small))) as archive:
        assert all(check_member_name(n) == n for n in archive.namelist())
