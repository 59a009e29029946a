"""The test authorization server's side of `OAuthTestServer`: metadata, the authorization page,
the token endpoint (authorization code with PKCE, refresh with rotation, client credentials with a
secret or a private-key JWT, the JWT bearer grant for ID-JAGs), registration and revocation.

It approves at once, so a test "browser" only has to follow the redirect to the app's loopback
listener; `Faults` options break one piece at a time.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlencode, urlsplit

import jwt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.servers.oauth_faults import (
    Stream,
    broken_metadata,
    failing_token_endpoint,
    gzip_bomb,
    refused_redirect,
    streamed,
)
from tests.servers.threaded_asgi import LOOPBACK

if TYPE_CHECKING:
    from tests.servers.oauth_server import OAuthOptions, Requests

READ_SCOPE = "mcp:read"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


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


class AuthorizationServer:
    """Mixed into `OAuthTestServer`, which holds the state below and serves these routes."""

    options: OAuthOptions
    requests: Requests
    issuer: str
    url: str
    rs_origin: str
    clients: dict[str, Client]
    cimd_documents: dict[str, dict[str, Any]]
    codes: dict[str, Grant]
    access_tokens: dict[str, Grant]
    refresh_tokens: dict[str, Grant]
    streams: list[Stream]

    def register_client(self, client: Client) -> Client:
        self.clients[client.client_id] = client
        return client

    def _metadata_routes(self, *, resource: bool) -> list[Route]:
        raise NotImplementedError

    def _authorization_app(self) -> Any:
        app = Starlette(routes=self._metadata_routes(resource=False) + self._as_routes())

        async def recording(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                self.requests.headers.append({k.decode().lower(): v.decode() for k, v in scope["headers"]})
            await app(scope, receive, send)

        return recording

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
        broken = broken_metadata(options, self.issuer)
        if broken is not None:
            return broken
        document: dict[str, Any] = {
            "issuer": options.metadata_issuer or self.issuer,
            "authorization_endpoint": self._endpoint("authorize"),
            "token_endpoint": self._endpoint("token"),
            "scopes_supported": list(options.server_scopes),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials", JWT_BEARER],
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
            return gzip_bomb(document, options.metadata_gzip_bomb)
        return JSONResponse(document)

    async def _authorize(self, request: Request) -> Response:
        params = dict(request.query_params)
        self.requests.authorize.append(params)
        client = self._client(params.get("client_id", ""))
        redirect_uri = params.get("redirect_uri", "")
        if self.options.redirect_refused:
            return refused_redirect()
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
        if self.options.token_status is not None:
            return failing_token_endpoint(self.options.token_status)
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
        if grant_type == JWT_BEARER and self.options.idp is not None:
            return self._jwt_bearer(client, form)
        return _oauth_error("unsupported_grant_type", str(grant_type))

    def _jwt_bearer(self, client: Client, form: dict[str, str]) -> Response:
        """SEP-990: an ID-JAG from the trusted IdP, for this authorization server, this client and this server."""
        try:
            claims = self.options.idp.verify_id_jag(form.get("assertion", ""), audience=self.issuer)
        except jwt.PyJWTError as exc:
            return _oauth_error("invalid_grant", f"bad ID-JAG: {exc}")
        if claims.get("client_id") != client.client_id or claims.get("resource") != self.url:
            return _oauth_error("invalid_grant", "the ID-JAG is for another client or resource")
        return self._issue(client, (form.get("scope") or READ_SCOPE).split(), self.url, refresh=False)

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
        stream = Stream(size)
        self.streams.append(stream)
        return streamed(document, padded, stream, declare_length=self.options.declare_length)

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
    return unquote(text)
