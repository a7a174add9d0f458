from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from jdsl.errors import PermissionDenied, ProviderError, ToolError
from jdsl.interaction import BraveSearchProvider, Sandbox, ToolRegistry, web_search_tool
from jdsl.providers.messages import ToolCall

ORIGIN = "https://search.example.com"


class FakeProvider:
    origin = ORIGIN

    def __init__(self, records: Any = None, error: Exception | None = None) -> None:
        self.records = (
            records
            if records is not None
            else [
                {
                    "title": "  Jupyter \n  Project ",
                    "url": "https://jupyter.org/",
                    "snippet": "é" * 3000,
                },
            ]
        )
        self.error = error
        self.calls: list[tuple[str, int]] = []

    def search(self, query: str, limit: int) -> Any:
        self.calls.append((query, limit))
        if self.error:
            raise self.error
        return self.records


def registry(provider: Any, network: list[str] | None = None) -> ToolRegistry:
    grants = {"tool": ["web_search"], "network": [ORIGIN] if network is None else network}
    return ToolRegistry([web_search_tool(provider)], sandbox=Sandbox(grants=grants))


def search(reg: ToolRegistry, **arguments: Any):
    return reg.call(ToolCall(id="s1", name="web_search", arguments=arguments))


def test_results_are_normalized_with_references() -> None:
    provider = FakeProvider()
    result = search(registry(provider), query="  jupyter  ")
    assert provider.calls == [("jupyter", 5)]
    record = result.structured_content["results"][0]
    assert record["title"] == "Jupyter Project" and len(record["snippet"]) == 2048
    assert [r.uri for r in result.references] == ["https://jupyter.org/"]
    assert result.content is None


@pytest.mark.parametrize(
    "arguments",
    [{"query": ""}, {"query": "a\nb"}, {"query": "x" * 601}, {"query": "w " * 76},
     {"query": "q", "limit": 0}, {"query": "q", "limit": 21}, {"query": "q", "safe": True}],
)  # fmt: skip
def test_input_bounds(arguments: dict) -> None:
    provider = FakeProvider()
    with pytest.raises(ToolError):
        search(registry(provider), **arguments)
    assert provider.calls == []


def test_network_origin_must_be_granted() -> None:
    provider = FakeProvider()
    with pytest.raises(PermissionDenied, match="network"):
        search(registry(provider, network=["https://other.example.com"]), query="q")
    assert provider.calls == []


@pytest.mark.parametrize(
    "provider",
    [FakeProvider(error=RuntimeError("boom at /srv/x with sk-secret123")),
     FakeProvider(records=[{"title": "t", "url": "ftp://x", "snippet": ""}]),
     FakeProvider(records=[{"title": "t", "url": "https://u:p@x.com", "snippet": ""}]),
     FakeProvider(records=[{"title": 5, "url": "https://x.com", "snippet": ""}])],
)  # fmt: skip
def test_any_provider_problem_is_one_fixed_failure(provider: FakeProvider) -> None:
    result = search(registry(provider), query="q")
    assert result.status == "failed"
    assert result.error.model_dump() == {
        "code": "WEB_SEARCH_FAILED", "message": "Web search provider failed", "retryable": False,
    }  # fmt: skip
    assert len(provider.calls) == 1  # no retry


def brave(handler: Any) -> BraveSearchProvider:
    return BraveSearchProvider("key-123", transport=httpx.MockTransport(handler))


def test_brave_request_shape_and_parsing() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = {"web": {"results": [{"title": "T", "url": "https://a.com", "description": "D"}]}}
        return httpx.Response(200, json=body)

    records = brave(handler).search("hello world", 3)
    assert records == [{"title": "T", "url": "https://a.com", "snippet": "D"}]
    request = seen[0]
    assert request.url.path == "/res/v1/web/search"
    assert dict(request.url.params) == {"q": "hello world", "count": "3"}
    assert request.headers["X-Subscription-Token"] == "key-123"
    assert "key-123" not in repr(brave(handler))


@pytest.mark.parametrize(
    "response",
    [httpx.Response(503, text="internal detail"),
     httpx.Response(302, headers={"Location": "https://evil.com"}),
     httpx.Response(200, text="not json"),
     httpx.Response(200, content=b"x" * (2 << 20))],
)  # fmt: skip
def test_brave_errors_hide_bodies(response: httpx.Response) -> None:
    with pytest.raises(ProviderError) as exc:
        brave(lambda request: response).search("q", 1)
    assert "internal detail" not in str(exc.value)


def test_brave_failure_through_the_tool_is_fixed() -> None:
    provider = brave(lambda request: httpx.Response(500, json={"error": "x"}))
    reg = ToolRegistry(
        [web_search_tool(provider)],
        sandbox=Sandbox(grants={"tool": ["*"], "network": [provider.origin]}),
    )
    result = reg.call(ToolCall(id="s", name="web_search", arguments={"query": "q"}))
    assert result.error.code == "WEB_SEARCH_FAILED"
    assert json.dumps(result.model_dump()).count("500") == 0
