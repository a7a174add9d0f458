"""Which run inputs a package reads whole, and with what JSON Schema.

A host (the ``jdsl package run`` command, a notebook) uses this to turn ``KEY=VALUE`` text
into the value the package expects: ``zip=77209`` stays a string when ``find_user_id_by_name_zip``
declares ``zip`` a string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from jdsl.inputs import InputUse, signature_reads
from jdsl.ir.walk import walk_ir
from jdsl.package.bundle import BehaviorPackage

__all__ = ["InputUse", "input_types"]


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def input_types(package: BehaviorPackage) -> dict[str, list[InputUse]]:
    """``{blackboard key: [(where, JSON Schema)]}``: where the package reads a key whole
    with a recorded type.

    Sources: an action argument ``{"ref": key}`` has the type its tool contract gives the
    argument (``tools.json``); a model leaf's signature input field typed other than ``str``
    has that type (an untyped field reads as ``str``).
    """
    uses: dict[str, list[InputUse]] = {}
    for node in walk_ir(package.ir["root"]):
        for key, where, schema in _typed_reads(node, package):
            uses.setdefault(key, []).append((where, schema))
    return uses


def _typed_reads(
    node: Mapping[str, Any], package: BehaviorPackage
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    kind = node.get("kind")
    if kind == "action":
        tool = str(node.get("tool"))
        whole = package.capability(tool).input_schema
        properties = whole.get("properties") or {}
        for arg, spec in (node.get("args") or {}).items():
            key = spec.get("ref") if isinstance(spec, Mapping) else None
            schema = properties.get(arg)
            if isinstance(key, str) and _KEY.fullmatch(key) and isinstance(schema, dict):
                yield key, f"{tool}.{arg}", _with_definitions(schema, whole)
    else:
        yield from signature_reads(node)


def _with_definitions(schema: dict[str, Any], whole: Mapping[str, Any]) -> dict[str, Any]:
    """An argument's schema that keeps the definitions (and draft) of its tool's schema, so a
    ``$ref`` such as ``#/$defs/mail`` still points at something once the schema stands alone."""
    carried = {k: whole[k] for k in ("$schema", "$defs", "definitions") if k in whole}
    return {**carried, **schema} if carried else schema
