"""Tool results and the safety rules for error text that reaches a model.

A tool call ends in a :class:`ToolResult`. ``status`` is one of ``success``, ``failed`` (a
business failure the model may react to), ``cancelled``, ``timeout`` or ``unknown`` (the outcome
is not known; an external effect may have happened). A result that is not a success carries a
:class:`ResultError` ``{code, message, retryable}``.

Error text is shown to models and written to traces, so it must never hold secrets, absolute
paths or stack frames (reference ditto §4). :func:`check_error` rejects such text;
:func:`sanitize_message` rewrites arbitrary text (an exception message) into safe text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from jdsl.errors import ToolError
from jdsl.trace.redact import scrub

__all__ = [
    "MAX_ERROR_MESSAGE",
    "Reference",
    "ResultError",
    "ResultStatus",
    "ToolResult",
    "check_error",
    "check_json",
    "error_from_exception",
    "sanitize_message",
    "unsafe_reason",
    "validate_result",
]

ResultStatus = Literal["success", "failed", "cancelled", "timeout", "unknown"]
MAX_ERROR_MESSAGE = 512
_CODE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# (reason, pattern, replacement) — the replacement is used by sanitize_message.
_UNSAFE: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("a bearer token", re.compile(r"(?i)\bbearer\s+\S+"), "<redacted credential>"),
    ("an API key", re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{4,}"), "<redacted>"),
    (
        "a credential assignment",
        re.compile(r"(?i)\b(api[_-]?key|token|secret|password)\s*[=:]\s*\S+"),
        r"\1 <redacted>",
    ),
    ("a stack frame", re.compile(r"\bat \S+ \([^)]*:\d+:\d+\)"), "<frame>"),
    ("a stack frame", re.compile(r'File "[^"]*", line \d+'), "<frame>"),
    ("a stack frame", re.compile(r"Traceback \(most recent call last\)"), "<frame>"),
    ("a Windows path", re.compile(r"\b[A-Za-z]:\\\S*"), "<path>"),
    ("a UNC path", re.compile(r"\\\\[^\\\s]+\\\S*"), "<path>"),
    ("a home path", re.compile(r"(?:^|(?<=[\s\"'(\[=,:]))~/\S*"), "<path>"),
    (
        "an absolute path",
        re.compile(r"(?:^|(?<=[\s\"'(\[=,:]))(?:/[A-Za-z0-9._~+@-]+)+/?"),
        "<path>",
    ),
)


class Reference(BaseModel):
    """A pointer a result returns (a URL, a file, a document id)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    uri: str = Field(min_length=1)
    title: str | None = None
    media_type: str | None = None


