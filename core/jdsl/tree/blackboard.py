"""The blackboard: a dict of run values with provenance (reference jdsl-py §2.2).

Every write is recorded in ``activity`` with the node that made it, the previous value and
whether it overwrote another writer's value; every ref a node resolved is recorded there too,
so a notebook can show who wrote each value and which later arguments consumed it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from jdsl.trace.values import jsonable

__all__ = ["INPUT_WRITER", "Blackboard", "Read", "Write"]

INPUT_WRITER = "input"
"""The writer id of run inputs."""


@dataclass(slots=True)
class Write:
    """One blackboard write.

    Attributes:
        key: the key written.
        value: the value written.
        writer_id: the writing node's id (``"input"`` for run inputs, ``"?"`` for ``bb[k] = v``).
        writer_label: the writer's label, e.g. ``act(lookup) -> customer``.
        previous: the value before (None when the key was absent).
        overwrote: True when the key held a value from a different writer.
        sequence: the trace sequence of the ``blackboard.write`` event (None untraced).
        source: where the value came from when the writer copied it from the blackboard
            (a for_each's item: ``user.orders[2]``), else None.
        index: the pass of the for_each that wrote it (0-based), else None.
    """

    key: str
    value: Any
    writer_id: str
    writer_label: str
    previous: Any = None
    overwrote: bool = False
    sequence: int | None = None
    kind: Literal["write"] = "write"
    source: str | None = None
    index: int | None = None

    event_kind: ClassVar[str] = "blackboard.write"

    @property
    def writer(self) -> str:
        return self.writer_id

    def event_payload(self) -> dict[str, Any]:
        """The payload of the ``blackboard.write`` event recording this write (with ``source``
        and ``index`` for a for_each's item: the element and pass it came from)."""
        payload = {
            "key": self.key,
            "value": jsonable(self.value),
            "writer": self.writer_id,
            "writer_label": self.writer_label,
            "overwrote": self.overwrote,
            "previous": jsonable(self.previous),
        }
        if self.source is not None:
            payload["source"] = self.source
            payload["index"] = self.index
        return payload


@dataclass(slots=True)
class Read:
    """One ref a node resolved.

    Attributes:
        path: the ref path, e.g. ``orders[$selected_index].id``.
        value: what it resolved to.
        reader_id: the reading node's id.
        sequence: the trace sequence of the ``blackboard.read`` event (None untraced).
    """

    path: str
    value: Any
    reader_id: str
    sequence: int | None = None
    kind: Literal["read"] = "read"

    event_kind: ClassVar[str] = "blackboard.read"

    @property
    def reader(self) -> str:
        return self.reader_id

    def event_payload(self) -> dict[str, Any]:
        """The payload of the ``blackboard.read`` event recording this read."""
        return {"path": self.path, "reader": self.reader_id, "value": jsonable(self.value)}


class Blackboard(dict[str, Any]):
    """A dict whose writes keep provenance.

    Args:
        initial: run inputs; each is recorded with writer ``"input"``.

    Attributes:
        activity: every :class:`Write` and :class:`Read`, in order.
        on_write: called with each Write after it is stored (the run's trace hook).

    Example:
        >>> bb = Blackboard({"email": "a@x.com"})
        >>> bb.set("customer", {"id": "U1"}, writer_id="root/action.0", writer_label="act(lookup)")
        {'id': 'U1'}
        >>> bb.who_wrote("customer"), bb.who_wrote("email")
        ('root/action.0', 'input')
    """

    def __init__(self, initial: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), /) -> None:
        super().__init__()
        self.activity: list[Write | Read] = []
        self.on_write: Callable[[Write], None] | None = None
        self._writers: dict[str, str] = {}
        items = initial.items() if isinstance(initial, Mapping) else initial
        for key, value in items:
            self.set(key, value, writer_id=INPUT_WRITER, writer_label="run input")

    def set(
        self,
        key: str,
        value: Any,
        *,
        writer_id: str = "?",
        writer_label: str = "",
        source: str | None = None,
        index: int | None = None,
    ) -> Any:
        """Store ``value`` under ``key`` and record who wrote it (and, for a loop's item, the
        ``source`` path it came from and the pass ``index``). Returns ``value``."""
        last = self._writers.get(key)
        present = key in self
        record = Write(
            key=key,
            value=value,
            writer_id=writer_id,
            writer_label=writer_label or writer_id,
            previous=self.get(key) if present else None,
            overwrote=present and last is not None and last != writer_id,
            source=source,
            index=index,
        )
        dict.__setitem__(self, key, value)
        self._writers[key] = writer_id
        self.activity.append(record)
        if self.on_write is not None:
            self.on_write(record)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        self.set(key, value)

    def record_read(self, path: str, value: Any, reader_id: str) -> Read:
        """Record that ``reader_id`` resolved ``path`` to ``value``."""
        record = Read(path, value, reader_id)
        self.activity.append(record)
        return record

    def who_wrote(self, key: str) -> str | None:
        """The id of the node that last wrote ``key`` (``"input"`` for inputs), or None."""
        return self._writers.get(key)

    def writes(self) -> list[Write]:
        """The writes of ``activity``, in order."""
        return [r for r in self.activity if isinstance(r, Write)]

    def reads(self) -> list[Read]:
        """The reads of ``activity``, in order."""
        return [r for r in self.activity if isinstance(r, Read)]

    def clobbers(self) -> list[Write]:
        """Writes that replaced another writer's value (two leaves sharing an output key).

        A node rewriting its own key (a refinement loop) is not a clobber.
        """
        return [r for r in self.activity if isinstance(r, Write) and r.overwrote]

    def provenance(self) -> dict[str, str]:
        """``{key: writer id}`` for every key, in key order."""
        return {key: self._writers.get(key, "?") for key in self}
