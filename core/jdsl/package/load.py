"""Load: read a package directory or ``.jdsl`` archive and refuse anything untrustworthy.

Checks, in order (each failure is a :class:`~jdsl.errors.PackageError` whose ``path`` names the
member at fault):

1. archive hygiene: no absolute or ``..`` member paths, no links, no member over
   :data:`MAX_MEMBER_BYTES`, no total over :data:`MAX_TOTAL_BYTES`, no extreme compression ratio,
   no duplicate or unlisted members;
2. ``manifest.json`` present, JSON, ``format == "jdsl.package.v1"``;
3. every file the manifest lists present and matching its sha256;
4. ``behavior.json`` passes :func:`jdsl.ir.validate_ir` with the declared capabilities and loads
   as a tree; every required capability has a contract; every signature names a model leaf;
5. every JSON Schema (``tools.json`` input schemas, signature output schemas) is in the safe
   subset of :mod:`jdsl.interaction.schemas`: nothing in it is ever fetched.
"""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jdsl.errors import JdslError, PackageError, preview
from jdsl.interaction.schemas import UnsafeSchemaError, check_schema
from jdsl.ir import from_ir, validate_ir
from jdsl.package.bundle import BehaviorPackage
from jdsl.package.format import (
    MAX_COMPRESSION_RATIO,
    MAX_MEMBER_BYTES,
    MAX_TOTAL_BYTES,
    PACKAGE_FORMAT,
    check_member_name,
    digest,
    manifest_digest,
)

__all__ = ["load_package", "verify_package"]

_RATIO_FLOOR = 64 * 1024


def load_package(path: str | os.PathLike[str], *, digest: str | None = None) -> BehaviorPackage:
    """Load and verify a package directory or ``.jdsl`` archive.

    Args:
        path: the folder or archive.
        digest: the ``manifest_digest`` the package must have (``sha256:...``), as its author
            published it over a channel you trust. The digests inside a package prove only
            that nothing changed since its manifest was written (anyone can recompute them);
            a pinned digest also proves it is the package the author published.

    Raises:
        PackageError: anything in the module docstring's list, naming the member at fault;
            a ``digest`` that is not the package's.
    """
    where = Path(path)
    if where.is_dir():
        _check_not_a_folder_of_packages(where)
        files = _read_dir(where)
    elif where.is_file():
        files = _read_zip(where)
    else:
        raise PackageError(
            f"no package at {str(where)!r}: pass a .jdsl archive or a package folder "
            "(jdsl compile -o writes them)",
            path=str(where),
        )
    package = BehaviorPackage(files, source=str(where))
    verify_package(package)
    if digest is not None and package.manifest.get("manifest_digest") != digest.strip():
        raise PackageError(
            f"{str(where)!r} has digest {package.manifest.get('manifest_digest')}: it is not the "
            f"package the digest names ({digest.strip()[:80]}); get the package again from its "
            "author, or check which digest they published",
            path="manifest.json",
        )
    return package


_CORRUPT = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError)
"""What :mod:`zipfile` raises on a damaged archive: a bad header, an unknown compression
method or flag (``NotImplementedError``), a truncated or encrypted member (``RuntimeError`` is
caught too, below)."""


def _read_zip(path: Path) -> dict[str, bytes]:
    if not zipfile.is_zipfile(path):
        raise PackageError(
            f"{str(path)!r} is not a valid .jdsl archive: pass a .jdsl file or package folder "
            "written by `jdsl compile -o` (or jdsl.package.export_jdsl / export_dir)",
            path=str(path),
        )
    try:
        with zipfile.ZipFile(path) as archive:
            return _read_members(archive)
    except (*_CORRUPT, RuntimeError) as exc:
        raise PackageError(
            f"{str(path)!r} is not a valid .jdsl archive ({type(exc).__name__}: {exc}); "
            "re-export the package",
            path=str(path),
        ) from None


def _read_members(archive: zipfile.ZipFile) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    for info in archive.infolist():
        name = check_member_name(info.filename)
        if info.is_dir():
            continue
        _check_member(info)
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise PackageError(
                f"refusing {name!r}: package over {MAX_TOTAL_BYTES} bytes", path=name
            )
        if name in files:
            raise PackageError(f"refusing duplicate member {name!r}", path=name)
        data = _read_member(archive, info)
        if len(data) != info.file_size:
            raise PackageError(f"refusing {name!r}: size differs from its header", path=name)
        files[name] = data
    return files


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    try:
        with archive.open(info) as handle:
            return handle.read(MAX_MEMBER_BYTES + 1)
    except (*_CORRUPT, RuntimeError) as exc:
        raise PackageError(
            f"member {info.filename!r} is corrupt ({exc}); re-export the package",
            path=info.filename,
        ) from None


