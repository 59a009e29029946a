"""The organisation's identity provider: its settings, the user's ID token, and signing in to it.

Enterprise-managed authorization (SEP-990): the company's identity provider (IdP) signs the user
in once with OpenID Connect, and MCP servers that trust it accept that sign-in without a browser
round-trip each. The IdP is configured app-wide: `IdentityProviderSettings` is what Settings or a
managed policy fills in. The ID token it issues is a secret like any token: it lives in the
secret store (`oidc.<digest>`), is reused for every server until shortly before it expires, and
is only ever sent back to the IdP that issued it.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final
from urllib.parse import urlencode

import httpx2
import jwt
from mcp.client.auth import PKCEParameters

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.doctor import Step, one_line
from desktop_app.core.auth.driver import Sender
from desktop_app.core.auth.errors import SignInCancelled, SignInError
from desktop_app.core.auth.loopback import CallbackParams, LoopbackListener
from desktop_app.core.auth.provider import is_secure_endpoint
from desktop_app.core.expansion import SecretLookup

ID_TOKEN_PREFIX: Final = "oidc."
ID_TOKEN_MARGIN_S: Final = 60.0
"""An ID token this close to expiry is not used for a new exchange (the IdP would refuse it mid-way)."""
DEFAULT_SCOPES: Final = ("openid", "email", "profile")
SETTINGS_KEY: Final = "identity_provider"
"""Where settings.json (or a managed policy) keeps the identity provider."""
_SECRET_PLACEHOLDER: Final = re.compile(r"\$\{secret:([A-Za-z0-9_.\-]+)\}")


@dataclass(frozen=True)
class IdentityProviderSettings:
    """The organisation's identity provider, set once for the whole app (Settings or a managed policy)."""

    issuer: str
    """The IdP's issuer identifier: its OpenID configuration is at `<issuer>/.well-known/openid-configuration`."""
    client_id: str
    """MCP Desk's client at the IdP (the organisation registers it)."""
    client_secret: str | None = None
    """Only for an IdP that registered MCP Desk as a confidential client; usually `${secret:NAME}` resolved."""
    scopes: tuple[str, ...] = DEFAULT_SCOPES
    source: str = "settings"
    """Where these came from: "settings" (the user) or "policy" (the organisation; the user cannot change it)."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], *, source: str = "settings") -> IdentityProviderSettings:
        """Read the JSON spelling (`issuer`, `clientId`, `clientSecret`, `scopes`); ValueError says what is wrong."""
        issuer, client_id = data.get("issuer"), data.get("clientId")
        if not isinstance(issuer, str) or not is_secure_endpoint(issuer):
            raise ValueError("the identity provider's issuer must be an https:// URL")
        if not isinstance(client_id, str) or not client_id.strip():
            raise ValueError("the identity provider needs MCP Desk's client ID there (clientId)")
        secret = data.get("clientSecret")
        if secret is not None and (not isinstance(secret, str) or not secret):
            raise ValueError("clientSecret must be text (usually ${secret:NAME})")
        scopes = data.get("scopes", list(DEFAULT_SCOPES))
        if not isinstance(scopes, list) or not all(isinstance(s, str) and s and " " not in s for s in scopes):
            raise ValueError("scopes must be a list of scope names")
        if "openid" not in scopes:
            scopes = ["openid", *scopes]
        return cls(issuer, client_id.strip(), secret, tuple(scopes), source)

    def resolved(self, secrets: SecretLookup) -> IdentityProviderSettings:
        """With a `${secret:NAME}` client secret replaced by the stored value (ValueError when missing)."""
        match = _SECRET_PLACEHOLDER.fullmatch(self.client_secret or "")
        if match is None:
            return self
        value = secrets.get(match.group(1))
        if value is None:
            raise ValueError(f"the identity provider's client secret ({match.group(1)}) is not in the secret store")
        return replace(self, client_secret=value)

    def to_mapping(self) -> dict[str, Any]:
        """The JSON spelling, for settings.json (the secret stays a placeholder there, never a value)."""
        out: dict[str, Any] = {"issuer": self.issuer, "clientId": self.client_id}
        if self.client_secret is not None:
            out["clientSecret"] = self.client_secret
        if self.scopes != DEFAULT_SCOPES:
            out["scopes"] = list(self.scopes)
        return out


def identity_provider_setting(document: Mapping[str, object]) -> IdentityProviderSettings | None:
    """The organisation's identity provider from a settings document (its `identity_provider` key)."""
    value = document.get(SETTINGS_KEY)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError(f"{SETTINGS_KEY} must be an object")
    return IdentityProviderSettings.from_mapping(value)


