"""BehaviorPackage: the files of a package, their views, and binding to host tools."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from jdsl.errors import PackageError
from jdsl.expr import preview
from jdsl.interaction.tools import tool_name
from jdsl.ir import from_ir
from jdsl.ir.walk import walk_ir
from jdsl.package.format import (
    PACKAGE_FORMAT,
    Manifest,
    ToolContract,
    default_effects,
    digest,
    dump_json,
    manifest_digest,
)
from jdsl.providers import model_hint
from jdsl.tree import Root

__all__ = ["BehaviorPackage", "LoadedPackage", "Tools"]

Tools = Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]]
"""``{logical id: callable}``, or callables named by ``tool_name`` (``@tool`` name or
``__name__``)."""


@dataclass(frozen=True)
class BehaviorPackage:
    """A behavior package: restricted IR, typed signatures and capability contracts; no code.

    Attributes:
        files: ``{relative path: bytes}``, ``manifest.json`` included (its ``files`` map holds
            the sha256 of every other file).
        source: where it was loaded from, when it was.

    Build one with :meth:`assemble` (or ``compile_behavior`` / ``package_from_root``), write it
    with ``export_jdsl`` / ``export_dir``, read it with ``load_package``.
    """

    files: Mapping[str, bytes]
    source: str | None = field(default=None, compare=False)

    @classmethod
    def assemble(
        cls,
        manifest: Mapping[str, Any],
        *,
        behavior: Mapping[str, Any],
        tools: Iterable[ToolContract],
        signatures: Iterable[Mapping[str, Any]] = (),
        json_files: Mapping[str, Any] | None = None,
        jsonl_files: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
        text_files: Mapping[str, str] | None = None,
    ) -> BehaviorPackage:
        """Serialize the parts and write the manifest (last) with the digest of every file."""
        files: dict[str, bytes] = {
            "behavior.json": dump_json(dict(behavior)),
            "tools.json": dump_json({"tools": [t.to_dict() for t in tools]}),
        }
        for record in signatures:
            files[f"signatures/{record['id']}.json"] = dump_json(dict(record))
        for path, value in (json_files or {}).items():
            files[path] = dump_json(value)
        for path, rows in (jsonl_files or {}).items():
            files[path] = "".join(
                json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
                for r in rows
            ).encode()
        for path, text in (text_files or {}).items():
            files[path] = text.encode()
        digests = {path: digest(data) for path, data in sorted(files.items())}
        head = {**dict(manifest), "format": PACKAGE_FORMAT, "files": digests}
        head["manifest_digest"] = manifest_digest(head)
        files["manifest.json"] = dump_json(head)
        return cls(dict(sorted(files.items())))

    # -- views ----------------------------------------------------------------------------------
    def json(self, path: str) -> Any:
        """A JSON file of the package, parsed.

        Raises:
            PackageError: the file is missing or not JSON.
        """
        if path not in self.files:
            raise PackageError(f"package has no {path!r}", path=path)
        try:
            return json.loads(self.files[path])
        except ValueError as exc:
            raise PackageError(f"{path!r} is not valid JSON: {exc}", path=path) from None

    def jsonl(self, path: str) -> list[Any]:
        """A JSON-lines file of the package (e.g. ``tests/replay.jsonl``), one value a line.

        Raises:
            PackageError: the file is missing or a line is not JSON.
        """
        if path not in self.files:
            raise PackageError(f"package has no {path!r}", path=path)
        try:
            return [json.loads(line) for line in self.files[path].splitlines() if line.strip()]
        except ValueError as exc:
            raise PackageError(f"{path!r} is not valid JSON lines: {exc}", path=path) from None

    @cached_property
    def manifest(self) -> Manifest:
        """``manifest.json`` (keys also read as attributes: ``manifest.source["inputs"]``)."""
        return Manifest(self.json("manifest.json"))

    @cached_property
    def ir(self) -> dict[str, Any]:
        """The Behavior IR document (``behavior.json``).

        Raises:
            PackageError: the file is missing, not JSON, or not an object.
        """
        return _shaped(self.json("behavior.json"), dict, "behavior.json", "a JSON object")

    @cached_property
    def tools(self) -> dict[str, ToolContract]:
        """``{logical id: contract}`` from ``tools.json``.

        Raises:
            PackageError: not ``{"tools": [{"logical_id": str, ...}, ...]}``.
        """
        if "tools.json" not in self.files:
            return {}
        doc = _shaped(self.json("tools.json"), dict, "tools.json", '{"tools": [...]}')
        listed = _shaped(doc.get("tools", []), list, "tools.json", '{"tools": [...]}')
        contracts = [_contract(item, i) for i, item in enumerate(listed)]
        return {c.logical_id: c for c in contracts}

    @cached_property
    def signatures(self) -> dict[str, dict[str, Any]]:
        """``{id: signature record}`` from ``signatures/*.json``.

        Raises:
            PackageError: a record that is not an object with a string ``id``.
        """
        paths = sorted(p for p in self.files if p.startswith("signatures/") and p.endswith(".json"))
        records = {}
        for path in paths:
            record = _shaped(self.json(path), dict, path, 'an object with "id" and "signature"')
            if not isinstance(record.get("id"), str) or not record["id"]:
                raise PackageError(f"{path!r} has no string 'id'", path=path)
            records[record["id"]] = record
        return records

    @property
    def name(self) -> str:
        return str(self.manifest.get("name", ""))

    @property
    def version(self) -> str:
        return str(self.manifest.get("version", ""))

    @property
    def required_capabilities(self) -> list[str]:
        """The capability ids the manifest requires.

        Raises:
            PackageError: ``required_capabilities`` is not a list of strings.
        """
        required = self.manifest.get("required_capabilities") or []
        if not isinstance(required, list) or not all(isinstance(c, str) for c in required):
            raise PackageError(
                f"manifest.json required_capabilities must be a list of capability ids, "
                f"not {preview(required)}",
                path="manifest.json",
            )
        return list(required)

    @cached_property
    def required_predicates(self) -> list[str]:
        """The trusted predicates the behavior's ``guard_call`` nodes call (sorted)."""
        root = self.ir.get("root")
        nodes = walk_ir(root) if isinstance(root, dict) else ()
        return sorted(
            {node["predicate"] for node in nodes
             if node.get("kind") == "guard_call" and isinstance(node.get("predicate"), str)}
        )  # fmt: skip

    def missing_inputs(self, provided: Iterable[str]) -> list[str]:
        """What a run given the run inputs ``provided`` lacks (empty: it can run).

        Every name of ``source.inputs`` is required; for each compiled branch
        (``source.input_alternatives``) the inputs of at least one alternative must all be
        given, else ``"one of: email | first_name, last_name, zip"`` is listed.

        Example:
            >>> pkg.missing_inputs({"request": "..", "zip": "02134"})  # doctest: +SKIP
            ['one of: email | first_name, last_name, zip']
        """
        given = set(provided)
        source = self.manifest.get("source") or {}
        missing = [name for name in source.get("inputs") or () if name not in given]
        for branch in source.get("input_alternatives") or ():
            if not any(set(alt) <= given for alt in branch):
                missing.append("one of: " + " | ".join(", ".join(alt) for alt in branch))
        return missing

    def capability(self, logical_id: str) -> ToolContract:
        """The contract of a required capability (a default one when tools.json has none)."""
        return self.tools.get(logical_id) or ToolContract(
            logical_id, effects=default_effects(logical_id)
        )

    def permissions(self) -> dict[str, list[str]]:
        """What a host should show before binding: ``reads``, ``writes`` and ``destructive``."""
        caps = [self.capability(c) for c in self.required_capabilities]
        return {
            "reads": sorted(c.logical_id for c in caps if c.effects.read_only),
            "writes": sorted(c.logical_id for c in caps if not c.effects.read_only),
            "destructive": sorted(c.logical_id for c in caps if c.effects.destructive),
        }

    # -- binding ----------------------------------------------------------------------------------
    def unbound(self, tools: Tools) -> list[str]:
        """The required capabilities ``tools`` (a mapping or a list of tools) gives no tool for."""
        table = _named(tools)
        return [c for c in self.required_capabilities if c not in table]

    def bind(self, tools: Tools, predicates: Tools | None = None) -> Root:
        """A fresh runnable tree with ``tools`` bound to the required capabilities.

        Raises:
            PackageError: a required capability with no tool, or a guard_call predicate with
                no callable in ``predicates`` (checked before anything runs).
        """
        table = _named(tools)
        missing = self.unbound(table)
        if missing:
            near = [f"{c.rsplit('.', 1)[-1]!r} -> {c!r}" for c in missing
                    if c.rsplit(".", 1)[-1] in table]  # fmt: skip
            hint = f"; key host tools by capability id ({', '.join(near)})" if near else ""
            raise PackageError(
                f"required capabilities not bound: {missing}; pass tools={{'{missing[0]}': fn, "
                f"...}} (bound: {sorted(table)}){hint}",
                path=self.source,
            )
        named = _named(predicates) if predicates is not None else {}
        unbound = [p for p in self.required_predicates if p not in named]
        if unbound:
            raise PackageError(
                f"required predicates not bound: {unbound}; pass predicates={{'{unbound[0]}': "
                f"fn, ...}} (guard_call nodes call them; bound: {sorted(named)})",
                path=self.source,
            )
        root = from_ir(self.writes_hand_over())
        root.model_id = model_hint(root.model_id)  # a hint: never an address or a key
        return root.bind(
            tools={c: table[c] for c in self.required_capabilities},
            predicates=named or None,
        )

    def writes_hand_over(self) -> dict[str, Any]:
        """The IR a bound tree runs: in a package whose root child is ``sel [compiled, react]``
        (a compiled program and its fallback, ``jdsl.compiler.fallback``), each write action of
        the compiled program (its contract, else :func:`default_effects`, says it writes) that
        has no ``on_error`` gets ``on_error="fail"``: a write its tool refuses (an order no
        longer pending) ends the compiled program with that error as the FAILURE the fallback
        takes over from (the run's :class:`~jdsl.tree.Takeover` and trace say why), instead of
        ending the run. A write the recorded runs saw fail is a recovery, compiled with its own
        ``on_error`` already; reads that raise still stop the run. Replay and verification run
        the stored IR (they never reach the fallback)."""
        document = json.loads(json.dumps(self.ir))
        root = document.get("root", document)
        child = root.get("child") or {}
        children = child.get("children") or []
        if (
            child.get("kind") != "selector"
            or len(children) != 2
            or children[1].get("kind") != "react"
        ):
            return document
        for node in walk_ir(children[0]):
            if (node.get("kind") == "action" and node.get("on_error") is None
                    and not self.capability(str(node.get("tool"))).effects.read_only):  # fmt: skip
                node["on_error"] = "fail"
        return document

    def as_root(
        self, tools: Tools, predicates: Tools | None = None, *, model_id: str | None = None
    ) -> Root:
        """:meth:`bind`, with the model id set: ``model_id`` (the user's own), else the
        package's :attr:`model_hint`.

        The package's id is only a hint (:func:`jdsl.providers.model_hint`): the address in an
        ``openai-compatible:<model>@<url>`` id is dropped, so a package never chooses where the
        prompts go nor which key goes with them; those come from ``model_id``, the settings and
        the user's environment.
        """
        root = self.bind(tools, predicates)
        chosen = model_id or self.model_hint
        if chosen:
            root.model_id = str(chosen)
        return root

    @property
    def model_hint(self) -> str | None:
        """The manifest's model id (else the IR root's) as a bare provider model name."""
        return model_hint(self.manifest.get("model_id")) or model_hint(
            self.ir.get("root", {}).get("model_id")
        )

    def model_addresses(self) -> list[str]:
        """Addresses in the package's model ids that :attr:`model_hint` drops (what ``jdsl
        package inspect`` shows as ignored)."""
        given = [self.manifest.get("model_id"), self.ir.get("root", {}).get("model_id")]
        return sorted({str(m)[len(model_hint(m) or ""):].lstrip("@")
                       for m in given if isinstance(m, str) and model_hint(m) != m})  # fmt: skip


def _shaped(value: Any, kind: type, path: str, expected: str) -> Any:
    """``value`` if it is a ``kind``, else a PackageError naming the file and the shape."""
    if not isinstance(value, kind):
        raise PackageError(f"{path!r} must be {expected}, not {preview(value)}", path=path)
    return value


def _contract(item: Any, index: int) -> ToolContract:
    where = f"tools.json tools[{index}]"
    if not isinstance(item, Mapping) or not isinstance(item.get("logical_id"), str):
        raise PackageError(
            f"{where} must be an object with a string 'logical_id'", path="tools.json"
        )
    try:
        return ToolContract.from_dict(item)
    except (TypeError, ValueError, AttributeError) as exc:
        raise PackageError(f"{where} is malformed: {exc}", path="tools.json") from None


def _named(tools: Tools) -> dict[str, Callable[..., Any]]:
    if isinstance(tools, Mapping):
        return dict(tools)
    return {tool_name(fn): fn for fn in tools}


LoadedPackage = BehaviorPackage
"""What :func:`jdsl.package.load_package` returns (a :class:`BehaviorPackage` with ``source``)."""
