"""An organisation's sign-in (SEP-990): one identity provider sign-in reaches every server that trusts it.

Real servers on 127.0.0.1: an OpenID Connect identity provider that exchanges ID tokens for
ID-JAGs, and OAuth-protected MCP servers whose authorization servers take ID-JAGs with the JWT
bearer grant from MCP Desk's pre-registered client.
"""

from __future__ import annotations

import time

import pytest

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.doctor import Diagnosis, Step
from desktop_app.core.auth.enterprise import ENTERPRISE_GRANT
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.flow import sign_in
from desktop_app.core.auth.idp import ID_TOKEN_PREFIX, IdentityProviderSettings, IdToken, IdTokens
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from tests.core.auth.hosted import hosted, signed_in
from tests.core.auth.organisation_idp import CLIENT_ID, organisation
from tests.hosting import eventually
from tests.servers.identity_provider import IDP_CLIENT_ID, TOKEN_EXCHANGE, TestIdentityProvider
from tests.servers.oauth_authorization import JWT_BEARER
from tests.servers.oauth_server import FollowingBrowser, OAuthTestServer

pytestmark = pytest.mark.anyio


def corporate(server: OAuthTestServer, name: str, index: int = 0) -> ServerConfig:
    settings = OAuthSettings(grant=ENTERPRISE_GRANT, client_id=CLIENT_ID, client_secret=f"secret-{index}")
    return ServerConfig(name=name, transport=TransportKind.HTTP, url=server.url, timeout=10.0, oauth=settings)


def idp_settings(idp: TestIdentityProvider) -> IdentityProviderSettings:
    return IdentityProviderSettings(issuer=idp.issuer, client_id=IDP_CLIENT_ID)


async def test_one_identity_provider_sign_in_reaches_every_server(
    secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with organisation(2) as (idp, (first, second)):
        configs = (corporate(first, "first"), corporate(second, "second", 1))
        async with hosted(secrets, browser, *configs) as (host, _):
            host.sign_in.identity_provider = idp_settings(idp)
            for name in ("first", "second"):
                # Nothing to reuse yet: each waits for the user instead of opening a browser by itself.
                assert host.connection(name).status.state is ServerState.NEEDS_SIGN_IN
            assert browser.opened == []

            await signed_in(host, "first")
            assert len(browser.opened) == 1 and browser.opened[0].startswith(f"{idp.issuer}/authorize?")
            await signed_in(host, "second")  # the stored ID token: no browser this time
            assert len(browser.opened) == 1

            result = await host.connection("second").call_tool("whoami", {})
            assert not result.is_error
            log = "\n".join(entry.text for name in ("first", "second") for entry in host.connection(name).log)

    grants = [form["grant_type"] for form in idp.requests.token]
    assert grants == ["authorization_code", TOKEN_EXCHANGE, TOKEN_EXCHANGE]
    exchanges = [form for form in idp.requests.token if form["grant_type"] == TOKEN_EXCHANGE]
    assert [form["audience"] for form in exchanges] == [first.issuer, second.issuer]
    assert [form["resource"] for form in exchanges] == [first.url, second.url]
    for server in (first, second):
        (bearer,) = [form for form in server.requests.token if form["grant_type"] == JWT_BEARER]
        assert bearer["authorization"].startswith("Basic ") and "client_secret" not in bearer
        assert bearer["resource"] == server.url
    # The ID token is a secret kept in the store; the ID-JAGs are used once and kept nowhere.
    id_token, *grants_issued = idp.issued
    assert any(name.startswith(ID_TOKEN_PREFIX) and id_token in (secrets.get(name) or "") for name in secrets.names())
    stored = "".join(secrets.get(name) or "" for name in secrets.names())
    assert grants_issued and all(grant not in stored and grant not in log for grant in grants_issued)
    assert id_token not in log


async def test_an_expiring_token_is_renewed_without_the_browser(
    secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with organisation(access_ttl=3) as (idp, (server,)):
        async with hosted(secrets, browser, corporate(server, "corp")) as (host, _):
            host.sign_in.identity_provider = idp_settings(idp)
            await signed_in(host, "corp")
            record = CredentialStore(lambda: secrets).load(server.url)
            assert record is not None and record.renew_at is not None
            renew_at = record.renew_at
            await eventually(lambda: time.time() > renew_at, what="the renewal time")
            assert not (await host.connection("corp").call_tool("whoami", {})).is_error
    assert len(browser.opened) == 1
    assert [form["grant_type"] for form in server.requests.token] == [JWT_BEARER, JWT_BEARER]
    assert 401 not in server.statuses_of("tools/call")  # renewed before the server refused


async def test_a_refused_exchange_is_named_and_the_stored_id_token_dropped(
    credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with organisation() as (idp, (server,)):
        settings = idp_settings(idp)
        IdTokens(credentials).save(settings, IdToken(idp.id_token(), time.time() + 3600))
        idp.refuse_exchange = True
        diagnosis = Diagnosis()
        with pytest.raises(SignInError, match="the identity provider refused the token exchange"):
            await sign_in(
                corporate(server, "corp"), credentials, browser, diagnosis=diagnosis, identity_provider=settings
            )
    failed = diagnosis.failed
    assert failed is not None and failed.step is Step.TOKEN_EXCHANGE and failed.status == 400
    assert "invalid_grant: the user's session at the identity provider has ended" in failed.line()
    assert IdTokens(credentials).load(settings) is None  # the next sign-in asks the user again
    assert server.requests.token == []  # nothing reached the MCP authorization server


async def test_a_server_whose_metadata_is_for_another_resource_gets_no_grant(
    credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    refused = pytest.raises(SignInError, match="metadata is for another resource")
    with organisation(resource_override="http://127.0.0.1:1/other") as (idp, (server,)), refused:
        await sign_in(corporate(server, "corp"), credentials, browser, identity_provider=idp_settings(idp))
    assert idp.requests.token == [] and idp.requests.authorize == []  # no sign-in, no ID-JAG asked for


async def test_a_pinned_authorization_server_is_the_only_one_the_grant_goes_to(
    credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with organisation() as (idp, (server,)):
        pinned = ServerConfig(
            name="corp",
            transport=TransportKind.HTTP,
            url=server.url,
            oauth=OAuthSettings(
                grant=ENTERPRISE_GRANT, client_id=CLIENT_ID, client_secret="secret-0", issuer="https://as.example.com"
            ),
        )
        with pytest.raises(SignInError, match="names another authorization server"):
            await sign_in(pinned, credentials, browser, identity_provider=idp_settings(idp))
    assert idp.requests.token == []


async def test_without_an_identity_provider_the_server_says_what_is_missing(
    credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with organisation() as (_, (server,)), pytest.raises(SignInError, match="no identity provider is set"):
        await sign_in(corporate(server, "corp"), credentials, browser)
