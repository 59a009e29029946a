"""DPoP (RFC 9449, SEP-1932): access tokens bound to a key MCP Desk holds, proved on every request.

Where a server's authorization server lists ES256 in `dpop_signing_alg_values_supported`, the
sign-in makes an ES256 key for that server and every token request (code, refresh, client
credentials, JWT bearer) carries a proof. A token issued as `token_type: DPoP` then goes out as
`Authorization: DPoP <token>` with a fresh proof on each request, bound to the token by `ath`: a
stolen token is useless without the key. The key lives in the server's sign-in record in the secret
store (`credentials`), nowhere else. A server that asks for a nonce (`use_dpop_nonce`) gets one
retry with it, and each origin's latest nonce goes into the next proof there. A server that answers
with a plain bearer token is used as before (DPoP never turns a working sign-in into a refusal).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit, urlunsplit

import httpx2
from cryptography.hazmat.primitives.asymmetric import ec
from jwt import encode as sign_jwt
from jwt.algorithms import ECAlgorithm
from mcp.client.auth.utils import extract_field_from_www_auth

ALGORITHM: Final = "ES256"
SCHEME: Final = "DPoP"
USE_NONCE: Final = "use_dpop_nonce"
_NONCE: Final = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]{1,512}")
"""RFC 9449 §8.1: a nonce is NQCHARs; anything else (or longer) is ignored."""


def advertises_dpop(metadata: Mapping[str, object] | None) -> bool:
    """The authorization server's metadata document says it takes proofs MCP Desk can make (ES256).

    The document as served: the SDK's metadata model leaves `dpop_signing_alg_values_supported` out.
    """
    algorithms = metadata.get("dpop_signing_alg_values_supported") if metadata is not None else None
    return isinstance(algorithms, list) and ALGORITHM in algorithms


def new_key() -> str:
    """A fresh ES256 private key, as a JWK (the form it is kept in)."""
    return ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()))


def target_uri(url: str) -> str:
    """`htu`: the request's URI without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def token_hash(access_token: str) -> str:
    """`ath`: base64url SHA-256 of the access token."""
    digest = hashlib.sha256(access_token.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


class Proofs:
    """One server's proofs: signs with the key it is handed, remembers each origin's latest nonce."""

    def __init__(self) -> None:
        self._nonces: dict[str, str] = {}
        self._signer: tuple[str, ec.EllipticCurvePrivateKey, dict[str, object]] | None = None

    def proof(self, method: str, url: str, key: str, access_token: str | None = None) -> str:
        """A new proof for one request: its own `jti`, the method, the URI, now, the nonce, `ath`."""
        private, public = self._keys(key)
        claims: dict[str, object] = {
            "jti": secrets.token_urlsafe(24),
            "htm": method,
            "htu": target_uri(url),
            "iat": int(time.time()),
        }
        nonce = self._nonces.get(_origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = token_hash(access_token)
        return sign_jwt(claims, private, algorithm=ALGORITHM, headers={"typ": "dpop+jwt", "jwk": public})

    def sign(self, request: httpx2.Request, key: str, access_token: str | None = None) -> None:
        """Put a fresh proof on `request`; with `access_token`, also present that token under the DPoP scheme."""
        request.headers["DPoP"] = self.proof(request.method, str(request.url), key, access_token)
        if access_token is not None:
            request.headers["Authorization"] = f"{SCHEME} {access_token}"

    def wants_retry(self, response: httpx2.Response) -> bool:
        """Keep the nonce `response` carries; True when it refused the request for want of that nonce.

        A token endpoint says so with a 400 `use_dpop_nonce`, a resource with a 401 whose DPoP
        challenge has `error="use_dpop_nonce"`. Only a nonce other than the one just used is worth a retry.
        """
        nonce = response.headers.get("DPoP-Nonce", "")
        if _NONCE.fullmatch(nonce) is None:
            return False
        origin = _origin(str(response.request.url))
        fresh = self._nonces.get(origin) != nonce
        self._nonces[origin] = nonce
        return fresh and _asks_for_nonce(response)

    def _keys(self, key: str) -> tuple[ec.EllipticCurvePrivateKey, dict[str, object]]:
        if self._signer is None or self._signer[0] != key:
            private = ECAlgorithm.from_jwk(key)
            if not isinstance(private, ec.EllipticCurvePrivateKey):
                raise ValueError("the stored DPoP key is not an EC private key")
            self._signer = (key, private, ECAlgorithm.to_jwk(private.public_key(), as_dict=True))
        return self._signer[1], self._signer[2]


def _asks_for_nonce(response: httpx2.Response) -> bool:
    if response.status_code == 401:
        return extract_field_from_www_auth(response, "error") == USE_NONCE
    if response.status_code != 400:
        return False
    try:
        body = json.loads(response.content)
    except (ValueError, httpx2.ResponseNotRead):
        return False
    return isinstance(body, dict) and body.get("error") == USE_NONCE


def read_token_type(response: httpx2.Response) -> tuple[httpx2.Response, bool]:
    """`response` as the SDK can read it, and whether it issued a DPoP-bound token.

    The SDK's token model knows only `Bearer`; a `DPoP` token response is handed to it as one,
    and the caller keeps the real type with the token (`AuthRecord.dpop_bound`).
    """
    if response.status_code != 200:
        return response, False
    try:
        body = json.loads(response.content)
    except (ValueError, httpx2.ResponseNotRead):
        return response, False
    token_type = body.get("token_type") if isinstance(body, dict) else None
    if not isinstance(token_type, str) or token_type.lower() != SCHEME.lower():
        return response, False
    body["token_type"] = "Bearer"
    headers = [(k, v) for k, v in response.headers.items() if k.lower() not in ("content-length", "content-encoding")]
    rewritten = httpx2.Response(200, headers=headers, content=json.dumps(body).encode(), request=response.request)
    return rewritten, True