class ResultError(BaseModel):
    """The error of a non-success result: ``{code, message, retryable}``.

    Extra fields (``stack``, ``token``...) given to :meth:`model_validate` are dropped, so only
    these three reach a model. ``retryable`` is descriptive: nothing here ever retries.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    code: str
    message: str
    retryable: StrictBool = False


class ToolResult(BaseModel):
    """The outcome of one tool call.

    Attributes:
        status: success / failed / cancelled / timeout / unknown.
        content: JSON content for the model (a string is shown as-is).
        structured_content: JSON data for programs (shown to the model as JSON text).
        references: URIs the result points at.
        error: required unless ``status == "success"``.
        call_id: the id of the call this answers (set by the registry).
        source: the tool that produced it (``name`` or ``server:tool``; set by the registry).
        metadata: JSON extras that are not shown to the model.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: ResultStatus = "success"
    content: Any = None
    structured_content: Any = None
    references: tuple[Reference, ...] = ()
    error: ResultError | None = None
    call_id: str | None = None
    source: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when ``status == "success"``."""
        return self.status == "success"

    @classmethod
    def success(
        cls, content: Any = None, *, structured_content: Any = None, **kw: Any
    ) -> ToolResult:
        """A success with ``content`` and/or ``structured_content``."""
        return cls(status="success", content=content, structured_content=structured_content, **kw)

    @classmethod
    def failure(
        cls,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        status: ResultStatus = "failed",
        **kw: Any,
    ) -> ToolResult:
        """A non-success result with the error ``{code, message, retryable}``."""
        error = ResultError(code=code, message=message, retryable=retryable)
        return cls(status=status, error=error, **kw)


def unsafe_reason(message: str) -> str | None:
    """Why ``message`` may not reach a model, or None when it is safe."""
    if len(message) > MAX_ERROR_MESSAGE:
        return f"it is longer than {MAX_ERROR_MESSAGE} characters"
    if _CONTROL.search(message):
        return "it contains a newline or control character"
    for reason, pattern, _ in _UNSAFE:
        if pattern.search(message):
            return f"it contains {reason}"
    return None


def check_error(error: ResultError, *, tool: str = "") -> ResultError:
    """Return ``error`` when its code and message are safe, else raise.

    Raises:
        ToolError: (code ``UNSAFE_ERROR``) the code is not 1-64 chars of ``[A-Za-z0-9_.-]``, or
            the message is too long or holds control characters, a secret, an absolute path
            or a stack frame.
    """
    if not _CODE.match(error.code):
        raise ToolError(
            f"error code {error.code[:80]!r} of tool {tool!r} must be 1-64 characters of "
            "[A-Za-z0-9_.-]",
            tool=tool,
            code="UNSAFE_ERROR",
        )
    reason = unsafe_reason(error.message)
    if reason:
        raise ToolError(
            f"the error message of tool {tool!r} cannot be shown to a model because {reason}; "
            "return a short single-line message (sanitize_message() rewrites one)",
            tool=tool,
            code="UNSAFE_ERROR",
        )
    return error


def sanitize_message(text: str) -> str:
    """Rewrite arbitrary text (e.g. an exception message) into text :func:`unsafe_reason` accepts.

    Keeps the first non-empty line, redacts secrets (:func:`jdsl.trace.redact.scrub`, then the
    patterns here), absolute paths and stack frames, and caps
    the length at :data:`MAX_ERROR_MESSAGE` characters.
    """
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    out = scrub(_CONTROL.sub(" ", lines[0] if lines else ""))  # the one secret scrubber first
    for _, pattern, replacement in _UNSAFE:
        out = pattern.sub(replacement, out)
    if len(out) > MAX_ERROR_MESSAGE:
        out = out[: MAX_ERROR_MESSAGE - 3] + "..."
    return out


def error_from_exception(exc: BaseException, *, code: str = "TOOL_EXCEPTION") -> ResultError:
    """A safe :class:`ResultError` describing ``exc``: ``"<Type>: <sanitized message>"``."""
    text = sanitize_message(f"{type(exc).__name__}: {exc}")
    return ResultError(code=code, message=text or type(exc).__name__)


def check_json(value: Any, *, where: str = "value", tool: str = "") -> None:
    """Raise ``ToolError(code="INVALID_RESULT")`` unless ``value`` is plain, finite, acyclic JSON.

    Plain JSON: None, bool, int, finite float, str, lists/tuples and dicts with str keys.
    """
    _check_json(value, where, tool, set())


def _check_json(value: Any, where: str, tool: str, stack: set[int]) -> None:
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if math.isfinite(value):
            return
        raise _invalid(tool, f"{where} holds a non-finite number")
    if isinstance(value, list | tuple | Mapping):
        if id(value) in stack:
            raise _invalid(tool, f"{where} holds a cycle")
        stack.add(id(value))
        if isinstance(value, Mapping):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise _invalid(tool, f"{where} has a non-string key {key!r}")
                _check_json(item, f"{where}.{key}", tool, stack)
        else:
            for i, item in enumerate(value):
                _check_json(item, f"{where}[{i}]", tool, stack)
        stack.discard(id(value))
        return
    raise _invalid(tool, f"{where} holds a {type(value).__name__}, which is not JSON")


def _invalid(tool: str, problem: str) -> ToolError:
    return ToolError(
        f"tool {tool!r} returned an invalid result: {problem}", tool=tool, code="INVALID_RESULT"
    )


def validate_result(result: ToolResult, *, tool: str = "") -> ToolResult:
    """Check the rules every result obeys, returning it unchanged.

    Rules: ``call_id`` and ``source`` nonempty when set; a success has content, structured
    content or references; any other status has an error; content, structured content and
    metadata are plain JSON; the error is safe (:func:`check_error`).

    Raises:
        ToolError: code ``INVALID_RESULT`` or ``UNSAFE_ERROR``.
    """
    if result.call_id == "" or result.source == "":
        raise _invalid(tool, "call_id and source must be nonempty")
    if result.ok and result.content is None and result.structured_content is None:
        if not result.references:
            raise _invalid(tool, "a success needs content, structured_content or references")
    if not result.ok and result.error is None:
        raise _invalid(tool, f"a {result.status!r} result needs an error {{code, message}}")
    check_json(result.content, where="content", tool=tool)
    check_json(result.structured_content, where="structured_content", tool=tool)
    check_json(result.metadata, where="metadata", tool=tool)
    if result.error is not None:
        check_error(result.error, tool=tool)
    return result
