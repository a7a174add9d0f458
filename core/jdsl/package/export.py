"""Export: a package as an unpacked directory or a deterministic ``.jdsl`` zip archive.

The archive is byte-stable: entries sorted by name, fixed timestamps (1980-01-01 00:00:00),
fixed permissions (0644) and creator system, DEFLATE level 9. Both exports are atomic: they
write a temporary sibling, then rename it over the target.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import zipfile
from pathlib import Path

from jdsl.errors import PackageError
from jdsl.package.bundle import BehaviorPackage
from jdsl.package.format import check_member_name
from jdsl.trace.atomic import temp_beside, write_atomic

__all__ = ["SUFFIX", "export_dir", "export_jdsl", "package_digest", "zip_bytes"]

SUFFIX = ".jdsl"
_EPOCH = (1980, 1, 1, 0, 0, 0)


def zip_bytes(package: BehaviorPackage) -> bytes:
    """The deterministic ``.jdsl`` archive of ``package``.

    Raises:
        PackageError: a member name that is not a safe relative path (``../x``, ``/abs``).
    """
    names = sorted(map(check_member_name, package.files))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            archive.writestr(info, package.files[name], compresslevel=9)
    return buffer.getvalue()


def package_digest(package: BehaviorPackage) -> str:
    """``"sha256:<hex>"`` of the archive bytes (equal contents, equal digest)."""
    return "sha256:" + hashlib.sha256(zip_bytes(package)).hexdigest()


def export_jdsl(
    package: BehaviorPackage, path: str | os.PathLike[str], *, add_suffix: bool = True
) -> Path:
    """Write ``package`` as a ``.jdsl`` archive, atomically (temp file, then rename).

    Args:
        package: the package to write.
        path: the target file; ``.jdsl`` is appended when missing unless ``add_suffix=False``.
        add_suffix: keep ``path`` exactly as given when False.

    Returns:
        The path written. The file's mode is ``0o666`` less the umask, like any new file.

    Raises:
        PackageError: the target cannot be written (nothing is left behind).
    """
    target = Path(path)
    if add_suffix and target.suffix != SUFFIX:
        target = target.with_name(target.name + SUFFIX)
    data = zip_bytes(package)
    try:
        write_atomic(target, data)
    except OSError as exc:
        raise PackageError(f"cannot write {target}: {exc.strerror}", path=str(target)) from exc
    return target


def export_dir(package: BehaviorPackage, path: str | os.PathLike[str]) -> Path:
    """Write ``package`` as an unpacked directory (replacing one that exists).

    Returns:
        The directory written.

    Raises:
        PackageError: a member name that would leave the directory (``../x``, ``/abs``; checked
            before anything is written), or the directory cannot be written.
    """
    for name in package.files:
        check_member_name(name)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = temp_beside(target)
    try:
        os.mkdir(staging, 0o777)  # the umask applies, as to any new directory (mkdtemp: 0o700)
        for name, data in package.files.items():
            file = staging / name
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(data)
        if target.exists():
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise PackageError(f"cannot write {target}: {exc.strerror}", path=str(target)) from exc
    return target
