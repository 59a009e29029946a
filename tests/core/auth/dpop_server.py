"""The sign-in test servers with DPoP (RFC 9449): every proof checked as a strict server checks it.

The authorization server advertises ES256 proofs, checks the proof on each token request and binds
the tokens it issues to the proof's key (`token_type: DPoP`); the MCP server takes a token only
under the DPoP scheme, with a proof for this very request (method, URI, `ath`), by the key the
token is bound to, never seen before (`jti`). With `nonces`, both first ask for their nonce
(`use_dpop_nonce`). Refusals are kept, with why, for assertions.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import jwt
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from desktop_app.core.auth.dpop import target_uri, token_hash
from tests.servers.oauth_server import OAuthOptions, OAuthTestServer

IAT_WINDOW_S = 60


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638: the key's SHA-256 thumbprint (EC members in lexicographic order)."""
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"))
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


@dataclass
class Seen:
    """What the servers checked: the claims of each proof they took, and each refusal's reason."""

    token_proofs: list[dict[str, Any]] = field(default_factory=list)
    resource_proofs: list[dict[str, Any]] = field(default_factory=list)
    raw_resource_proofs: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    jtis: set[str] = field(default_factory=set)


class ProofError(Exception):
    pass


class DPoPServer(OAuthTestServer):
    """`OAuthTestServer` whose tokens are bound to the client's key (see the module docstring)."""

    def __init__(self, options: OAuthOptions | None = None, *, nonces: bool = False, bind: bool = True) -> None:
        super().__init__(options)
        self.nonces = nonces
        self.bind_tokens = bind
        self.nonce = {"as": secrets.token_urlsafe(8), "rs": secrets.token_urlsafe(8)}
        self.bound: dict[str, str] = {}
        """Access and refresh tokens -> the thumbprint of the key they are bound to."""
        self.seen = Seen()

    # -- checking a proof ------------------------------------------------------------------

    def check_proof(self, proof: str | None, method: str, uri: str, access_token: str | None = None) -> dict[str, Any]:
        """The proof's claims and key thumbprint, or `ProofError` saying what is wrong with it."""
        if not proof or "," in proof:
            raise ProofError("no single DPoP proof")
        header = jwt.get_unverified_header(proof)
        if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in header.get("jwk", {}):
            raise ProofError("bad proof header")
        key = jwt.PyJWK(header["jwk"], algorithm="ES256")
        try:
            claims: dict[str, Any] = jwt.decode(proof, key, algorithms=["ES256"])
        except jwt.PyJWTError as exc:
            raise ProofError(f"signature: {exc}") from None
        if claims.get("htm") != method or claims.get("htu") != target_uri(uri):
            raise ProofError("htm/htu")
        if abs(time.time() - claims.get("iat", 0)) > IAT_WINDOW_S:
            raise ProofError("iat")
        if claims.get("jti") in self.seen.jtis:
            raise ProofError("jti reused")
        if access_token is not None and claims.get("ath") != token_hash(access_token):
            raise ProofError("ath")
        self.seen.jtis.add(claims["jti"])
        claims["jkt"] = thumbprint(header["jwk"])
        return claims

    def _refuse(self, reason: str) -> None:
        self.seen.refusals.append(reason)

    # -- the authorization server ----------------------------------------------------------

    async def _as_metadata(self, request: Request) -> Response:
        response = await super()._as_metadata(request)
        document = json.loads(bytes(response.body))
        document["dpop_signing_alg_values_supported"] = ["ES256", "RS256"]
        return JSONResponse(document)

    async def _token(self, request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        try:
            claims = self.check_proof(request.headers.get("dpop"), "POST", str(request.url))
        except ProofError as exc:
            self._refuse(f"token: {exc}")
            return JSONResponse({"error": "invalid_dpop_proof", "error_description": str(exc)}, status_code=400)
        if self.nonces and claims.get("nonce") != self.nonce["as"]:
            self._refuse("token: nonce")
            return JSONResponse({"error": "use_dpop_nonce"}, status_code=400, headers={"DPoP-Nonce": self.nonce["as"]})
        refresh = form.get("refresh_token")
        if refresh is not None and self.bound.get(refresh) not in (None, claims["jkt"]):
            self._refuse("token: refresh token bound to another key")
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        self.seen.token_proofs.append(claims)
        response = await super()._token(request)
        if response.status_code != 200 or not self.bind_tokens:
            return response
        body = json.loads(bytes(response.body))
        for name in ("access_token", "refresh_token"):
            if name in body:
                self.bound[body[name]] = claims["jkt"]
        body["token_type"] = "DPoP"
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    # -- the MCP server --------------------------------------------------------------------

    async def _guarded(self, inner: Any, scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if not self.bind_tokens or not token:
            await super()._guarded(inner, scope, receive, send)
            return
        challenge, extra = self._resource_refusal(scheme, token, headers.get("dpop"), scope)
        if challenge is None:
            # The proof holds: hand the token on as the bearer check below expects it.
            scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() != b"authorization"]
            scope["headers"].append((b"authorization", f"Bearer {token}".encode()))
            await super()._guarded(inner, scope, receive, send)
            return
        reply = {"WWW-Authenticate": challenge, **extra}
        await JSONResponse({"error": "unauthorized"}, status_code=401, headers=reply)(scope, receive, send)

    def _resource_refusal(
        self, scheme: str, token: str, proof: str | None, scope: dict[str, Any]
    ) -> tuple[str | None, dict[str, str]]:
        """None when the request may pass; else the DPoP challenge (and headers) to refuse it with."""
        if scheme.lower() != "dpop":
            self._refuse(f"resource: {scheme} scheme for a DPoP-bound token")
            return 'DPoP error="invalid_token"', {}
        try:
            claims = self.check_proof(proof, scope["method"], self.url, token)
        except ProofError as exc:
            self._refuse(f"resource: {exc}")
            return 'DPoP error="invalid_dpop_proof"', {}
        if self.bound.get(token) != claims["jkt"]:
            self._refuse("resource: proof by another key than the token's")
            return 'DPoP error="invalid_token"', {}
        if self.nonces and claims.get("nonce") != self.nonce["rs"]:
            self._refuse("resource: nonce")
            return 'DPoP error="use_dpop_nonce"', {"DPoP-Nonce": self.nonce["rs"]}
        self.seen.resource_proofs.append(claims)
        self.seen.raw_resource_proofs.append(proof or "")
        return None, {}
