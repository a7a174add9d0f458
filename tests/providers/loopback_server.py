"""A loopback HTTP server that speaks the Anthropic, OpenAI and Gemini wire formats.

One threaded ``http.server`` on 127.0.0.1 answers all three APIs; the official SDK clients are
pointed at it. Each vendor module (``loopback_anthropic``, ``loopback_openai``,
``loopback_gemini``) checks authentication, enforces the vendor's conversation rules (400 on a
violation, as the real API does) and renders a scripted :class:`Reply` as JSON or as SSE.

Streams are written in small pieces (``chunk_size`` bytes, default 7) with CRLF line endings,
so the clients' decoders meet frames split inside UTF-8 characters and between CR and LF.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import loopback_anthropic
import loopback_gemini
import loopback_openai

__all__ = ["Failure", "LoopbackServer", "Raw", "Recorded", "Reply", "Stall", "Truncated"]


@dataclass
class Reply:
    """A model answer, rendered in whichever wire format the request used.

    ``finish`` is neutral: "stop", "length", "tool_call" or "filter". ``usage`` keys: input,
    output, cached, cache_creation, reasoning (absent keys are not sent).
    """

    text: str = ""
    tool_calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    finish: str | None = None
    usage: dict[str, int] = field(default_factory=lambda: {"input": 11, "output": 7})
    thinking: tuple[str, str] | None = None  # (thinking text, signature)
    native_ids: bool = True  # Gemini: send functionCall ids

    @property
    def finish_reason(self) -> str:
        return self.finish or ("tool_call" if self.tool_calls else "stop")


@dataclass
class Failure:
    """An HTTP error response."""

    status: int
    body: bytes = b'{"error": {"type": "api_error", "message": "RAW-BODY-MARKER"}}'
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Raw:
    """A 200 response with an arbitrary body (malformed JSON, a broken stream...)."""

    body: bytes
    content_type: str = "application/json"


@dataclass
class Truncated:
    """A stream cut short: ``cut="marker"`` drops the end marker and closes cleanly;
    ``cut="connection"`` promises more bytes than it sends (a dropped connection)."""

    reply: Reply
    cut: str = "marker"


@dataclass
class Stall:
    """Answer only after ``seconds`` (to trip the client's timeout)."""

    seconds: float
    then: Any = None


@dataclass
class Recorded:
    """One request the server received."""

    vendor: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


VENDORS = {"anthropic": loopback_anthropic, "openai": loopback_openai, "gemini": loopback_gemini}


def _vendor(path: str) -> str | None:
    if path.startswith("/v1/messages"):
        return "anthropic"
    if path.startswith("/v1/chat/completions"):
        return "openai"
    if path.startswith("/v1beta/models/"):
        return "gemini"
    return None


class LoopbackServer:
    """The server, its script queue and the requests it saw. Use as a context manager."""

    def __init__(self, api_key: str = "sk-loopback-SECRET-0123456789", chunk_size: int = 7) -> None:
        self.api_key = api_key
        self.chunk_size = chunk_size
        self.crlf = True
        self.requests: list[Recorded] = []
        self._script: deque[Any] = deque()
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def url(self, vendor: str) -> str:
        """The base URL each SDK expects for this vendor."""
        return self.root + ("/v1" if vendor == "openai" else "")

    def script(self, *items: Any) -> LoopbackServer:
        """Queue responses (Reply, Failure, Raw, Truncated), answered in order."""
        with self._lock:
            self._script.extend(items)
        return self

    def reset(self) -> None:
        """Forget the script and the recorded requests; default stream chunking."""
        with self._lock:
            self._script.clear()
        self.requests.clear()
        self.chunk_size, self.crlf = 7, True

    def next_item(self) -> Any:
        with self._lock:
            return (
                self._script.popleft() if self._script else Failure(599, b'{"error":"unscripted"}')
            )

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a timeout, a closed stream) is not a server failure."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            vendor = _vendor(self.path)
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if vendor is None:
                return self._send(404, b'{"error": "no such endpoint"}')
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                return self._send(400, b'{"error": "request body is not JSON"}')
            headers = {k.lower(): v for k, v in self.headers.items()}
            server.requests.append(Recorded(vendor, self.path, headers, body))
            wire = VENDORS[vendor]
            problem = wire.check_auth(headers, self.path, server.api_key) or wire.validate(
                body, self.path
            )
            if problem is not None:
                status, error = problem
                return self._send(status, json.dumps(error).encode())
            self._answer(wire, body, server.next_item())

        def _answer(self, wire: Any, body: dict[str, Any], item: Any) -> None:
            if isinstance(item, Stall):
                time.sleep(item.seconds)
                item = item.then or Reply(text="late")
            if isinstance(item, Failure):
                return self._send(item.status, item.body, item.headers)
            if isinstance(item, Raw):
                return self._send(200, item.body, {"content-type": item.content_type})
            truncated = isinstance(item, Truncated)
            reply = item.reply if truncated else item
            if not wire.is_stream(body, self.path):
                return self._send(200, json.dumps(wire.render(reply, body, self.path)).encode())
            frames = wire.frames(reply, body, self.path)
            if truncated and item.cut == "marker":
                frames = frames[: -wire.END_FRAMES]
            self._stream(frames, cut=truncated and item.cut == "connection")

        def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            headers = {"content-type": "application/json", **(headers or {})}
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, frames: list[str], *, cut: bool) -> None:
            newline = "\r\n" if server.crlf else "\n"
            text = "".join(f.replace("\n", newline) + newline + newline for f in frames)
            data = text.encode()
            if cut:
                data = data[: len(data) // 2]
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            if cut:
                self.send_header("content-length", str(len(data) * 2))
            self.end_headers()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for start in range(0, len(data), server.chunk_size):
                self.wfile.write(data[start : start + server.chunk_size])
                self.wfile.flush()
                time.sleep(0.0001)

    return Handler
