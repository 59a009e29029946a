"""An OAuth-protected MCP server and its authorization server, real HTTP on 127.0.0.1, for sign-in tests.

The MCP side is the SDK's streamable HTTP server behind a bearer check; the authorization server
(`oauth_authorization`) is a small real implementation. `OAuthOptions` picks among the discovery
variants the specification allows and, through `oauth_faults`, the faults a client must survive.
The test browsers are in `oauth_browsers`; an organisation's identity provider, whose ID-JAGs
the authorization server can be told to take, in `identity_provider`.

Each origin runs in a uvicorn server on a thread of its own (`threaded_asgi`), so the servers
answer whatever the test's event loop is doing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.servers.oauth_authorization import READ_SCOPE, AuthorizationServer, Client, Grant
from tests.servers.oauth_browsers import FollowingBrowser, ForgingBrowser, forge_callbacks, query_of
from tests.servers.oauth_faults import (
    Faults,
    Stream,
)
from tests.servers.threaded_asgi import LOOPBACK, bind, serving

__all__ = [
    "READ_SCOPE",
    "Client",
    "FollowingBrowser",
    "ForgingBrowser",
    "OAuthOptions",
    "OAuthTestServer",
    "forge_callbacks",
    "query_of",
]

ADMIN_TOOL = "admin_tool"
ADMIN_SCOPE = "mcp:admin"
ASGIApp = Callable[
    [dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]],
    Awaitable[None],
]


@dataclass
class OAuthOptions(Faults):
    """The discovery variants the specification allows (here), and the faults (`Faults`)."""

    prm: Literal["header", "path", "root", "none"] = "header"
    """Where the protected-resource metadata is: named in the 401's header only, at the path-aware
    well-known URL, at the root one, or nowhere (a 2025-03-26 server)."""
    metadata: Literal["oauth", "oidc-insert", "oidc-append", "none"] = "oauth"
    """How the authorization server publishes its metadata (RFC 8414, or OpenID discovery either way)."""
    issuer_path: str = ""
    """A path in the issuer (e.g. "/tenant1"), for path-aware discovery."""
    separate_as: bool = True
    """The authorization server on an origin of its own (else on the MCP server's)."""
    resource_scopes: tuple[str, ...] | None = (READ_SCOPE,)
    server_scopes: tuple[str, ...] = (READ_SCOPE, ADMIN_SCOPE, "offline_access", "profile")
    challenge_scope: str | None = READ_SCOPE
    dcr: bool = True
    cimd: bool = False
    pkce: bool = True
    send_iss: bool = True
    advertise_iss: bool = True
    access_ttl: int = 3600
    issue_refresh: bool = True
    revocation: bool = True
    sse: bool = False
    """Serve MCP over the legacy SSE transport (`/sse` + `/messages/`) instead of streamable HTTP."""
    idp: Any = None
    """An identity provider whose ID-JAGs the authorization server takes (the JWT bearer grant, SEP-990)."""


@dataclass
class Requests:
    """What the authorization server was sent, for assertions."""

    authorize: list[dict[str, str]] = field(default_factory=list)
    token: list[dict[str, str]] = field(default_factory=list)
    register: list[dict[str, Any]] = field(default_factory=list)
    revoke: list[dict[str, str]] = field(default_factory=list)
    metadata: list[str] = field(default_factory=list)
    mcp_statuses: list[int] = field(default_factory=list)
    mcp: list[tuple[str, int]] = field(default_factory=list)
    """Each MCP request's JSON-RPC method and the status it got."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """The headers of every request the authorization server (on its own origin) got."""


class OAuthTestServer(AuthorizationServer):
    """Both servers; `url` is the MCP endpoint, `issuer` the authorization server's identifier."""

    def __init__(self, options: OAuthOptions | None = None) -> None:
        self.options = options or OAuthOptions()
        self.clients: dict[str, Client] = {}
        self.cimd_documents: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, Grant] = {}
        self.access_tokens: dict[str, Grant] = {}
        self.refresh_tokens: dict[str, Grant] = {}
        self.requests = Requests()
        self.streams: list[Stream] = []
        self._sockets = [bind(), bind()]
        self.rs_port = self._sockets[0].getsockname()[1]
        self.as_port = self._sockets[1].getsockname()[1] if self.options.separate_as else self.rs_port
        self.rs_origin = f"http://{LOOPBACK}:{self.rs_port}"
        self.as_origin = f"http://{LOOPBACK}:{self.as_port}"
        self.url = f"{self.rs_origin}/sse" if self.options.sse else f"{self.rs_origin}/mcp"
        self.issuer = self.as_origin + self.options.issuer_path

    # -- set-up helpers for tests ----------------------------------------------------------

    def revoke_refresh_tokens(self) -> None:
        self.refresh_tokens.clear()

    def expire_access_tokens(self) -> None:
        for grant in self.access_tokens.values():
            grant.expires_at = time.time() - 1

    def statuses_of(self, method: str) -> list[int]:
        """The statuses the MCP server answered `method` with, in order."""
        return [status for name, status in self.requests.mcp if name == method]

    # -- running ---------------------------------------------------------------------------

    @contextmanager
    def running(self) -> Iterator[OAuthTestServer]:
        apps: list[tuple[Any, Any]] = [(self._resource_app(), self._sockets[0])]
        if self.options.separate_as:
            apps.append((self._authorization_app(), self._sockets[1]))
        else:
            self._sockets[1].close()
        with serving(*apps):
            yield self

    # -- the MCP server (resource server) --------------------------------------------------

    def _resource_app(self) -> ASGIApp:
        mcp = MCPServer("oauth-fixture")

        @mcp.tool()
        def whoami() -> str:
            return "a signed-in user"

        @mcp.tool(name=ADMIN_TOOL)
        def admin_tool() -> str:
            return "admin work done"

        @mcp.resource("auth://note", mime_type="text/plain")
        def note() -> str:
            return "a note only signed-in users read"

        inner = mcp.sse_app() if self.options.sse else mcp.streamable_http_app()
        guarded = ("/sse", "/messages/") if self.options.sse else ("/mcp",)
        own = Starlette(
            routes=self._metadata_routes(resource=True) + (self._as_routes() if not self.options.separate_as else [])
        )

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "lifespan":
                await inner(scope, receive, send)
            elif scope["type"] == "http" and scope["path"] in guarded:
                await self._guarded(inner, scope, receive, send)
            else:
                await own(scope, receive, send)

        return app

    def _metadata_routes(self, *, resource: bool) -> list[Route]:
        routes: list[Route] = []
        if resource:
            kind = self.options.prm
            if kind == "header":
                routes.append(Route("/meta/resource.json", self._prm))
            elif kind == "path":
                routes.append(Route(f"/.well-known/oauth-protected-resource{urlsplit(self.url).path}", self._prm))
            elif kind == "root":
                routes.append(Route("/.well-known/oauth-protected-resource", self._prm))
        if not resource or not self.options.separate_as:  # authorization server metadata, where it lives
            path = self.options.issuer_path
            where = {
                "oauth": f"/.well-known/oauth-authorization-server{path}",
                "oidc-insert": f"/.well-known/openid-configuration{path}",
                "oidc-append": f"{path}/.well-known/openid-configuration",
            }.get(self.options.metadata)
            if where is not None:
                routes.append(Route(where, self._as_metadata))
        return routes

    @property
    def _prm_url(self) -> str:
        return {
            "header": f"{self.rs_origin}/meta/resource.json",
            "path": f"{self.rs_origin}/.well-known/oauth-protected-resource{urlsplit(self.url).path}",
        }.get(self.options.prm, f"{self.rs_origin}/.well-known/oauth-protected-resource")

    async def _prm(self, request: Request) -> Response:
        servers = [f"http://{LOOPBACK}:1{self.options.issuer_path}" if self.options.as_down else self.issuer]
        document: dict[str, Any] = {
            "resource": self.options.resource_override or self.url,
            "authorization_servers": servers,
        }
        if self.options.resource_scopes is not None:
            document["scopes_supported"] = list(self.options.resource_scopes)
        return JSONResponse(document)

    async def _guarded(self, inner: Any, scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        authorization = headers.get("authorization", "")
        token = authorization[7:] if authorization.lower().startswith("bearer ") else None
        grant = self.access_tokens.get(token) if token else None
        method = _method(body)
        needed = self.options.scoped_methods.get(method)
        if self.options.session_first and method != "initialize" and "mcp-session-id" not in headers:
            self.requests.mcp.append((method, 400))
            await PlainTextResponse("Bad Request: no valid session ID", status_code=400)(scope, receive, send)
            return
        expired = grant is None or grant.expires_at < time.time() or self.options.reject_tokens
        if expired or (grant is not None and grant.resource not in (None, self.url)):
            status, header = 401, self._challenge(error="invalid_token" if token else None)
        elif _calls_tool(body, ADMIN_TOOL) and ADMIN_SCOPE not in grant.scopes:
            status, header = 403, self._challenge(error="insufficient_scope", scope=ADMIN_SCOPE)
        elif needed is not None and grant is not None and needed not in grant.scopes:
            status, header = 403, self._challenge(error="insufficient_scope", scope=needed)
        else:
            self.requests.mcp_statuses.append(200)
            self.requests.mcp.append((method, 200))
            replayed = False

            async def replay() -> dict[str, Any]:
                nonlocal replayed
                if replayed:
                    return await receive()
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            await inner(scope, replay, send)
            return
        self.requests.mcp_statuses.append(status)
        self.requests.mcp.append((method, status))
        response = JSONResponse({"error": "unauthorized"}, status_code=status, headers={"WWW-Authenticate": header})
        await response(scope, receive, send)

    def _challenge(self, *, error: str | None = None, scope: str | None = None) -> str:
        parts = []
        if error:
            parts.append(f'error="{error}"')
        if self.options.prm == "header":
            parts.append(f'resource_metadata="{self._prm_url}"')
        scope = scope or self.options.challenge_scope
        if scope:
            parts.append(f'scope="{scope}"')
        return "Bearer " + ", ".join(parts) if parts else "Bearer"

    # -- the authorization server ----------------------------------------------------------


def _calls_tool(body: bytes, name: str) -> bool:
    try:
        message = json.loads(body or b"{}")
    except ValueError:
        return False
    return (
        isinstance(message, dict)
        and message.get("method") == "tools/call"
        and message.get("params", {}).get("name") == name
    )


def _method(body: bytes) -> str:
    try:
        message = json.loads(body or b"{}")
    except ValueError:
        return ""
    return str(message.get("method", "")) if isinstance(message, dict) else ""