@dataclass(frozen=True)
class IdToken:
    """The user's ID token from the IdP and when it expires (seconds since the epoch)."""

    token: str
    expires_at: float

    @property
    def usable(self) -> bool:
        return time.time() < self.expires_at - ID_TOKEN_MARGIN_S


class IdTokens:
    """The user's ID token for each identity provider, in the secret store beside the servers' sign-ins."""

    def __init__(self, credentials: CredentialStore) -> None:
        self._credentials = credentials

    def load(self, idp: IdentityProviderSettings) -> IdToken | None:
        """The stored ID token, when it is still usable."""
        text = self._credentials.read(_secret_name(idp))
        if not text:
            return None
        try:
            data = json.loads(text)
            token = IdToken(str(data["token"]), float(data["expires_at"]))
        except (ValueError, KeyError, TypeError):
            return None
        return token if token.usable else None

    def save(self, idp: IdentityProviderSettings, token: IdToken) -> None:
        self._credentials.write(_secret_name(idp), json.dumps({"token": token.token, "expires_at": token.expires_at}))

    def forget(self, idp: IdentityProviderSettings) -> None:
        self._credentials.erase(_secret_name(idp))


def _secret_name(idp: IdentityProviderSettings) -> str:
    digest = hashlib.sha256(f"{idp.issuer}\n{idp.client_id}".encode()).hexdigest()
    return ID_TOKEN_PREFIX + digest[:32]


