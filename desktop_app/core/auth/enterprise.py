"""An organisation's sign-in to one MCP server (SEP-990, "cross-app access"): ID token → ID-JAG → token.

1. The user's ID token from the organisation's identity provider (`idp`): the stored one while it
   lasts, else the user signs in to the IdP in the browser (only when the user started the sign-in).
2. RFC 8693 token exchange at the IdP: the ID token for an Identity Assertion JWT Authorization
   Grant (ID-JAG) naming the MCP server's authorization server (`audience`) and the MCP server
   (`resource`). It is asked for afresh for each exchange and never stored.
3. RFC 7523 JWT bearer at the MCP server's authorization server, with MCP Desk's client there
   (the server's `clientId`/`clientSecret`), through the SDK's `IdentityAssertionOAuthProvider`.

The authorization server is the one the server's settings pin (`issuer`), else the first its
protected-resource metadata names, which must describe this server (RFC 9728 §3.3); the ID-JAG
and the client secret go only to that issuer's token endpoint (the SDK checks its origin).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Final, Literal

import httpx2
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import (
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    issuers_match,
)
from mcp.shared.auth import OAuthMetadata
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url
from pydantic import ValidationError

from desktop_app.core.auth.credentials import AuthRecord, CredentialStore
from desktop_app.core.auth.doctor import Step, one_line, server_words
from desktop_app.core.auth.driver import Sender, drive
from desktop_app.core.auth.errors import Challenge, SignInError
from desktop_app.core.auth.idp import IdentityProviderSettings, IdToken, IdTokens, idp_metadata, sign_in_to_idp
from desktop_app.core.auth.limits import MAX_TOKEN_CHARS
from desktop_app.core.auth.loopback import LoopbackListener
from desktop_app.core.auth.provider import RecordStorage
from desktop_app.core.server_config import OAuthSettings

ENTERPRISE_GRANT: Final = "enterprise"
"""The `"grant"` of a server whose sign-in is the organisation's (`"oauth": {"grant": "enterprise", …}`)."""
TOKEN_EXCHANGE_GRANT: Final = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG_TYPE: Final = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN_TYPE: Final = "urn:ietf:params:oauth:token-type:id_token"

Listening = Callable[[], AbstractAsyncContextManager[tuple[LoopbackListener, Callable[[str], Awaitable[None]]]]]
"""Opens the loopback listener for a browser step and gives the way to show the user a page."""


def is_enterprise(settings: OAuthSettings | None) -> bool:
    return settings is not None and settings.grant == ENTERPRISE_GRANT


