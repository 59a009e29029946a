"""Signing out: revoke the tokens where the authorization server offers it (RFC 7009), forget them here."""

from __future__ import annotations

import logging

import httpx2
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

from desktop_app.core.auth.credentials import AuthRecord, CredentialStore
from desktop_app.core.auth.provider import RecordStorage, is_secure_endpoint
from desktop_app.core.server_config import OAuthSettings
from desktop_app.core.tls import tls_context

log = logging.getLogger(__name__)

REVOKE_TIMEOUT_S = 15.0


async def sign_out(server_url: str, settings: OAuthSettings | None, credentials: CredentialStore) -> str:
    """Revoke and forget `server_url`'s sign-in; returns one line saying what happened."""
    record = credentials.load(server_url)
    if record is None or record.tokens is None:
        credentials.forget(server_url)
        return "was not signed in"
    revoked = await _revoke(record, settings or OAuthSettings())
    credentials.forget(server_url)
    if revoked:
        return "signed out; the authorization server revoked the tokens"
    return "signed out here (the authorization server offers no revocation)"


async def _revoke(record: AuthRecord, settings: OAuthSettings) -> bool:
    """True when the server confirmed; a failure to revoke never keeps the tokens here."""
    metadata = record.metadata
    endpoint = str(metadata.revocation_endpoint) if metadata and metadata.revocation_endpoint else None
    tokens = record.tokens
    if endpoint is None or tokens is None or not is_secure_endpoint(endpoint):
        return False
    client = record.client
    if client is None and settings.client_id is not None and settings.private_key is None:
        client = OAuthClientInformationFull(
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_endpoint_auth_method=settings.token_endpoint_auth_method
            or ("client_secret_basic" if settings.client_secret else "none"),
        )
    # The SDK's client authentication (basic, post or none) for the revocation request too.
    context = OAuthContext(
        server_url=record.server_url,
        client_metadata=OAuthClientMetadata(redirect_uris=None),
        storage=RecordStorage(record),
        redirect_handler=None,
        callback_handler=None,
    )
    context.client_info = client
    ok = True
    async with httpx2.AsyncClient(timeout=REVOKE_TIMEOUT_S, verify=tls_context()) as http:
        for token, hint in ((tokens.refresh_token, "refresh_token"), (tokens.access_token, "access_token")):
            if not token:
                continue
            data = {"token": token, "token_type_hint": hint}
            if client is not None:
                data["client_id"] = client.client_id
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
            data, headers = context.prepare_token_auth(data, headers)
            try:
                # Only the status matters: the answer's body is never read, however large it is.
                async with http.stream("POST", endpoint, data=data, headers=headers) as response:
                    ok = ok and response.status_code == 200
            except httpx2.HTTPError as exc:
                log.info("revoking the %s failed: %s", hint, type(exc).__name__)
                return False
    return ok
