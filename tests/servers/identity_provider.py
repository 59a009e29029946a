"""An organisation's identity provider on 127.0.0.1 for enterprise sign-in tests (SEP-990).

OpenID Connect with a browser step that approves at once (authorization code with PKCE, ID tokens
signed ES256), and the RFC 8693 token exchange that turns the user's ID token into an ID-JAG for
one MCP authorization server and resource. The test authorization server (`oauth_server`, option
`idp`) checks ID-JAGs with `verify_id_jag`.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.servers.threaded_asgi import LOOPBACK, bind, serving

IDP_CLIENT_ID: Final = "mcp-desk-at-the-idp"
USER: Final = "ada@example.com"
TOKEN_EXCHANGE: Final = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG: Final = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN: Final = "urn:ietf:params:oauth:token-type:id_token"


@dataclass
class IdpRequests:
    authorize: list[dict[str, str]] = field(default_factory=list)
    token: list[dict[str, str]] = field(default_factory=list)


class TestIdentityProvider:
    """`issuer` is its identifier; `mcp_client_id` is the MCP client it vouches for in ID-JAGs."""

    __test__ = False

    def __init__(self, *, mcp_client_id: str, id_token_ttl: int = 3600, refuse_exchange: bool = False) -> None:
        self.mcp_client_id = mcp_client_id
        self.id_token_ttl = id_token_ttl
        self.refuse_exchange = refuse_exchange
        self._key = ec.generate_private_key(ec.SECP256R1())
        self._codes: dict[str, tuple[str, str, str]] = {}  # code -> (challenge, redirect URI, nonce)
        self.requests = IdpRequests()
        self.issued: list[str] = []
        """Every ID token and ID-JAG handed out, so a test can look for them where they must not be."""
        self._sock = bind()
        self.issuer = f"http://{LOOPBACK}:{self._sock.getsockname()[1]}"

    @contextmanager
    def running(self) -> Iterator[TestIdentityProvider]:
        app = Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self._metadata),
                Route("/authorize", self._authorize),
                Route("/token", self._token, methods=["POST"]),
            ]
        )
        with serving((app, self._sock)):
            yield self

    def id_token(self, *, ttl: int | None = None, nonce: str | None = None) -> str:
        """An ID token for the test user, as the IdP issues them (a test may hand one over directly)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": USER,
            "email": USER,
            "aud": IDP_CLIENT_ID,
            "iat": now,
            "exp": now + (self.id_token_ttl if ttl is None else ttl),
        }
        if nonce is not None:
            claims["nonce"] = nonce
        return jwt.encode(claims, self._key, algorithm="ES256")

    def verify_id_jag(self, assertion: str, *, audience: str) -> dict[str, Any]:
        """What an authorization server that trusts this IdP checks of an ID-JAG (raises jwt errors)."""
        if jwt.get_unverified_header(assertion).get("typ") != "oauth-id-jag+jwt":
            raise jwt.InvalidTokenError("not an ID-JAG")
        return jwt.decode(
            assertion, self._key.public_key(), algorithms=["ES256"], audience=audience, issuer=self.issuer
        )

    async def _metadata(self, request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", TOKEN_EXCHANGE],
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": True,
            }
        )

    async def _authorize(self, request: Request) -> Response:
        params = dict(request.query_params)
        self.requests.authorize.append(params)
        if params.get("client_id") != IDP_CLIENT_ID or params.get("code_challenge_method") != "S256":
            return PlainTextResponse("unknown client, or no PKCE", status_code=400)
        code = secrets.token_urlsafe(16)
        self._codes[code] = (params["code_challenge"], params["redirect_uri"], params.get("nonce", ""))
        reply = {"code": code, "state": params.get("state", ""), "iss": self.issuer}
        return RedirectResponse(f"{params['redirect_uri']}?{urlencode(reply)}", status_code=302)

    async def _token(self, request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        self.requests.token.append(form)
        if form.get("client_id") != IDP_CLIENT_ID:
            return _error("invalid_client", "unknown client", 401)
        if form.get("grant_type") == "authorization_code":
            challenge, redirect_uri, nonce = self._codes.pop(form.get("code", ""), ("", "", ""))
            verifier = form.get("code_verifier", "").encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).decode().rstrip("=")
            if not challenge or digest != challenge or redirect_uri != form.get("redirect_uri"):
                return _error("invalid_grant", "unknown code or PKCE verification failed")
            id_token = self.id_token(nonce=nonce)
            self.issued.append(id_token)
            return JSONResponse(
                {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "id_token": id_token}
            )
        if form.get("grant_type") == TOKEN_EXCHANGE:
            return self._exchange(form)
        return _error("unsupported_grant_type", str(form.get("grant_type")))

    def _exchange(self, form: dict[str, str]) -> Response:
        if self.refuse_exchange:
            return _error("invalid_grant", "the user's session at the identity provider has ended")
        if form.get("requested_token_type") != ID_JAG or form.get("subject_token_type") != ID_TOKEN:
            return _error("invalid_request", "only ID tokens for ID-JAGs are exchanged here")
        try:
            claims = jwt.decode(
                form.get("subject_token", ""),
                self._key.public_key(),
                algorithms=["ES256"],
                audience=IDP_CLIENT_ID,
                issuer=self.issuer,
            )
        except jwt.PyJWTError as exc:
            return _error("invalid_grant", f"bad ID token: {exc}")
        if not form.get("audience") or not form.get("resource"):
            return _error("invalid_request", "audience and resource are required")
        now = int(time.time())
        grant = jwt.encode(
            {
                "iss": self.issuer,
                "sub": claims["sub"],
                "aud": form["audience"],
                "resource": form["resource"],
                "client_id": self.mcp_client_id,
                "iat": now,
                "exp": now + 300,
                "jti": str(uuid.uuid4()),
            },
            self._key,
            algorithm="ES256",
            headers={"typ": "oauth-id-jag+jwt"},
        )
        self.issued.append(grant)
        return JSONResponse({"access_token": grant, "issued_token_type": ID_JAG, "token_type": "N_A"})


def _error(error: str, description: str, status: int = 400) -> Response:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)
