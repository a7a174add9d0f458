"""SDK exceptions -> the provider errors of :mod:`jdsl.errors` (docs/design.md §9).

The mapping reads the HTTP status, the ``Retry-After`` header and the vendor's error code, and
builds a message of its own: it names the provider, the status and the fix, and never contains
the API key or the raw response body. The vendor's short error message is kept, redacted and
bounded, on the ``detail`` attribute for debugging (not in ``str(error)``); the vendor's code,
which the message names, passes the same scrubber (:func:`jdsl.trace.redact.scrub`) and must look
like an identifier. Mapped errors are
raised ``from None``, so the SDK exception (whose text echoes the body) is not in the traceback.

| what happened | error |
| --- | --- |
| 401 / 403 | :class:`~jdsl.errors.AuthenticationError` |
| 429 | :class:`~jdsl.errors.RateLimitError` (``retry_after_s``) |
| 408, SDK timeout, a stream cut short | :class:`~jdsl.errors.ProviderTimeout` |
| 400 / 413 naming the context window | :class:`~jdsl.errors.ContextWindowExceeded` |
| other 4xx | :class:`~jdsl.errors.BadRequest` |
| 5xx, 529, malformed JSON, a body that is not UTF-8, a 200 of another shape | :class:`~jdsl.errors.ServerError` |
"""

from __future__ import annotations

import importlib
import json
import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from types import ModuleType
from typing import Any

from jdsl.errors import (
    AuthenticationError,
    BadRequest,
    ContextWindowExceeded,
    MissingDependencyError,
    ProviderError,
    ProviderTimeout,
    RateLimitError,
    ServerError,
)
from jdsl.trace.addresses import redact_address
from jdsl.trace.redact import scrub

__all__ = [
    "incomplete_stream",
    "malformed_response",
    "map_sdk_error",
    "mapped_errors",
    "parse_retry_after",
    "parsing_response",
    "require_sdk",
    "response_data",
]

_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "context window",
    "context length",
    "prompt is too long",
    "maximum context",
    "too many tokens",
    "exceeds the maximum number of tokens",
)
_DETAIL_LIMIT = 300
_CODE_LIMIT = 64
_CODE = re.compile(r"[A-Za-z0-9_.\-]+")
_TRUNCATION = ("RemoteProtocolError", "ReadError", "IncompleteRead", "ChunkedEncodingError")
_MALFORMED = ("JSONDecodeError", "APIResponseValidationError", "UnknownApiResponseError")


def require_sdk(module: str, extra: str) -> ModuleType:
    """Import an SDK lazily; a missing one raises MissingDependencyError naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(module, extra) from None


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date).

    Returns a finite number >= 0, or None: ``nan``, ``inf`` and ``1e309`` are no wait at all.
    """
    if not headers:
        return None
    millis = _finite(headers.get("retry-after-ms"))
    if millis is not None:
        return max(millis / 1000.0, 0.0)
    value = headers.get("retry-after")
    if not value:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def malformed_response(provider: str, what: str = "not the JSON it documents") -> ServerError:
    """The error for a 200 answer that is not the vendor's documented shape (HTML, a list...)."""
    return ServerError(
        f"{provider} returned a malformed response ({what}); retry the call, and check the "
        "base URL points at the provider's API.",
        provider=provider,
        code="INVALID_MODEL_OUTPUT",
    )


def response_data(provider: str, response: Any, *, required: str | None) -> dict[str, Any]:
    """An SDK response object as a JSON dict that has the list field ``required`` (if named).

    Raises:
        ServerError: the SDK handed back text (an HTML page), a list, or an object without
            ``required`` (``INVALID_MODEL_OUTPUT``).
    """
    dump = getattr(response, "model_dump", None)
    data = dump(mode="json", exclude_none=True) if callable(dump) else None
    if not isinstance(data, dict):
        raise malformed_response(provider, "not a JSON object")
    if required is not None and not isinstance(data.get(required), list):
        raise malformed_response(provider, f"no {required!r} list")
    return data


@contextmanager
def parsing_response(provider: str) -> Iterator[None]:
    """Read a vendor's answer: a shape it does not document (a missing key, a wrong type, a
    stream event for a block never opened) is a :class:`ServerError`, not a KeyError."""
    try:
        yield
    except ProviderError:
        raise
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
        raise malformed_response(provider, f"{type(exc).__name__} reading it") from None


def _finite(text: str | None) -> float | None:
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def incomplete_stream(provider: str, missing: str) -> ProviderTimeout:
    """The error for a stream that ended before its end marker."""
    return ProviderTimeout(
        f"{provider} stream ended before {missing}; the response is incomplete. "
        "Retry the call, or raise timeout_s if the connection is slow.",
        provider=provider,
        code="INCOMPLETE_MODEL_OUTPUT",
    )


@contextmanager
def mapped_errors(
    provider: str, *, key_env: str, secrets: tuple[str, ...] = (), base_url: str | None = None
) -> Iterator[None]:
    """Run SDK calls, turning their exceptions into jdsl provider errors (raised ``from None``)."""
    try:
        yield
    except ProviderError:
        raise
    except Exception as exc:
        mapped = map_sdk_error(
            exc, provider=provider, key_env=key_env, secrets=secrets, base_url=base_url
        )
        if mapped is None:
            raise
        raise mapped from None


