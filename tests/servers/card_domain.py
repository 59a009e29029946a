"""A domain on 127.0.0.1 for Server Card tests: its well-known catalog, its cards and a real MCP server.

`populate` publishes one server ("weather") whose card describes the MCP endpoint of this same origin
with a secret header and a URL variable, and whose card disagrees with what the server says about
itself (its version, its title): what a card claims is advisory. Every document is a `Served` in
`files` (path -> body, status, headers, ETag, Cache-Control), so a test can turn any of them hostile:
huge, streamed without a length, redirected to another origin. What reached the domain is recorded:
each request's path and headers, and the headers the MCP endpoint received.

It runs uvicorn in a thread, so it answers while a test's event loop is busy or a subprocess is the client.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

CATALOG_PATH = "/.well-known/mcp/catalog.json"
CARD_TYPE = "application/mcp-server-card+json"
SCHEMA_V1 = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
SERVER_NAME = "weather-server"
SERVER_VERSION = "1.0.0"
CARD_VERSION = "2.0.0"


@dataclass
class Served:
    """One document: a JSON body (or raw bytes, or `stream` bytes sent in chunks with no length)."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    etag: str | None = None
    cache_control: str | None = None
    stream: int = 0
    """Send this many bytes of JSON-looking text in chunks, without a Content-Length."""


@dataclass
class CardDomain:
    """The domain's state; edit `files` and read `requests` / `mcp_headers` freely."""

    files: dict[str, Served] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    mcp_headers: list[dict[str, str]] = field(default_factory=list)
    url: str = ""

    @property
    def host(self) -> str:
        """`127.0.0.1:PORT`, as a user types the domain."""
        return self.url.split("://", 1)[1]

    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]

    async def answer(self, request: Request) -> Response:
        path = request.url.path
        self.requests.append((path, dict(request.headers.items())))
        served = self.files.get(path)
        if served is None:
            return Response(b'{"error": "not found"}', 404, media_type="application/json")
        headers = dict(served.headers)
        if served.etag is not None:
            headers["ETag"] = served.etag
        if served.cache_control is not None:
            headers["Cache-Control"] = served.cache_control
        if served.etag is not None and request.headers.get("if-none-match") == served.etag:
            return Response(status_code=304, headers=headers)
        if served.stream:
            return StreamingResponse(_chunks(served.stream), served.status, headers, media_type="application/json")
        body = served.body if isinstance(served.body, bytes) else json.dumps(served.body).encode()
        media = headers.pop("Content-Type", "application/json")
        return Response(body, served.status, headers, media_type=media)


async def _chunks(size: int) -> AsyncIterator[bytes]:
    yield b'{"entries": ["'
    chunk = b"x" * 65536
    for _ in range(size // len(chunk)):
        yield chunk
    yield b'"]}'


def card(domain: CardDomain, **changes: Any) -> dict[str, Any]:
    """The weather card: this origin's /mcp with a secret header and a region variable in the URL."""
    document: dict[str, Any] = {
        "$schema": SCHEMA_V1,
        "name": "io.example/weather",
        "version": CARD_VERSION,
        "description": "Forecasts for any city.",
        "title": "Weather",
        "websiteUrl": "https://weather.example",
        "repository": {"url": "https://github.com/example/weather", "source": "github"},
        "remotes": [
            {
                "type": "streamable-http",
                "url": domain.url + "/mcp?region={region}",
                "headers": [
                    {
                        "name": "X-Api-Key",
                        "description": "Your key from the weather site.",
                        "isRequired": True,
                        "isSecret": True,
                    }
                ],
                "variables": {"region": {"description": "Where you are", "default": "eu", "choices": ["eu", "us"]}},
                "supportedProtocolVersions": ["2025-11-25", "2026-07-28"],
            }
        ],
    }
    document.update(changes)
    return document


def catalog(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"specVersion": "1.0", "entries": list(entries)}


def entry(url: str, identifier: str = "urn:air:example:mcp:weather", **extra: Any) -> dict[str, Any]:
    return {"identifier": identifier, "displayName": "Weather", "type": CARD_TYPE, "url": url, **extra}


def populate(domain: CardDomain) -> None:
    """One server on the domain: the catalog and the weather card, both cacheable with ETags."""
    domain.files[CATALOG_PATH] = Served(
        catalog(entry(domain.url + "/cards/weather")), etag='"cat-1"', cache_control="max-age=60"
    )
    domain.files["/cards/weather"] = Served(
        card(domain), etag='"card-1"', cache_control="public, max-age=3600", headers={"Content-Type": CARD_TYPE}
    )


def _mcp_server() -> MCPServer:
    server = MCPServer(SERVER_NAME, title="Weather (beta)", version=SERVER_VERSION)

    @server.resource("weather://today", mime_type="text/plain")
    def today() -> str:
        return "sunny"

    return server


def _bind() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def running_domain(domain: CardDomain | None = None, *, populated: bool = True) -> Iterator[CardDomain]:
    """Serve the domain on a free loopback port for the duration of the block."""
    domain = domain or CardDomain()
    sock = _bind()
    domain.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    if populated:
        populate(domain)
    inner = _mcp_server().streamable_http_app(host="127.0.0.1")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await inner(scope, receive, send)
        elif scope["type"] == "http" and scope["path"] == "/mcp":
            domain.mcp_headers.append({k.decode(): v.decode() for k, v in scope["headers"]})
            await inner(scope, receive, send)
        elif scope["type"] == "http":
            response = await domain.answer(Request(scope, receive))
            await response(scope, receive, send)

    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="card-domain", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the card domain did not start")
        time.sleep(0.01)
    try:
        yield domain
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
