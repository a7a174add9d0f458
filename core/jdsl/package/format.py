"""Package file format: names, JSON serialization, digests, tool contracts, safety limits."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import PurePosixPath
from typing import Any, Final

from jdsl.errors import PackageError

__all__ = [
    "MAX_COMPRESSION_RATIO",
    "MAX_MEMBER_BYTES",
    "MAX_TOTAL_BYTES",
    "PACKAGE_FORMAT",
    "Manifest",
    "SIGNATURE_FORMAT",
    "ToolContract",
    "ToolEffects",
    "check_member_name",
    "default_effects",
    "digest",
    "dump_json",
    "manifest_digest",
]

PACKAGE_FORMAT: Final = "jdsl.package.v1"
"""The ``format`` every ``manifest.json`` carries."""

SIGNATURE_FORMAT: Final = "jdsl.signature.v1"

MAX_MEMBER_BYTES: Final = 64 * 1024 * 1024
"""The largest file a package may hold (uncompressed)."""

MAX_TOTAL_BYTES: Final = 256 * 1024 * 1024
"""The largest total (uncompressed) size of a package."""

MAX_COMPRESSION_RATIO: Final = 200
"""Members over 64 KiB that compress better than this are refused (zip bombs)."""

_SHELL: Final = frozenset({"bash", "sh", "shell", "zsh", "exec", "run_command", "terminal"})
_MUTATING: Final = re.compile(
    r"(^|[._])(cancel|delete|remove|drop|destroy|purge|update|modify|set|create|add|insert|"
    r"write|send|post|put|patch|book|exchange|return|transfer|escalate|pay|charge|refund|execute)(?=_|$)"
)
_DESTRUCTIVE: Final = re.compile(r"(^|[._])(cancel|delete|remove|drop|destroy|purge)(?=_|$)")


def check_member_name(name: object) -> str:
    """``name`` if it is a safe package member path, for load and export alike.

    A member name is a relative POSIX path that stays inside the package: not empty, no NUL or
    ``\\``, no leading ``/``, no drive (``C:``), no ``..`` segment.

    Raises:
        PackageError: any other name (``path`` is the name), e.g. ``"../escaped.txt"``.
    """
    text = name if isinstance(name, str) else ""
    pure = PurePosixPath(text)
    if (
        not text
        or "\0" in text
        or "\\" in text
        or text.startswith("/")
        or pure.is_absolute()
        or ".." in pure.parts
        or (len(text) > 1 and text[1] == ":")
    ):
        raise PackageError(
            f"refusing member {name!r}: absolute or '..' path; a member is a relative path "
            "inside the package (no drive, '\\' or NUL)",
            path=str(name),
        )
    return text


class Manifest(dict[str, Any]):
    """``manifest.json`` as a dict whose keys also read as attributes (``manifest.source``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"manifest has no {name!r}") from None


def dump_json(value: Any) -> bytes:
    """Package JSON: sorted keys, indent 2, UTF-8, one trailing newline (byte-stable)."""
    return (json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def digest(data: bytes) -> str:
    """``"sha256:<hex>"`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def manifest_digest(manifest: Mapping[str, Any]) -> str:
    """The package digest: sha256 of the manifest's canonical JSON without ``manifest_digest``.

    The manifest's ``files`` map holds every other file's digest, so this one value covers
    the whole package, the manifest's own fields (name, version, verification...) included.
    """
    return digest(dump_json({k: v for k, v in manifest.items() if k != "manifest_digest"}))


@dataclass(frozen=True)
class ToolEffects:
    """What a capability may do to the world (hints a host shows before binding)."""

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True

    @classmethod
    def of(cls, value: ToolEffects | Mapping[str, Any]) -> ToolEffects:
        if isinstance(value, ToolEffects):
            return value
        known = {
            k: bool(v) for k, v in value.items() if k in ("read_only", "destructive", "idempotent")
        }
        return cls(**known)


@dataclass(frozen=True)
class ToolContract:
    """A capability a package requires: its logical id, argument schema and effects."""

    logical_id: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    effects: ToolEffects = field(default_factory=ToolEffects)

    def to_dict(self) -> dict[str, Any]:
        return {
            "logical_id": self.logical_id,
            "description": self.description,
            "input_schema": self.input_schema,
            "effects": asdict(self.effects),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolContract:
        return cls(
            logical_id=str(data["logical_id"]),
            description=str(data.get("description") or ""),
            input_schema=dict(data.get("input_schema") or {"type": "object"}),
            effects=ToolEffects.of(data.get("effects") or {}),
        )


def default_effects(logical_id: str) -> ToolEffects:
    """Effects assumed when no trusted contract says otherwise.

    Shell-like capabilities (``bash``, ``shell``, ``*.bash`` ...) may do anything: write,
    destructive, not idempotent. A name led by a mutating verb (``cancel_order``,
    ``retail.update_address``) writes; ``cancel``/``delete``-like verbs are destructive. Any
    other capability is assumed read-only.

    >>> default_effects("bash"), default_effects("get_order").read_only
    (ToolEffects(read_only=False, destructive=True, idempotent=False), True)
    >>> default_effects("retail.cancel_pending_order").destructive
    True
    """
    name = logical_id.lower()
    last = name.rsplit(".", 1)[-1]
    if name in _SHELL or last in _SHELL or name.endswith((".bash", ".shell", ".sh")):
        return ToolEffects(read_only=False, destructive=True, idempotent=False)
    if _MUTATING.search(last):
        return ToolEffects(
            read_only=False, destructive=bool(_DESTRUCTIVE.search(last)), idempotent=False
        )
    return ToolEffects()
