"""The faults the test OAuth servers can have: each option breaks one thing a client must survive.

`Faults` is mixed into `OAuthOptions` (`oauth_server`), so a test asks for one broken piece by
name. Oversized answers are streamed (`PaddedAnswer`), so only a client that stops reading is
spared them; the others are plain wrong answers, each where a real server gets it wrong.
"""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.lowlevel
from starlette.responses import JSONResponse, PlainTextResponse, Response


@dataclass
class Faults:
    """One field per fault; the defaults are a server that works."""

    # discovery
    metadata_malformed: bool = False
    metadata_status: int | None = None
    metadata_issuer: str | None = None
    """The authorization server's metadata names this issuer instead of its own."""
    resource_override: str | None = None
    """The protected-resource metadata names this resource instead of the MCP server's URL."""
    as_down: bool = False
    endpoints_at: str | None = None
    """Another origin for the endpoints the metadata names (e.g. plain HTTP elsewhere, which must be refused)."""
    # the browser step
    iss_override: str | None = None
    state_override: str | None = None
    deny: bool = False
    redirect_refused: bool = False
    """The authorization page refuses every redirect URI (HTTP 400, never a redirect back)."""
    # registration and tokens
    registration_refused: bool = False
    token_error: str | None = None
    token_error_description: str = "the token endpoint refuses"
    token_status: int | None = None
    """The token endpoint answers every request with this status and a short error page."""
    withhold_scopes: tuple[str, ...] = ()
    """Scopes the authorization server never grants, whatever is asked (a server that keeps refusing)."""
    # the MCP server
    session_first: bool = False
    """A 2025-era server that checks the session before the token: any request but `initialize`
    without a session (`server/discover` and `ping` too) gets 400, and no sign-in hints."""
    reject_tokens: bool = False
    """The MCP server refuses every token, even one its authorization server just issued."""
    scoped_methods: dict[str, str] = field(default_factory=dict)
    """JSON-RPC methods (e.g. `tools/list`) refused with 403 `insufficient_scope` without this scope."""
    # oversized answers
    token_size: int = 0
    """When set, access tokens this many characters long, the token response streamed in chunks."""
    metadata_size: int = 0
    """When set, authorization server metadata padded to about this many bytes, streamed in chunks."""
    declare_length: bool = False
    """Padded answers say their length up front (else they are chunked and the client finds out)."""
    metadata_gzip_bomb: int = 0
    """When set, metadata padded to this many bytes and gzip-compressed, whatever the client accepts."""


def broken_metadata(faults: Faults, issuer: str) -> Response | None:
    """The authorization server's metadata answer when it is broken as a whole, else None."""
    if faults.metadata_status is not None:
        return PlainTextResponse("unavailable", status_code=faults.metadata_status)
    if faults.metadata_malformed:
        return Response('{"issuer": "' + issuer + '", "authorization_endpoint": ', media_type="application/json")
    return None


def gzip_bomb(document: dict[str, Any], size: int) -> Response:
    padded = json.dumps({**document, "padding": "A" * size}).encode()
    bomb = gzip.compress(padded, compresslevel=9)
    return Response(bomb, media_type="application/json", headers={"Content-Encoding": "gzip"})


def failing_token_endpoint(status: int) -> Response:
    return JSONResponse(
        {"error": "server_error", "error_description": "the token service is down for maintenance"},
        status_code=status,
    )


def refused_redirect() -> Response:
    return PlainTextResponse("invalid_request: redirect_uri is not registered for this client", status_code=400)


@dataclass
class Stream:
    """An oversized answer being sent: how much went out, and whether all of it did."""

    size: int
    sent: int = 0
    completed: bool = False
    ended: threading.Event = field(default_factory=threading.Event)


def streamed(document: dict[str, Any], padded: str, stream: Stream, *, declare_length: bool) -> Response:
    """`document` as JSON with the string field `padded` `stream.size` characters long, sent in chunks."""
    head, tail = json.dumps({**document, padded: "\0"}).encode().split(b"\\u0000")
    return PaddedAnswer(head, tail, stream, declare_length=declare_length)


class PaddedAnswer(Response):
    """A JSON answer with `stream.size` bytes of padding in the middle, sent 64 KiB at a time for as
    long as the client keeps the connection (uvicorn drops what is sent after a hang-up silently, so
    the hang-up is watched for here)."""

    def __init__(self, head: bytes, tail: bytes, stream: Stream, *, declare_length: bool) -> None:
        self.head, self.tail, self.stream = head, tail, stream
        self.length = len(head) + stream.size + len(tail) if declare_length else None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        stream = self.stream
        hung_up = anyio.Event()

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            hung_up.set()

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(watch)
                headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
                if self.length is not None:
                    headers.append((b"content-length", str(self.length).encode()))
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": self.head, "more_body": True})
                chunk = b"A" * 65536
                while stream.sent < stream.size and not hung_up.is_set():
                    part = chunk[: stream.size - stream.sent]
                    await send({"type": "http.response.body", "body": part, "more_body": True})
                    stream.sent += len(part)
                    await anyio.lowlevel.checkpoint()  # lets the watcher see a hang-up
                if not hung_up.is_set():
                    await send({"type": "http.response.body", "body": self.tail, "more_body": False})
                    stream.completed = True
                group.cancel_scope.cancel()
        finally:
            stream.ended.set()
