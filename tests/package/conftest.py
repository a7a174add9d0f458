"""Fixtures for package tests: a small authored package and a re-signer for forged content."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.package import BehaviorPackage, package_from_root
from jdsl.package.format import digest, dump_json, manifest_digest


def lookup(email: str) -> dict:
    """Find a customer."""
    return {"id": "c1", "email": email}


def small_package() -> BehaviorPackage:
    """A package with one action, one predict (so one signature record) and one contract."""
    tree = root("small", model="m").do(seq(
        act(lookup, email=ref("email")) >> "customer",
        predict("request, customer -> answer", id="answer_it"),
    ))  # fmt: skip
    return package_from_root(tree, tool_contracts={"lookup": "demo.lookup"})


def resign(files: Mapping[str, bytes], changes: Mapping[str, Any]) -> dict[str, bytes]:
    """``files`` with ``changes`` applied (bytes, or a value dumped as JSON; None removes the
    file) and the manifest re-signed: every digest recomputed, as an attacker who edits a
    package and fixes its digests would. ``changes["manifest"]`` updates manifest fields."""
    out = dict(files)
    manifest = json.loads(out["manifest.json"])
    manifest.update(changes.get("manifest", {}))
    for name, value in changes.items():
        if name == "manifest":
            continue
        if value is None:
            out.pop(name, None)
        else:
            out[name] = value if isinstance(value, bytes) else dump_json(value)
    manifest["files"] = {n: digest(d) for n, d in sorted(out.items()) if n != "manifest.json"}
    manifest["manifest_digest"] = manifest_digest(manifest)
    out["manifest.json"] = dump_json(manifest)
    return out


@pytest.fixture
def small() -> BehaviorPackage:
    return small_package()


@pytest.fixture
def resigned() -> Callable[..., BehaviorPackage]:
    """resigned(package, {path: new content}) -> a BehaviorPackage whose digests all match."""

    def make(package: BehaviorPackage, changes: Mapping[str, Any]) -> BehaviorPackage:
        return BehaviorPackage(resign(package.files, changes))

    return make