def _check_member(info: zipfile.ZipInfo) -> None:
    name = info.filename
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise PackageError(f"refusing member {name!r}: links are not allowed", path=name)
    if info.file_size > MAX_MEMBER_BYTES:
        raise PackageError(
            f"refusing member {name!r}: {info.file_size} bytes is over {MAX_MEMBER_BYTES}",
            path=name,
        )
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > _RATIO_FLOOR and ratio > MAX_COMPRESSION_RATIO:
        raise PackageError(
            f"refusing member {name!r}: compression ratio {ratio:.0f} is over "
            f"{MAX_COMPRESSION_RATIO} (a zip bomb?)",
            path=name,
        )


def _check_not_a_folder_of_packages(root: Path) -> None:
    """A folder ``jdsl compile --group-by`` wrote holds one package per family, no manifest."""
    if (root / "manifest.json").exists():
        return
    inside = sorted(p.name for p in root.glob("*.jdsl"))
    if inside:
        shown = ", ".join(inside[:5]) + (", ..." if len(inside) > 5 else "")
        raise PackageError(
            f"{str(root)!r} is a folder of {len(inside)} package(s), not one package: "
            f"pass one of them ({shown})",
            path=str(root),
        )


def _read_dir(root: Path) -> dict[str, bytes]:
    manifest = _read_file(root, "manifest.json")
    files = {"manifest.json": manifest}
    listed = _listed(_manifest(manifest))
    for name in listed:
        if os.path.lexists(root / check_member_name(name)):
            files[name] = _read_file(root, name)
    for folder, dirs, names in os.walk(root):  # links are not followed: they show as unlisted
        for name in sorted(names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
            member = Path(folder, name).relative_to(root).as_posix()
            if member not in files and member not in listed:
                raise PackageError(_unlisted(member), path=member)
    return files


def _unlisted(name: str) -> str:
    return (
        f"file {name!r} is not listed in the manifest: something was added to the package "
        "after it was written; remove the file, or compile the package again with `jdsl compile -o`"
    )


def _read_file(root: Path, name: str) -> bytes:
    file = root / check_member_name(name)
    _check_parents(root, name)
    try:
        info = file.lstat()
    except FileNotFoundError:
        raise PackageError(
            f"package {str(root)!r} has no {name!r}: pass a package folder or .jdsl archive "
            "written by `jdsl compile -o` (or jdsl.package.export_jdsl / export_dir)",
            path=name,
        ) from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise PackageError(
            f"refusing {name!r}: not a regular file (links are not allowed)", path=name
        )
    if info.st_size > MAX_MEMBER_BYTES:
        raise PackageError(f"refusing {name!r}: over {MAX_MEMBER_BYTES} bytes", path=name)
    return file.read_bytes()


def _check_parents(root: Path, name: str) -> None:
    """Every folder between ``root`` and member ``name`` is a real folder, not a link."""
    folder = root
    for part in Path(name).parts[:-1]:
        folder = folder / part
        try:
            mode = folder.lstat().st_mode
        except FileNotFoundError:
            return  # the member is then missing, which _read_file reports
        if not stat.S_ISDIR(mode):
            shown = folder.relative_to(root).as_posix()
            raise PackageError(
                f"refusing {name!r}: {shown!r} is a link or not a folder (links are not allowed)",
                path=name,
            )


_DAMAGED = (
    "the package is damaged or was not written by jdsl: copy it again, or compile it again "
    "with `jdsl compile -o`"
)


def _manifest(data: bytes) -> dict[str, Any]:
    import json

    try:
        manifest = json.loads(data)
    except ValueError as exc:
        raise PackageError(
            f"manifest.json is not valid JSON ({exc}); {_DAMAGED}", path="manifest.json"
        ) from None
    if not isinstance(manifest, dict):
        raise PackageError(f"manifest.json must be a JSON object; {_DAMAGED}", path="manifest.json")
    if manifest.get("format") != PACKAGE_FORMAT:
        raise PackageError(
            f"unsupported package format {preview(manifest.get('format'))}; this jdsl reads "
            f"{PACKAGE_FORMAT!r}: compile the package again with this jdsl (`jdsl compile -o`), "
            "or read it with the jdsl that wrote it",
            path="manifest.json",
        )
    return manifest


def _listed(manifest: Mapping[str, Any]) -> dict[str, str]:
    listed = manifest.get("files")
    if not isinstance(listed, dict) or "behavior.json" not in listed:
        raise PackageError(
            f"manifest.json must list its files, behavior.json included; {_DAMAGED}",
            path="manifest.json",
        )
    return {str(k): str(v) for k, v in listed.items()}


def verify_package(package: BehaviorPackage) -> None:
    """Check format, every digest, the IR, contracts and signatures of an in-memory package.

    Raises:
        PackageError: the first problem found, naming the file.
    """
    files = package.files
    if "manifest.json" not in files:
        raise PackageError(
            "package has no manifest.json: pass a package written by `jdsl compile -o` (or "
            "jdsl.package.export_jdsl / export_dir)",
            path="manifest.json",
        )
    manifest = _manifest(files["manifest.json"])
    _check_manifest_digest(manifest)
    listed = _listed(manifest)
    for name in sorted(files):
        check_member_name(name)
        if name != "manifest.json" and name not in listed:
            raise PackageError(_unlisted(name), path=name)
    for name, expected in sorted(listed.items()):
        if name not in files:
            raise PackageError(
                f"manifest references missing file {name!r}: the package is incomplete; copy "
                "it again, or compile it again with `jdsl compile -o`",
                path=name,
            )
        if digest(files[name]) != expected:
            raise PackageError(
                f"digest mismatch for {name!r}: the file changed after packaging "
                f"(expected {expected}); edit the behavior and compile or export the package "
                "again instead of editing the file",
                path=name,
            )
    _verify_ir(package, manifest)
    _check_schemas(package)


def _check_schemas(package: BehaviorPackage) -> None:
    """Every JSON Schema the package carries is in the safe subset of
    :mod:`jdsl.interaction.schemas` (no remote ``$ref``, known types, RE2 patterns)."""
    found = [(f"tools.json {c.logical_id!r} input_schema", "tools.json", c.input_schema)
             for c in package.tools.values()]  # fmt: skip
    for sig_id, record in package.signatures.items():
        for index, output in enumerate(record.get("outputs") or ()):
            if isinstance(output, Mapping) and "schema" in output:
                path = f"signatures/{sig_id}.json"
                found.append((f"{path} outputs[{index}].schema", path, output["schema"]))
    for where, path, schema in found:
        try:
            check_schema(schema, where=where)
        except UnsafeSchemaError as exc:
            raise PackageError(str(exc), path=path) from None


def _check_manifest_digest(manifest: Mapping[str, Any]) -> None:
    """The manifest (name, version, file digests, ...) is what was packaged."""
    expected = manifest.get("manifest_digest")
    if expected is None:
        raise PackageError(
            "manifest.json has no manifest_digest; re-export the package with this jdsl",
            path="manifest.json",
        )
    if manifest_digest(manifest) != expected:
        raise PackageError(
            "digest mismatch for 'manifest.json': the manifest changed after packaging "
            f"(expected {expected}); re-export the package instead of editing it",
            path="manifest.json",
        )


def _verify_ir(package: BehaviorPackage, manifest: Mapping[str, Any]) -> None:
    required = package.required_capabilities
    report = validate_ir(package.ir, required_capabilities=required)
    if not report.ok:
        raise PackageError(
            "invalid package IR: " + "; ".join(report.problems), path="behavior.json"
        )
    try:
        tree = from_ir(package.ir)
    except JdslError as exc:
        raise PackageError(f"invalid package IR: {exc}", path="behavior.json") from None
    missing = [c for c in required if "tools.json" in package.files and c not in package.tools]
    if missing:
        raise PackageError(f"tools.json has no contract for {missing}", path="tools.json")
    leaves = {n.id: n for n in tree.walk() if n.kind in ("predict", "react") and n.id}
    for sig_id, record in package.signatures.items():
        node = leaves.get(sig_id)
        if node is None or getattr(node, "signature", None) != record.get("signature"):
            raise PackageError(
                f"signature {sig_id!r} does not match a model leaf of behavior.json",
                path=f"signatures/{sig_id}.json",
            )