def map_sdk_error(
    exc: BaseException,
    *,
    provider: str,
    key_env: str = "",
    secrets: tuple[str, ...] = (),
    base_url: str | None = None,
) -> ProviderError | None:
    """The jdsl error for an SDK / transport exception, or None when it is not a provider error.

    Args:
        exc: what the SDK (anthropic, openai, google-genai) or httpx raised.
        provider: the provider name used in the message.
        key_env: the env var that holds the key (named in authentication errors).
        secrets: strings (API keys) to scrub from the kept ``detail``.
        base_url: the address called, named (redacted) when nothing answers there.
    """
    name = type(exc).__name__
    cause = exc.__cause__ or exc.__context__
    if name in _MALFORMED or isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return malformed_response(provider)
    if "Timeout" in name:
        return ProviderTimeout(
            f"{provider} did not answer in time; raise timeout_s or retry.", provider=provider
        )
    if name in _TRUNCATION or (cause is not None and type(cause).__name__ in _TRUNCATION):
        return incomplete_stream(provider, "the connection closed")
    if "Connect" in name:
        where = f" at {redact_address(base_url)}" if base_url else ""
        return ProviderError(
            f"could not connect to {provider}{where}; check the base URL (is a server "
            "listening there?) and the network.",
            provider=provider,
            retryable=True,
        )
    status = _status_of(exc)
    if status is not None and status >= 400:
        return _from_status(exc, status, provider, key_env, secrets)
    return _from_body(exc, provider, secrets) if _is_sdk_error(exc) else None


def _is_sdk_error(exc: BaseException) -> bool:
    module = type(exc).__module__
    return module.startswith(("anthropic", "openai", "google.genai", "httpx"))


def _status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
    return None


def _headers_of(exc: BaseException) -> Mapping[str, str] | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) or hasattr(headers, "get") else None


def _vendor_error(exc: BaseException) -> tuple[str, str]:
    """(code, message) from the parsed error body, whatever the vendor's nesting."""
    body: Any = getattr(exc, "body", None)
    if body is None:
        body = getattr(exc, "details", None)
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    if not isinstance(body, Mapping):
        message = getattr(exc, "message", None)
        return "", message if isinstance(message, str) else ""
    code = body.get("type") or body.get("code") or body.get("status") or ""
    message = body.get("message") or ""
    return str(code), str(message)


def _vendor_text(exc: BaseException, secrets: tuple[str, ...]) -> tuple[str, str]:
    """(code, detail) fit for an exception: both scrubbed; a code that is not an identifier
    (``"bad key sk-..."``) is shown as ``unrecognized code``, and kept scrubbed on the detail."""
    code, message = _vendor_error(exc)
    code = scrub(code, secrets, limit=_CODE_LIMIT)
    if code and not _CODE.fullmatch(code):
        message, code = f"{code}: {message}" if message else code, "unrecognized code"
    return code, scrub(message, secrets, limit=_DETAIL_LIMIT)


def _from_body(exc: BaseException, provider: str, secrets: tuple[str, ...]) -> ProviderError:
    """An error without an HTTP error status (an error event mid-stream): classify by code."""
    code, detail = _vendor_text(exc, secrets)
    if "rate_limit" in code.lower() or code == "RESOURCE_EXHAUSTED":
        return RateLimitError(
            f"{provider} rate limit hit mid-stream; wait and retry.",
            provider=provider,
            detail=detail,
        )
    return ServerError(
        f"{provider} reported an error mid-stream ({code or 'unknown'}); retry the call.",
        provider=provider,
        code=code,
        detail=detail,
    )


def _from_status(
    exc: BaseException, status: int, provider: str, key_env: str, secrets: tuple[str, ...]
) -> ProviderError:
    code, message = _vendor_text(exc, secrets)
    fields: dict[str, Any] = {
        "provider": provider,
        "status_code": status,
        "code": code,
        "detail": message,
    }
    where = f"{provider} answered HTTP {status}"
    if status in (401, 403):
        fix = f"set {key_env} to a valid key" if key_env else "pass a valid api_key"
        return AuthenticationError(f"{where}: the API key was rejected; {fix}.", **fields)
    if status == 429:
        wait = parse_retry_after(_headers_of(exc))
        hint = f"retry after {wait:g}s" if wait is not None else "wait and retry"
        return RateLimitError(f"{where}: rate limited; {hint}.", retry_after_s=wait, **fields)
    if status == 408:
        return ProviderTimeout(f"{where}: request timed out; retry.", **fields)
    if status >= 500:
        return ServerError(f"{where}: the provider failed; retry later.", **fields)
    if status == 413 or any(m in f"{code} {message}".lower() for m in _CONTEXT_MARKERS):
        return ContextWindowExceeded(
            f"{where}: the prompt does not fit the model's context window; shorten the "
            "conversation or the inputs, or choose a model with a larger window.",
            **fields,
        )
    return BadRequest(
        f"{where}: the request was rejected ({code or 'bad request'}); see .detail.", **fields
    )