class _EnterpriseGrant(IdentityAssertionOAuthProvider):
    """The SDK's JWT-bearer step, with the client authentication the authorization server offers."""

    def __init__(self, *args: Any, auth_method: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._auth_method = auth_method

    def _build_token_request(self, scope: str | None, assertion: str) -> httpx2.Request:
        self._client.token_endpoint_auth_method = self._auth_method()  # chosen once the metadata is read
        return super()._build_token_request(scope, assertion)


async def enterprise_sign_in(
    server_url: str,
    settings: OAuthSettings,
    idp: IdentityProviderSettings | None,
    credentials: CredentialStore,
    sender: Sender,
    probe: httpx2.Request,
    challenge: Challenge,
    *,
    listening: Listening | None,
    browser_timeout: float,
) -> AuthRecord:
    """Sign in to `server_url` as the organisation's user; `listening` None: never open a browser."""
    if idp is None:
        raise SignInError(
            "this server uses the organisation's sign-in, and no identity provider is set (Settings)",
            step=Step.IDP_METADATA,
        )
    if not settings.client_id or not settings.client_secret:
        raise SignInError(
            'the organisation\'s sign-in needs MCP Desk\'s "clientId" and "clientSecret" at the server\'s '
            "authorization server",
            step=Step.CLIENT,
        )
    issuer = await authorization_server(server_url, settings, sender, challenge)
    id_tokens = IdTokens(credentials)
    id_token = id_tokens.load(idp)
    if id_token is not None:
        sender.diagnosis.passed(Step.ID_TOKEN, "reused: signed in to the identity provider earlier")
    elif listening is None:
        raise SignInError(f"sign in to your organisation ({idp.issuer}) first", step=Step.IDP_SIGN_IN)
    else:
        async with listening() as (listener, show):
            id_token = await sign_in_to_idp(idp, sender, listener, show, browser_timeout)
        id_tokens.save(idp, id_token)
        sender.diagnosis.passed(Step.ID_TOKEN, "received")
    token_endpoint = str((await idp_metadata(idp, sender))["token_endpoint"])
    metadata: dict[str, Any] = {}
    storage = RecordStorage(AuthRecord(server_url, issuer=issuer))
    sender.diagnosis.note_client(Step.CLIENT, "pre-registered", settings.client_id)

    async def assertion(audience: str, resource: str) -> str:
        metadata.update(_observed_metadata(sender))
        return await exchange_for_id_jag(idp, token_endpoint, id_token, audience, resource, sender, id_tokens)

    provider = _EnterpriseGrant(
        server_url,
        storage,
        settings.client_id,
        settings.client_secret,
        issuer,
        assertion,
        scope=" ".join(settings.scopes) or None,
        auth_method=lambda: _auth_method(settings, metadata),
    )
    await drive(sender, provider, probe, challenge)
    if storage.record.tokens is None:
        raise SignInError("the authorization server issued no token", step=Step.TOKEN)
    try:
        as_metadata = OAuthMetadata.model_validate(metadata) if metadata else None
    except ValidationError:
        as_metadata = None
    return AuthRecord(server_url, issuer=issuer, metadata=as_metadata).with_tokens(storage.record.tokens)


async def authorization_server(server_url: str, settings: OAuthSettings, sender: Sender, challenge: Challenge) -> str:
    """The issuer of the server's authorization server: pinned in its settings, else from its metadata."""
    resource = resource_url_from_server_url(server_url)
    for url in build_protected_resource_metadata_discovery_urls(challenge.resource_metadata, server_url):
        response = await sender.send(create_oauth_metadata_request(url), step=Step.RESOURCE_METADATA)
        if response.status_code != 200:
            continue
        try:
            document = json.loads(response.content)
        except ValueError:
            document = None
        named = document.get("resource") if isinstance(document, dict) else None
        servers = document.get("authorization_servers") if isinstance(document, dict) else None
        if not isinstance(named, str) or not isinstance(servers, list) or not servers:
            sender.diagnosis.fail(Step.RESOURCE_METADATA, "not protected-resource metadata MCP Desk can read")
            continue
        if not check_resource_allowed(requested_resource=resource, configured_resource=named):
            raise SignInError(
                f"the server's metadata is for another resource ({one_line(named)}), not {resource}; refusing to "
                "sign in",
                step=Step.RESOURCE_METADATA,
            )
        if settings.issuer is not None:
            if not any(isinstance(s, str) and issuers_match(s, settings.issuer) for s in servers):
                raise SignInError(
                    f"the server now names another authorization server ({one_line(str(servers[0]))}) than "
                    f"{settings.issuer}",
                    step=Step.RESOURCE_METADATA,
                )
            return settings.issuer
        if not isinstance(servers[0], str):
            break
        return servers[0]  # as written: the issuer the authorization server's metadata must name exactly
    if settings.issuer is not None:
        return settings.issuer
    raise SignInError(
        "the server publishes no protected-resource metadata naming its authorization server, and none is set "
        '("issuer")',
        step=Step.RESOURCE_METADATA,
    )


async def exchange_for_id_jag(
    idp: IdentityProviderSettings,
    token_endpoint: str,
    id_token: IdToken,
    audience: str,
    resource: str,
    sender: Sender,
    id_tokens: IdTokens,
) -> str:
    """RFC 8693 at the IdP: the user's ID token for an ID-JAG for `audience` and `resource`."""
    form = {
        "grant_type": TOKEN_EXCHANGE_GRANT,
        "requested_token_type": ID_JAG_TYPE,
        "subject_token": id_token.token,
        "subject_token_type": ID_TOKEN_TYPE,
        "audience": audience,
        "resource": resource,
        "client_id": idp.client_id,
    }
    request = httpx2.Request("POST", token_endpoint, data=form)
    if idp.client_secret:
        request = next(httpx2.BasicAuth(idp.client_id, idp.client_secret).auth_flow(request))
    response = await sender.send(request, step=Step.TOKEN_EXCHANGE)
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict):
        words = server_words(response)
        if response.status_code == 400 and "invalid_grant" in words:
            id_tokens.forget(idp)  # the IdP no longer takes this sign-in: the next one asks the user again
        raise SignInError(
            f"the identity provider refused the token exchange (HTTP {response.status_code}"
            + (f": {words.strip(chr(34))})" if words else ")"),
            step=Step.TOKEN_EXCHANGE,
        )
    grant = body.get("access_token")
    if body.get("issued_token_type") != ID_JAG_TYPE or not isinstance(grant, str) or not grant:
        raise SignInError(
            "the identity provider answered the token exchange without an ID-JAG", step=Step.TOKEN_EXCHANGE
        )
    if len(grant) > MAX_TOKEN_CHARS:
        raise SignInError("the identity provider's ID-JAG is too large; refusing it", step=Step.TOKEN_EXCHANGE)
    sender.diagnosis.passed(Step.TOKEN_EXCHANGE, "ID-JAG received")
    return grant


def _observed_metadata(sender: Sender) -> dict[str, Any]:
    """The authorization server's metadata as the flow read it (the SDK keeps its copy to itself)."""
    found = sender.diagnosis.finding(Step.SERVER_METADATA)
    answer = sender.answers.get(found.url) if found is not None and found.ok else None
    try:
        data = json.loads(answer) if answer else None
    except ValueError:
        data = None
    return data if isinstance(data, dict) else {}


def _auth_method(
    settings: OAuthSettings, metadata: dict[str, Any]
) -> Literal["client_secret_basic", "client_secret_post"]:
    """The configured method, else basic unless the server offers only post (RFC 8414's default is basic)."""
    if settings.token_endpoint_auth_method == "client_secret_post":
        return "client_secret_post"
    if settings.token_endpoint_auth_method == "client_secret_basic":
        return "client_secret_basic"
    offered = metadata.get("token_endpoint_auth_methods_supported")
    if isinstance(offered, list) and "client_secret_post" in offered and "client_secret_basic" not in offered:
        return "client_secret_post"
    return "client_secret_basic"
