"""The providers MCP Desk uses, one per grant and mode, and the one place that picks among them.

A **sign-in** provider runs the SDK's whole flow (driven by `flow.sign_in`, outside any MCP
session); a **session** provider does only silent work inside a transport (`session`).
"""

from __future__ import annotations

import warnings
from typing import Any, Final

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
from mcp.shared.exceptions import MCPDeprecationWarning

from desktop_app import __version__
from desktop_app.core.auth.client_auth import DocumentReader
from desktop_app.core.auth.doctor import Diagnosis, Step
from desktop_app.core.auth.errors import Challenge, SignInError
from desktop_app.core.auth.provider import Browser, DeskAuth, RecordStorage
from desktop_app.core.auth.session import SessionAuth, SessionObserver
from desktop_app.core.auth.workload import JWT_BEARER, check_assertion, read_assertion, source_name
from desktop_app.core.server_config import JWT_BEARER_GRANT, OAuthSettings

CLIENT_NAME: Final = "MCP Desk"


class AuthorizationCodeSignIn(DeskAuth, OAuthClientProvider):
    """The browser sign-in: authorization code with PKCE, CIMD or DCR when not pre-registered."""


class AuthorizationCodeSession(SessionAuth, DeskAuth, OAuthClientProvider):
    """A session's silent side of an authorization-code sign-in."""


class ClientCredentialsSignIn(DeskAuth, ClientCredentialsOAuthProvider):
    """Machine-to-machine with a client secret (basic or post)."""


class ClientCredentialsSession(SessionAuth, ClientCredentialsSignIn):
    pass


class PrivateKeyJWTSignIn(DeskAuth, PrivateKeyJWTOAuthProvider):
    """Machine-to-machine with a private-key JWT assertion (RFC 7523)."""


class PrivateKeyJWTSession(SessionAuth, PrivateKeyJWTSignIn):
    pass


class _JwtBearerGrant(OAuthClientProvider):
    """A workload's own JWT as the grant (RFC 7523 §2.1, SEP-1933): discovery as usual, no browser,
    no registration; the JWT is read afresh and checked (`workload`) at each token request."""

    settings: OAuthSettings

    async def _perform_authorization(self) -> httpx2.Request:
        context = self.context
        metadata = context.oauth_metadata
        if metadata is None:
            raise SignInError(
                "the authorization server publishes no metadata; refusing to send the workload's JWT to a guessed "
                "address",
                step=Step.SERVER_METADATA,
            )
        token_endpoint = str(metadata.token_endpoint)
        assertion = read_assertion(self.settings)
        check_assertion(assertion, source_name(self.settings), [str(metadata.issuer), token_endpoint])
        form: dict[str, Any] = {
            "grant_type": JWT_BEARER,
            "assertion": assertion,
            "resource": context.get_resource_url(),
        }
        if self.settings.client_id is not None:
            form["client_id"] = self.settings.client_id
        if context.client_metadata.scope:
            form["scope"] = context.client_metadata.scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        form, headers = context.prepare_token_auth(form, headers)
        return httpx2.Request("POST", token_endpoint, data=form, headers=headers)


class JwtBearerSignIn(DeskAuth, _JwtBearerGrant):
    """Signing in with the workload's JWT; DeskAuth's checks come first (scope, client authentication)."""


class JwtBearerSession(SessionAuth, JwtBearerSignIn):
    pass


def client_metadata(redirect_uri: str | None, settings: OAuthSettings) -> OAuthClientMetadata:
    """What MCP Desk registers (dynamic registration) and how its requests describe it."""
    return OAuthClientMetadata(
        redirect_uris=None if redirect_uri is None else [redirect_uri],  # type: ignore[list-item]
        client_name=CLIENT_NAME,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=" ".join(settings.scopes) or None,
        software_id="mcp-desk",
        software_version=__version__,
    )


def build_provider(
    server_url: str,
    settings: OAuthSettings,
    storage: RecordStorage,
    *,
    redirect_uri: str | None = None,
    browser: Browser | None = None,
    challenge: Challenge | None = None,
    client_metadata_url: str | None = None,
    observer: SessionObserver | None = None,
    diagnosis: Diagnosis | None = None,
    read_document: DocumentReader | None = None,
) -> OAuthClientProvider:
    """The provider for one server: a sign-in (`browser` given, or machine-to-machine) or a session (`observer`).

    `read_document` fetches the Client ID Metadata Document, whose methods a browser sign-in as its
    client chooses from (`client_auth`)."""
    session = observer is not None
    provider: OAuthClientProvider
    scope = " ".join(settings.scopes) or None
    if settings.grant == JWT_BEARER_GRANT:
        cls_bearer = JwtBearerSession if session else JwtBearerSignIn
        metadata = OAuthClientMetadata(redirect_uris=None, grant_types=[JWT_BEARER], scope=scope)
        provider = cls_bearer(server_url, metadata, storage)
        fixed = OAuthClientInformationFull(
            redirect_uris=None,
            # Without a client ID the assertion alone identifies the workload; the SDK's record needs a name.
            client_id=settings.client_id or "workload",
            client_secret=settings.client_secret,
            grant_types=[JWT_BEARER],
            token_endpoint_auth_method=settings.token_endpoint_auth_method,
            issuer=settings.issuer,
        )
    elif settings.machine_to_machine:
        assert settings.client_id is not None
        with warnings.catch_warnings():
            # The SDK deprecates omitting `issuer`; the user's config may leave it out (discovery decides).
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            if settings.private_key is not None:
                assertion = SignedJWTParameters(
                    issuer=settings.client_id,
                    subject=settings.client_id,
                    signing_key=settings.private_key,
                    signing_algorithm=settings.signing_algorithm,
                ).create_assertion_provider()
                cls_jwt = PrivateKeyJWTSession if session else PrivateKeyJWTSignIn
                provider = cls_jwt(server_url, storage, settings.client_id, assertion, scope, settings.issuer)
            else:
                assert settings.client_secret is not None
                method = settings.token_endpoint_auth_method
                cls_secret = ClientCredentialsSession if session else ClientCredentialsSignIn
                provider = cls_secret(
                    server_url,
                    storage,
                    settings.client_id,
                    settings.client_secret,
                    "client_secret_post" if method == "client_secret_post" else "client_secret_basic",
                    scope,
                    settings.issuer,
                )
        fixed = provider._fixed_client_info
    else:
        cls_code = AuthorizationCodeSession if session else AuthorizationCodeSignIn
        provider = cls_code(
            server_url,
            client_metadata(redirect_uri, settings),
            storage,
            client_metadata_url=None if settings.client_id else client_metadata_url,
        )
        fixed = None
        if settings.client_id is not None:
            fixed = OAuthClientInformationFull(
                client_id=settings.client_id,
                client_secret=settings.client_secret,
                redirect_uris=None if redirect_uri is None else [redirect_uri],  # type: ignore[list-item]
                token_endpoint_auth_method=settings.token_endpoint_auth_method,
                issuer=settings.issuer,
            )
    assert isinstance(provider, DeskAuth)
    provider._desk_setup(
        storage,
        settings,
        fixed_client=fixed,
        challenge=challenge,
        browser=browser,
        diagnosis=diagnosis,
        read_document=read_document,
    )
    if observer is not None:
        assert isinstance(provider, SessionAuth)
        provider._session_setup(observer)
    return provider
