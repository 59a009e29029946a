"""An OAuth-protected MCP server and its authorization server, real HTTP on 127.0.0.1, for sign-in tests.

The MCP side is the SDK's streamable HTTP server behind a bearer check; the authorization server
is a small real implementation (authorization code with PKCE, refresh with rotation, client
credentials with a secret or a private-key JWT, dynamic registration, Client ID Metadata
Documents, revocation). `OAuthOptions` picks among the discovery variants the specification
allows and the faults a client must survive, oversized answers included (streamed, so only a
client that stops reading is spared them). The authorization page approves at once, so a test
"browser" only has to follow the redirect to the app's loopback listener.

Each origin runs in a uvicorn server on a thread of its own, so the servers answer whatever the
test's event loop is doing.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import secrets
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import anyio.lowlevel
import httpx2
import jwt
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

LOOPBACK = "127.0.0.1"
ADMIN_TOOL = "admin_tool"
ADMIN_SCOPE = "mcp:admin"
READ_SCOPE = "mcp:read"
ASGIApp = Callable[
    [dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]],
    Awaitable[None],
]


@dataclass
class OAuthOptions:
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
    # faults
    metadata_malformed: bool = False
    metadata_status: int | None = None
    metadata_issuer: str | None = None
    iss_override: str | None = None
    state_override: str | None = None
    deny: bool = False
    registration_refused: bool = False
    token_error: str | None = None
    token_error_description: str = "the token endpoint refuses"
    resource_override: str | None = None
    as_down: bool = False
    endpoints_at: str | None = None
    """Another origin for the endpoints the metadata names (e.g. plain HTTP elsewhere, which must be refused)."""
    sse: bool = False
    """Serve MCP over the legacy SSE transport (`/sse` + `/messages/`) instead of streamable HTTP."""
    withhold_scopes: tuple[str, ...] = ()
    """Scopes the authorization server never grants, whatever is asked (a server that keeps refusing)."""
    token_size: int = 0
    """When set, access tokens this many characters long, the token response streamed in chunks."""
    metadata_size: int = 0
    """When set, authorization server metadata padded to about this many bytes, streamed in chunks."""
    declare_length: bool = False
    """Padded answers say their length up front (else they are chunked and the client finds out)."""
    metadata_gzip_bomb: int = 0
    """When set, metadata padded to this many bytes and gzip-compressed, whatever the client accepts."""


@dataclass
class Client:
    client_id: str
    secret: str | None = None
    auth_method: str = "none"
    redirect_uris: list[str] = field(default_factory=list)
    grant_types: list[str] = field(default_factory=lambda: ["authorization_code", "refresh_token"])
    public_key: str | None = None


@dataclass
class Grant:
    client_id: str
    scopes: list[str]
    resource: str | None
    expires_at: float = 0.0
    redirect_uri: str = ""
    challenge: str = ""


@dataclass
class Stream:
    """An oversized answer being sent: how much went out, and whether all of it did."""

    size: int
    sent: int = 0
    completed: bool = False
    ended: threading.Event = field(default_factory=threading.Event)


@dataclass
class Requests:
    """What the authorization server was sent, for assertions."""

    authorize: list[dict[str, str]] = field(default_factory=list)
    token: list[dict[str, str]] = field(default_factory=list)
    register: list[dict[str, Any]] = field(default_factory=list)
    revoke: list[dict[str, str]] = field(default_factory=list)
    metadata: list[str] = field(default_factory=list)
    mcp_statuses: list[int] = field(default_factory=list)


class OAuthTestServer:
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
        self._sockets = [_bind(), _bind()]
        self.rs_port = self._sockets[0].getsockname()[1]
        self.as_port = self._sockets[1].getsockname()[1] if self.options.separate_as else self.rs_port
        self.rs_origin = f"http://{LOOPBACK}:{self.rs_port}"
        self.as_origin = f"http://{LOOPBACK}:{self.as_port}"
        self.url = f"{self.rs_origin}/sse" if self.options.sse else f"{self.rs_origin}/mcp"
        self.issuer = self.as_origin + self.options.issuer_path
        self._servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    # -- set-up helpers for tests ----------------------------------------------------------

    def register_client(self, client: Client) -> Client:
        self.clients[client.client_id] = client
        return client

    def revoke_refresh_tokens(self) -> None:
        self.refresh_tokens.clear()

    def expire_access_tokens(self) -> None:
        for grant in self.access_tokens.values():
            grant.expires_at = time.time() - 1

    # -- running ---------------------------------------------------------------------------

    @contextmanager
    def running(self) -> Iterator[OAuthTestServer]:
        apps = [self._resource_app()]
        if self.options.separate_as:
            apps.append(self._authorization_app())
        else:
            self._sockets[1].close()
        try:
            for app, sock in zip(apps, self._sockets, strict=False):
                self._start(app, sock)
            yield self
        finally:
            for server, _ in self._servers:
                server.should_exit = True
            for _, thread in self._servers:
                thread.join(10)
            for sock in self._sockets:
                sock.close()

    def _start(self, app: Any, sock: socket.socket) -> None:
        config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 15
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the OAuth test server did not start")
            time.sleep(0.01)
        self._servers.append((server, thread))

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
        if grant is None or grant.expires_at < time.time() or (grant.resource not in (None, self.url)):
            status, header = 401, self._challenge(error="invalid_token" if token else None)
        elif _calls_tool(body, ADMIN_TOOL) and ADMIN_SCOPE not in grant.scopes:
            status, header = 403, self._challenge(error="insufficient_scope", scope=ADMIN_SCOPE)
        else:
            self.requests.mcp_statuses.append(200)
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

    def _authorization_app(self) -> Starlette:
        return Starlette(routes=self._metadata_routes(resource=False) + self._as_routes())

    def _as_routes(self) -> list[Route]:
        prefix = self.options.issuer_path if self.options.separate_as or self.options.metadata != "none" else ""
        routes = [
            Route(f"{prefix}/authorize", self._authorize),
            Route(f"{prefix}/token", self._token, methods=["POST"]),
            Route(f"{prefix}/revoke", self._revoke, methods=["POST"]),
        ]
        if self.options.dcr:
            routes.append(Route(f"{prefix}/register", self._register, methods=["POST"]))
        return routes

    def _endpoint(self, name: str) -> str:
        if self.options.endpoints_at is not None:
            return f"{self.options.endpoints_at}/{name}"
        if not self.options.separate_as and self.options.metadata == "none":
            return f"{self.rs_origin}/{name}"
        return f"{self.issuer}/{name}"

    async def _as_metadata(self, request: Request) -> Response:
        self.requests.metadata.append(request.url.path)
        options = self.options
        if options.metadata_status is not None:
            return PlainTextResponse("unavailable", status_code=options.metadata_status)
        if options.metadata_malformed:
            return Response(
                '{"issuer": "' + self.issuer + '", "authorization_endpoint": ', media_type="application/json"
            )
        document: dict[str, Any] = {
            "issuer": options.metadata_issuer or self.issuer,
            "authorization_endpoint": self._endpoint("authorize"),
            "token_endpoint": self._endpoint("token"),
            "scopes_supported": list(options.server_scopes),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": [
                "client_secret_basic",
                "client_secret_post",
                "private_key_jwt",
                "none",
            ],
            "authorization_response_iss_parameter_supported": options.advertise_iss,
        }
        if options.pkce:
            document["code_challenge_methods_supported"] = ["S256"]
        if options.dcr:
            document["registration_endpoint"] = self._endpoint("register")
        if options.revocation:
            document["revocation_endpoint"] = self._endpoint("revoke")
        if options.cimd:
            document["client_id_metadata_document_supported"] = True
        if options.metadata_size:
            return self._streamed(document, "service_documentation_padding", options.metadata_size)
        if options.metadata_gzip_bomb:
            padded = json.dumps({**document, "padding": "A" * options.metadata_gzip_bomb}).encode()
            bomb = gzip.compress(padded, compresslevel=9)
            return Response(bomb, media_type="application/json", headers={"Content-Encoding": "gzip"})
        return JSONResponse(document)

    async def _authorize(self, request: Request) -> Response:
        params = dict(request.query_params)
        self.requests.authorize.append(params)
        client = self._client(params.get("client_id", ""))
        redirect_uri = params.get("redirect_uri", "")
        if client is None or not _redirect_allowed(redirect_uri, client.redirect_uris):
            return PlainTextResponse("unknown client or redirect URI", status_code=400)
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return PlainTextResponse("PKCE (S256) is required", status_code=400)
        reply: dict[str, str] = {"state": self.options.state_override or params.get("state", "")}
        if self.options.deny:
            reply["error"] = "access_denied"
        else:
            code = secrets.token_urlsafe(16)
            self.codes[code] = Grant(
                client.client_id,
                (params.get("scope") or " ".join(self.options.resource_scopes or ())).split(),
                params.get("resource"),
                expires_at=time.time() + 120,
                redirect_uri=redirect_uri,
                challenge=params["code_challenge"],
            )
            reply["code"] = code
        if self.options.send_iss:
            reply["iss"] = self.options.iss_override or self.issuer
        return RedirectResponse(f"{redirect_uri}?{urlencode(reply)}", status_code=302)

    async def _token(self, request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        self.requests.token.append({**form, "authorization": request.headers.get("authorization", "")})
        client, problem = self._authenticate(request, form)
        if client is None:
            return _oauth_error("invalid_client", problem, 401)
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            grant = self.codes.pop(form.get("code", ""), None)
            if grant is None or grant.client_id != client.client_id or grant.redirect_uri != form.get("redirect_uri"):
                return _oauth_error("invalid_grant", "unknown or reused code")
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
            if digest != grant.challenge:
                return _oauth_error("invalid_grant", "PKCE verification failed")
            if self.options.token_error:
                return _oauth_error(self.options.token_error, self.options.token_error_description)
            return self._issue(client, grant.scopes, form.get("resource") or grant.resource)
        if grant_type == "refresh_token":
            grant = self.refresh_tokens.pop(form.get("refresh_token", ""), None)
            if grant is None or grant.client_id != client.client_id:
                return _oauth_error("invalid_grant", "the refresh token was revoked")
            return self._issue(client, grant.scopes, form.get("resource") or grant.resource)
        if grant_type == "client_credentials" and "client_credentials" in client.grant_types:
            scopes = (form.get("scope") or READ_SCOPE).split()
            return self._issue(client, scopes, form.get("resource"), refresh=False)
        return _oauth_error("unsupported_grant_type", str(grant_type))

    def _issue(self, client: Client, scopes: list[str], resource: str | None, *, refresh: bool = True) -> Response:
        scopes = [scope for scope in scopes if scope not in self.options.withhold_scopes]
        access = secrets.token_urlsafe(24)
        if self.options.token_size:
            body = {"access_token": "", "token_type": "Bearer", "expires_in": self.options.access_ttl}
            return self._streamed(body, "access_token", self.options.token_size)
        self.access_tokens[access] = Grant(
            client.client_id, scopes, resource, expires_at=time.time() + self.options.access_ttl
        )
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.options.access_ttl,
            "scope": " ".join(scopes),
        }
        if refresh and self.options.issue_refresh:
            token = secrets.token_urlsafe(24)
            self.refresh_tokens[token] = Grant(client.client_id, scopes, resource)
            body["refresh_token"] = token
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    def _streamed(self, document: dict[str, Any], padded: str, size: int) -> Response:
        """`document` as JSON with the string field `padded` `size` characters long, sent in chunks."""
        head, tail = json.dumps({**document, padded: "\0"}).encode().split(b"\\u0000")
        stream = Stream(size)
        self.streams.append(stream)
        return _PaddedAnswer(head, tail, stream, declare_length=self.options.declare_length)

    def _authenticate(self, request: Request, form: dict[str, str]) -> tuple[Client | None, str]:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            raw = base64.b64decode(header[6:]).decode()
            client_id, _, secret = raw.partition(":")
            client = self._client(_unquote(client_id))
            ok = (
                client is not None and client.auth_method == "client_secret_basic" and client.secret == _unquote(secret)
            )
            return (client, "") if ok else (None, "bad basic credentials")
        assertion = form.get("client_assertion")
        if assertion:
            client_id = jwt.decode(assertion, options={"verify_signature": False}).get("sub", "")
            client = self._client(client_id)
            if client is None or client.public_key is None:
                return None, "unknown client"
            try:
                jwt.decode(assertion, client.public_key, algorithms=["RS256", "ES256"], audience=self.issuer)
            except jwt.PyJWTError as exc:
                return None, f"bad assertion: {exc}"
            return client, ""
        client = self._client(form.get("client_id", ""))
        if client is None:
            return None, "unknown client"
        if client.auth_method == "client_secret_post":
            return (client, "") if form.get("client_secret") == client.secret else (None, "bad secret")
        return (client, "") if client.auth_method == "none" else (None, "client authentication required")

    def _client(self, client_id: str) -> Client | None:
        if client_id in self.clients:
            return self.clients[client_id]
        document = self.cimd_documents.get(client_id) if self.options.cimd else None
        if document is None or document.get("client_id") != client_id:
            return None
        return Client(client_id, redirect_uris=list(document.get("redirect_uris", [])))

    async def _register(self, request: Request) -> Response:
        body = await request.json()
        self.requests.register.append(body)
        if self.options.registration_refused:
            return _oauth_error("invalid_client_metadata", "registration is closed on this server")
        method = body.get("token_endpoint_auth_method") or "client_secret_basic"
        client = self.register_client(
            Client(
                client_id=f"dcr-{secrets.token_hex(6)}",
                secret=None if method == "none" else secrets.token_urlsafe(16),
                auth_method=method,
                redirect_uris=list(body.get("redirect_uris") or []),
            )
        )
        reply = {**body, "client_id": client.client_id, "token_endpoint_auth_method": method}
        if client.secret:
            reply["client_secret"] = client.secret
        return JSONResponse(reply, status_code=201)

    async def _revoke(self, request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        self.requests.revoke.append(form)
        token = form.get("token", "")
        self.access_tokens.pop(token, None)
        self.refresh_tokens.pop(token, None)
        return Response(status_code=200)


class _PaddedAnswer(Response):
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


def _bind() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, 0))
    return sock


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


def _redirect_allowed(uri: str, registered: list[str]) -> bool:
    """Exact match, except that a loopback redirect may use any port (RFC 8252 §7.3)."""
    if uri in registered:
        return True
    parts = urlsplit(uri)
    if parts.hostname != LOOPBACK:
        return False
    return any(urlsplit(r).hostname == LOOPBACK and urlsplit(r).path == parts.path for r in registered)


def _oauth_error(error: str, description: str, status: int = 400) -> Response:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)


def _unquote(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text)


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


class FollowingBrowser:
    """Stands in for the user's browser: loads the authorization page and follows its redirect home."""

    def __init__(self, *, follow: bool = True) -> None:
        self.follow = follow
        self.opened: list[str] = []
        self.pages: list[str] = []

    async def open(self, url: str) -> None:
        self.opened.append(url)
        if not self.follow:
            return  # the user closed the tab
        async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as http:
            response = await http.get(url)
            self.pages.append(response.text)


class ForgingBrowser(FollowingBrowser):
    """The user's browser, with another local process racing it: a forged callback reaches the
    app's loopback listener first (wrong state, no state, another path), then the real redirect."""

    def __init__(self) -> None:
        super().__init__()
        self.forged: list[httpx2.Response] = []

    async def open(self, url: str) -> None:
        self.forged = await forge_callbacks(url)
        await super().open(url)


async def forge_callbacks(authorization_url: str) -> list[httpx2.Response]:
    """What any local process can send to the redirect URI an authorization URL names."""
    redirect_uri = query_of(authorization_url)["redirect_uri"]
    async with httpx2.AsyncClient(timeout=10) as http:
        return [
            await http.get(redirect_uri, params={"code": "forged-code", "state": "forged-state"}),
            await http.get(redirect_uri, params={"code": "forged-code"}),
            await http.get(redirect_uri),
            await http.get(redirect_uri.replace("/callback", "/favicon.ico")),
        ]
