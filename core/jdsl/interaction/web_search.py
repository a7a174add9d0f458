"""The ``web_search`` tool with a pluggable search provider, and a Brave Search adapter.

The tool accepts ``{query, limit?}`` only: a single-line query of at most 600 characters and
75 words, and a limit of 1-20 (default 5). It needs the ``tool`` grant ``web_search`` and the
``network`` grant of the provider's exact origin. Results are normalized (title <= 256 and
snippet <= 2048 characters, whitespace collapsed, http(s) URLs without credentials) and returned
as ``structured_content = {query, results, truncated}`` plus one reference per URL. Any provider
problem becomes the one fixed ``failed / WEB_SEARCH_FAILED`` result; nothing is retried.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jdsl.errors import PermissionDenied, ProviderError
from jdsl.interaction.cancel import is_cancelled
from jdsl.interaction.registry import RegisteredTool, ToolContext
from jdsl.interaction.results import Reference, ToolResult
from jdsl.interaction.sandbox import normalize_origin

if TYPE_CHECKING:
    import httpx

__all__ = ["BraveSearchProvider", "SearchProvider", "web_search_tool"]

_FAILED = ("WEB_SEARCH_FAILED", "Web search provider failed")


class SearchProvider(Protocol):
    """A search backend: its ``origin`` (``https://host``) and ``search(query, limit)``.

    ``search`` returns records with ``title``, ``url`` and ``snippet``; it may raise anything.
    """

    origin: str

    def search(self, query: str, limit: int) -> Sequence[Mapping[str, Any]]: ...


class WebSearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    query: str = Field(min_length=1, max_length=600)
    limit: int = Field(default=5, ge=1, le=20)

    @field_validator("query")
    @classmethod
    def _bounded(cls, value: str) -> str:
        value = value.strip()
        if not value or "\n" in value or "\r" in value:
            raise ValueError("query must be one nonempty line")
        if len(value.split()) > 75:
            raise ValueError("query must have at most 75 words")
        return value


def _collapse(text: Any, limit: int) -> str:
    if not isinstance(text, str):
        raise ValueError("not a string")
    return " ".join(text.split())[:limit]


def _clean_url(url: Any) -> str:
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("not an http(s) URL")
    if parts.username or parts.password:
        raise ValueError("URL holds credentials")
    return url


def _normalize(
    records: Sequence[Mapping[str, Any]], limit: int
) -> tuple[list[dict[str, str]], bool]:
    results = [
        {
            "title": _collapse(r.get("title", ""), 256),
            "url": _clean_url(r.get("url")),
            "snippet": _collapse(r.get("snippet", ""), 2048),
        }
        for r in records
    ]
    return results[:limit], len(results) > limit


def web_search_tool(provider: SearchProvider) -> RegisteredTool:
    """The ``web_search`` tool over ``provider`` (register it explicitly).

    Raises:
        ValueError: the provider's origin is not an origin (``https://host[:port]``, path ``/``).
    """
    origin = normalize_origin(provider.origin)
    if urlsplit(provider.origin).path not in ("", "/"):
        raise ValueError(f"provider origin {provider.origin!r} must not have a path")

    def validate(arguments: dict[str, Any]) -> None:
        WebSearchArgs.model_validate(arguments)

    def execute(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        args = WebSearchArgs.model_validate(arguments)
        context.sandbox.check("network", origin)
        if is_cancelled(context.cancel):
            return ToolResult.failure(
                "WEB_SEARCH_CANCELLED", "Web search was cancelled", status="cancelled"
            )
        try:
            results, truncated = _normalize(provider.search(args.query, args.limit), args.limit)
        except PermissionDenied:
            raise
        except Exception:
            return ToolResult.failure(*_FAILED)
        return ToolResult(
            structured_content={"query": args.query, "results": results, "truncated": truncated},
            references=tuple(Reference(uri=r["url"], title=r["title"] or None) for r in results),
        )

    schema = WebSearchArgs.model_json_schema()
    schema.pop("title", None)
    return RegisteredTool(
        "web_search",
        "Search the web; returns titles, URLs and snippets.",
        schema,
        execute,
        validate=validate,
        effects=("network",),
    )


class BraveSearchProvider:
    """Brave Web Search over httpx: ``GET /res/v1/web/search?q=&count=``.

    The caller supplies the key (no ambient lookup). Redirects are refused, the response is
    capped, and no error text from the response reaches an exception.

    Args:
        api_key: the ``X-Subscription-Token``.
        base_url: the API origin.
        timeout_s: request timeout, seconds.
        max_response_bytes: responses larger than this fail.
        transport: an httpx transport (tests pass ``httpx.MockTransport``).
    """

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = "https://api.search.brave.com",
        timeout_s: float = 30.0,
        max_response_bytes: int = 1 << 20,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not api_key:
            raise ValueError("BraveSearchProvider needs an api_key")
        self.origin = normalize_origin(base_url)
        self._key = api_key
        self._timeout = timeout_s
        self._max = max_response_bytes
        self._transport = transport

    def __repr__(self) -> str:  # never show the key
        return f"BraveSearchProvider(origin={self.origin!r})"

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` ``{title, url, snippet}`` records.

        Raises:
            ProviderError: a non-2xx status, a redirect, an oversized or malformed body.
        """
        import httpx  # lazy: only a real search needs it

        with httpx.Client(
            transport=self._transport, timeout=self._timeout, follow_redirects=False
        ) as client:
            with client.stream(
                "GET",
                f"{self.origin}/res/v1/web/search",
                params={"q": query, "count": limit},
                headers={"X-Subscription-Token": self._key, "Accept": "application/json"},
            ) as response:
                if response.status_code != 200:
                    raise ProviderError(
                        f"Brave search answered HTTP {response.status_code}",
                        provider="brave",
                        status_code=response.status_code,
                    )
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > self._max:
                        raise ProviderError("Brave search response too large", provider="brave")
        return _brave_records(bytes(body))


def _brave_records(body: bytes) -> list[dict[str, Any]]:
    try:
        data = json.loads(body)
        items = data.get("web", {}).get("results", [])
        return [
            {"title": i.get("title", ""), "url": i.get("url"), "snippet": i.get("description", "")}
            for i in items
        ]
    except (ValueError, AttributeError, TypeError) as exc:
        raise ProviderError("Brave search returned malformed JSON", provider="brave") from exc