def read_id_token(text: str, idp: IdentityProviderSettings, *, nonce: str | None = None) -> IdToken:
    """Check an ID token's claims: from this IdP, for MCP Desk, this sign-in's, not expired.

    The token came straight from the IdP's token endpoint over TLS, which OpenID Connect Core
    (3.1.3.7) accepts in place of checking its signature; the IdP checks it again at the exchange.
    """
    try:
        claims = jwt.decode(text, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise SignInError("the identity provider sent an ID token that is not a JWT", step=Step.ID_TOKEN) from None
    audience = claims.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    problem = None
    if claims.get("iss") != idp.issuer:
        problem = f"it was issued by {one_line(str(claims.get('iss')))}, not {idp.issuer}"
    elif idp.client_id not in audiences:
        problem = "it is not meant for MCP Desk (audience)"
    elif nonce is not None and claims.get("nonce") != nonce:
        problem = "it belongs to another sign-in (nonce)"
    elif not isinstance(claims.get("exp"), int | float):
        problem = "it does not say when it expires"
    if problem is not None:
        raise SignInError(f"refusing the identity provider's ID token: {problem}", step=Step.ID_TOKEN)
    token = IdToken(text, float(claims["exp"]))
    if not token.usable:
        raise SignInError("the identity provider's ID token has already expired", step=Step.ID_TOKEN)
    return token


async def idp_metadata(idp: IdentityProviderSettings, sender: Sender) -> dict[str, Any]:
    """The IdP's OpenID configuration, checked to be its own (the issuer it names is the one asked)."""
    url = idp.issuer.rstrip("/") + "/.well-known/openid-configuration"
    response = await sender.send(httpx2.Request("GET", url), step=Step.IDP_METADATA)
    if response.status_code != 200:
        raise SignInError(
            f"the identity provider publishes no OpenID configuration at {url} (HTTP {response.status_code})",
            step=Step.IDP_METADATA,
        )
    try:
        metadata = json.loads(response.content)
    except ValueError:
        metadata = None
    if not isinstance(metadata, dict) or not isinstance(metadata.get("token_endpoint"), str):
        raise SignInError("the identity provider's OpenID configuration cannot be read", step=Step.IDP_METADATA)
    if metadata.get("issuer") != idp.issuer:
        raise SignInError(
            "the identity provider's configuration names another issuer than the one set; refusing it",
            step=Step.IDP_METADATA,
        )
    return metadata


async def sign_in_to_idp(
    idp: IdentityProviderSettings,
    sender: Sender,
    listener: LoopbackListener,
    show: Callable[[str], Awaitable[None]],
    timeout: float,
) -> IdToken:
    """The user signs in to the IdP in the browser (authorization code with PKCE and a nonce)."""
    metadata = await idp_metadata(idp, sender)
    endpoint = metadata.get("authorization_endpoint")
    if not isinstance(endpoint, str) or not is_secure_endpoint(endpoint):
        raise SignInError("the identity provider offers no browser sign-in over HTTPS", step=Step.IDP_METADATA)
    pkce = PKCEParameters.generate()
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(16)
    params = {
        "response_type": "code",
        "client_id": idp.client_id,
        "redirect_uri": listener.redirect_uri,
        "scope": " ".join(idp.scopes),
        "state": state,
        "nonce": nonce,
        "code_challenge": pkce.code_challenge,
        "code_challenge_method": "S256",
    }
    page = f"{endpoint}?{urlencode(params)}"
    sender.diagnosis.note_page(Step.IDP_SIGN_IN, page)
    await show(page)
    try:
        result = await listener.wait(timeout)
    except SignInCancelled as exc:
        raise SignInCancelled(str(exc), step=Step.IDP_SIGN_IN) from None
    _check_idp_response(result, state, idp, metadata)
    sender.diagnosis.passed(Step.IDP_SIGN_IN, "code received")
    assert result.code is not None
    form = {
        "grant_type": "authorization_code",
        "code": result.code,
        "redirect_uri": listener.redirect_uri,
        "code_verifier": pkce.code_verifier,
        "client_id": idp.client_id,
    }
    auth = httpx2.BasicAuth(idp.client_id, idp.client_secret) if idp.client_secret else None
    request = httpx2.Request("POST", metadata["token_endpoint"], data=form)
    if auth is not None:
        request = next(auth.auth_flow(request))
    response = await sender.send(request, step=Step.ID_TOKEN)
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict) or not isinstance(body.get("id_token"), str):
        raise SignInError(f"the identity provider issued no ID token (HTTP {response.status_code})", step=Step.ID_TOKEN)
    return read_id_token(body["id_token"], idp, nonce=nonce)


def _check_idp_response(
    result: CallbackParams, state: str, idp: IdentityProviderSettings, metadata: Mapping[str, object]
) -> None:
    """State, then issuer (RFC 9207), then any error: as for an MCP server's authorization server."""
    if result.state is None or not secrets.compare_digest(result.state, state):
        raise SignInError("the browser returned a response to another sign-in (state mismatch)", step=Step.IDP_SIGN_IN)
    if result.iss is not None and result.iss != idp.issuer:
        raise SignInError(
            "the sign-in came back from another identity provider than the one asked", step=Step.IDP_SIGN_IN
        )
    if result.iss is None and metadata.get("authorization_response_iss_parameter_supported") is True:
        raise SignInError(
            "the identity provider's response did not name its issuer, as it promised to", step=Step.IDP_SIGN_IN
        )
    if result.error:
        detail = one_line(f"{result.error}: {result.error_description}" if result.error_description else result.error)
        raise SignInError(f"the identity provider refused the sign-in ({detail})", step=Step.IDP_SIGN_IN)
    if not result.code:
        raise SignInError("the browser returned no authorization code", step=Step.IDP_SIGN_IN)
