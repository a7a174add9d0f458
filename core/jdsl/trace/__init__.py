"""Traces: events, sinks, redaction, blobs, episodes. See docs/design.md §5.

A run emits :class:`TraceEvent` s through a sink (``ctx.emit``, or for the events of every tick
a per-episode :data:`Recorder` from :func:`recorder_for`); the sink stamps each event with its
per-episode ``sequence`` and a SHA-256 hash chain. :class:`JsonlTraceSink` writes them to a
file, redacted, with large values in a blob store beside it; :func:`read_events` reads the file
back as a :class:`Trace`, whose ``episodes`` give tool calls, model calls, blackboard states and
outcomes; :func:`verify_chain` detects tampering. A ``model.requested`` of a continuing
conversation records only its new messages: :func:`request_messages` gives the whole list.
"""

from jdsl.trace.blobs import (
    DEFAULT_BLOB_THRESHOLD,
    BlobStore,
    CorruptBlobError,
    MissingBlobError,
    hydrate,
    hydrate_value,
    is_blob_marker,
    offload,
)
from jdsl.trace.chain import verify_chain
from jdsl.trace.collection import Trace, read_events
from jdsl.trace.episodes import (
    Episode,
    ModelCall,
    ToolInvocation,
    new_episode_id,
    segment_episodes,
)
from jdsl.trace.events import (
    SCHEMA_VERSION,
    Chainer,
    EventKind,
    EventSource,
    TraceEvent,
    canonical_json,
)
from jdsl.trace.jsonl import JsonlTraceSink, TracePathError
from jdsl.trace.messages import (
    MESSAGES_FROM,
    MessageLog,
    RequestMessages,
    RequestMessagesError,
    request_messages,
)
from jdsl.trace.payloads import PARENT_KINDS, PAYLOAD_FIELDS, payload_problems
from jdsl.trace.reader import (
    SkippedLines,
    TraceFormatError,
    TraceNotFoundError,
    blob_dir_for,
    iter_episodes,
    iter_events,
)
from jdsl.trace.redact import Redactor
from jdsl.trace.sinks import (
    BaseTraceSink,
    EmitRecorder,
    FanoutSink,
    ListTraceSink,
    NullTraceSink,
    Parent,
    Recorder,
    SafeSink,
    TraceSink,
    recorder_for,
)
from jdsl.trace.values import jsonable

__all__ = [
    "DEFAULT_BLOB_THRESHOLD",
    "SCHEMA_VERSION",
    "BaseTraceSink",
    "BlobStore",
    "Chainer",
    "Episode",
    "EventKind",
    "EmitRecorder",
    "EventSource",
    "FanoutSink",
    "JsonlTraceSink",
    "ListTraceSink",
    "MESSAGES_FROM",
    "MessageLog",
    "CorruptBlobError",
    "MissingBlobError",
    "ModelCall",
    "NullTraceSink",
    "PARENT_KINDS",
    "PAYLOAD_FIELDS",
    "Parent",
    "Recorder",
    "Redactor",
    "RequestMessages",
    "RequestMessagesError",
    "SafeSink",
    "ToolInvocation",
    "Trace",
    "TraceEvent",
    "SkippedLines",
    "TraceFormatError",
    "TraceNotFoundError",
    "TracePathError",
    "TraceSink",
    "blob_dir_for",
    "canonical_json",
    "hydrate",
    "hydrate_value",
    "is_blob_marker",
    "iter_episodes",
    "iter_events",
    "jsonable",
    "new_episode_id",
    "offload",
    "payload_problems",
    "read_events",
    "recorder_for",
    "request_messages",
    "segment_episodes",
    "verify_chain",
]
