"""The content-addressed blob store, and moving large payload values into it.

A value whose JSON is larger than a threshold is stored once at ``root/sha256/<hex>`` and
replaced in the event by a marker::

    {"$blob": "sha256:<hex>", "preview": "<first characters>", "bytes": N, "truncated": true}

The ref is also listed in the event's ``blob_refs``. :func:`hydrate` puts the full values back.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, ClassVar

from jdsl.errors import JdslError
from jdsl.trace.atomic import write_atomic
from jdsl.trace.events import TraceEvent, canonical_json

__all__ = [
    "DEFAULT_BLOB_THRESHOLD",
    "BlobError",
    "BlobStore",
    "CorruptBlobError",
    "MissingBlobError",
    "hydrate",
    "hydrate_value",
    "is_blob_marker",
    "offload",
]

DEFAULT_BLOB_THRESHOLD = 64 * 1024
"""Bytes of canonical JSON above which a payload value goes to the blob store."""

PREVIEW_CHARS = 256


class BlobError(JdslError):
    """A blob ref the store cannot give back (see the subclasses).

    Attributes:
        ref: the ``sha256:<hex>`` ref.
        root: the store's root directory.
    """

    def __init__(self, ref: str, root: Path) -> None:
        self.ref = ref
        self.root = root
        self.message = self.problem.format(ref=ref, root=root)
        super().__init__(self.message)

    problem: ClassVar[str]
    """The message, with ``{ref}`` and ``{root}``: what is wrong with the blob, and the fix."""

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:  # pickles (a Dask worker's error reaches the client)
        return (type(self), (self.ref, self.root))


class MissingBlobError(BlobError, KeyError):
    """A blob ref that is not in the store."""

    problem = (
        "blob {ref} is not in the blob store at {root}; copy the trace's '.blobs' directory "
        "along with the JSONL file"
    )


class CorruptBlobError(BlobError, ValueError):
    """A stored blob whose bytes do not hash to its ref (the file was damaged or edited)."""

    problem = (
        "blob {ref} in the blob store at {root} does not match its digest (damaged or edited); "
        "copy the trace's '.blobs' directory again from where it was recorded"
    )


class BlobStore:
    """Content-addressed files under ``root/sha256/<hex>``; identical content is stored once.

    Args:
        root: the store directory; created on the first write.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path_of(self, ref: str) -> Path:
        """The file holding ``ref`` (``sha256:<hex>``); raises ``ValueError`` on a bad ref."""
        algo, _, digest = ref.partition(":")
        if algo != "sha256" or len(digest) != 64 or not _is_hex(digest):
            raise ValueError(f"bad blob ref {ref!r}; expected 'sha256:' and 64 hex digits")
        return self.root / "sha256" / digest

    def put(self, data: bytes) -> str:
        """Store ``data`` (atomically: temp file then rename) and return its ``sha256:`` ref."""
        ref = "sha256:" + hashlib.sha256(data).hexdigest()
        target = self.path_of(ref)
        if target.exists():
            return ref
        write_atomic(target, data)
        return ref

    def put_text(self, text: str) -> str:
        """Store UTF-8 text."""
        return self.put(text.encode("utf-8"))

    def put_json(self, value: Any) -> str:
        """Store the canonical JSON of ``value`` (equal values give equal refs)."""
        return self.put_text(canonical_json(value))

    def has(self, ref: str) -> bool:
        """Whether ``ref`` is stored."""
        return self.path_of(ref).exists()

    def get(self, ref: str) -> bytes:
        """The stored bytes, checked against their digest.

        Raises:
            MissingBlobError: no file holds ``ref``.
            CorruptBlobError: the file's bytes do not hash to ``ref`` (damaged or edited).
        """
        try:
            data = self.path_of(ref).read_bytes()
        except FileNotFoundError:
            raise MissingBlobError(ref, self.root) from None
        if "sha256:" + hashlib.sha256(data).hexdigest() != ref:
            raise CorruptBlobError(ref, self.root)
        return data

    def get_text(self, ref: str) -> str:
        """The stored UTF-8 text."""
        return self.get(ref).decode("utf-8")

    def get_json(self, ref: str) -> Any:
        """The stored JSON value."""
        return json.loads(self.get(ref))


def is_blob_marker(value: Any) -> bool:
    """Whether ``value`` is a ``{"$blob": ...}`` marker left by :func:`offload`."""
    return isinstance(value, dict) and isinstance(value.get("$blob"), str)


def offload(
    payload: dict[str, Any], store: BlobStore, threshold: int = DEFAULT_BLOB_THRESHOLD
) -> tuple[dict[str, Any], list[str]]:
    """Move values larger than ``threshold`` bytes of JSON into ``store``.

    Nested values are tried first, so a large tool result inside ``result.items`` is moved
    while the small fields around it stay inline. Top-level keys are moved largest first until
    the payload fits; a nested list or dict still over the threshold is moved whole.

    Args:
        payload: an event payload (JSON data); not mutated.
        store: where large values go.
        threshold: bytes of canonical JSON above which a value is moved.

    Returns:
        The new payload and the refs of the moved values, in order.
    """
    refs: list[str] = []
    if _size(payload) <= threshold:
        return payload, refs
    out = {k: _shrink(v, store, threshold, refs) for k, v in payload.items()}
    sizes = {k: _size(v) for k, v in out.items()}
    total = _size(out)
    for key in sorted(out, key=lambda k: (-sizes[k], k)):
        if total <= threshold or sizes[key] <= PREVIEW_CHARS * 2:
            break
        out[key] = _marker(out[key], store, refs)
        total += _size(out[key]) - sizes[key]
    return out, refs


def _shrink(value: Any, store: BlobStore, threshold: int, refs: list[str]) -> Any:
    if _size(value) <= threshold:
        return value
    if isinstance(value, dict) and not is_blob_marker(value):
        value = {k: _shrink(v, store, threshold, refs) for k, v in value.items()}
    elif isinstance(value, list):
        value = [_shrink(v, store, threshold, refs) for v in value]
    return value if _size(value) <= threshold else _marker(value, store, refs)


def _marker(value: Any, store: BlobStore, refs: list[str]) -> dict[str, Any]:
    text = canonical_json(value)
    ref = store.put_text(text)
    refs.append(ref)
    preview = value if isinstance(value, str) else text
    return {
        "$blob": ref,
        "bytes": len(text.encode("utf-8")),
        "preview": preview[:PREVIEW_CHARS],
        "truncated": True,
    }


def hydrate_value(value: Any, store: BlobStore) -> Any:
    """``value`` with every blob marker replaced by the stored value."""
    if is_blob_marker(value):
        return hydrate_value(store.get_json(value["$blob"]), store)
    if isinstance(value, dict):
        return {k: hydrate_value(v, store) for k, v in value.items()}
    if isinstance(value, list):
        return [hydrate_value(v, store) for v in value]
    return value


def hydrate(event: TraceEvent, store: BlobStore) -> TraceEvent:
    """A copy of ``event`` with its blob markers replaced by the full values.

    The copy's ``event_hash`` no longer matches its content: verify the chain on the events as
    stored, then hydrate. Raises :class:`MissingBlobError` when a blob is absent.
    """
    if not event.blob_refs:
        return event
    return event.model_copy(update={"payload": hydrate_value(event.payload, store)})


def _size(value: Any) -> int:
    return len(canonical_json(value).encode("utf-8"))


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)
