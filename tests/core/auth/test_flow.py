"""One sign-in end to end against a real OAuth-protected MCP server: discovery, identity, scopes, faults."""

from __future__ import annotations

from dataclasses import replace

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from desktop_app.core.auth.credentials import CredentialStore, secret_name
from desktop_app.core.auth.errors import Challenge, SignInCancelled, SignInError
from desktop_app.core.auth.flow import sign_in
from desktop_app.core.secret_store import SecretStore
from tests.core.auth.conftest import ServerFactory, remote
from tests.servers.oauth_server import ADMIN_SCOPE, READ_SCOPE, Client, FollowingBrowser, ForgingBrowser, query_of

pytestmark = pytest.mark.anyio

CIMD_URL = "https://desk.example/oauth/client.json"


async def test_header_discovery_dynamic_registration_and_pkce(
    oauth_server: ServerFactory, credentials: CredentialStore, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server(prm="header") as server:
        record = await sign_in(remote(server), credentials, browser)
    # Dynamic registration, as a native app with a loopback redirect.
    (registration,) = server.requests.register
    assert registration["application_type"] == "native"
    assert registration["redirect_uris"][0].startswith("http://127.0.0.1:")
    # The authorization request: PKCE S256, state, RFC 8707 resource, the challenge's scope (+ offline_access).
    (authorize,) = server.requests.authorize
    assert authorize["code_challenge_method"] == "S256" and len(authorize["code_challenge"]) == 43
    assert authorize["state"] and authorize["resource"] == server.url
    assert authorize["scope"] == f"{READ_SCOPE} offline_access"
    token = server.requests.token[-1]
    assert token["grant_type"] == "authorization_code" and token["resource"] == server.url and token["code_verifier"]
    assert token["authorization"].startswith("Basic ")  # the registration's client_secret_basic
    assert "Signed in" in browser.pages[0]
    # Stored in the secret store, bound to the issuer, with what a refresh needs.
    assert record.issuer == server.issuer and record.tokens is not None and record.tokens.refresh_token
    assert record.metadata is not None and str(record.metadata.token_endpoint).endswith("/token")
    assert credentials.load(server.url) == record
    assert secrets.get(secret_name(server.url)) is not None


@pytest.mark.parametrize("prm", ["path", "root"])
async def test_well_known_protected_resource_metadata(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser, prm: str
) -> None:
    with oauth_server(prm=prm) as server:
        record = await sign_in(remote(server), credentials, browser)
    assert record.issuer == server.issuer and record.resource_metadata is not None


@pytest.mark.parametrize(
    ("metadata", "issuer_path", "expected_path"),
    [
        ("oauth", "", "/.well-known/oauth-authorization-server"),
        ("oidc-insert", "", "/.well-known/openid-configuration"),
        ("oauth", "/tenant1", "/.well-known/oauth-authorization-server/tenant1"),
        ("oidc-insert", "/tenant1", "/.well-known/openid-configuration/tenant1"),
        ("oidc-append", "/tenant1", "/tenant1/.well-known/openid-configuration"),
    ],
)
async def test_authorization_server_metadata_variants(
    oauth_server: ServerFactory,
    credentials: CredentialStore,
    browser: FollowingBrowser,
    metadata: str,
    issuer_path: str,
    expected_path: str,
) -> None:
    with oauth_server(metadata=metadata, issuer_path=issuer_path) as server:
        record = await sign_in(remote(server), credentials, browser)
    assert server.requests.metadata == [expected_path]
    assert record.issuer == server.issuer


async def test_legacy_server_without_any_metadata_uses_default_endpoints(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server(prm="none", metadata="none", separate_as=False) as server:
        record = await sign_in(remote(server), credentials, browser)
    assert browser.opened[0].startswith(f"{server.rs_origin}/authorize?")
    assert len(server.requests.register) == 1
    # The specification sends `resource` even here; the SDK would leave it out.
    assert server.requests.authorize[0]["resource"] == server.url
    assert server.requests.token[-1]["resource"] == server.url
    assert record.metadata is None and record.tokens is not None


async def test_legacy_server_with_metadata_at_its_origin(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server(prm="none", metadata="oauth", separate_as=False) as server:
        record = await sign_in(remote(server), credentials, browser)
    assert record.issuer == server.rs_origin and record.metadata is not None


# -- client identity -----------------------------------------------------------------------


@pytest.mark.parametrize("method", [None, "client_secret_post"])
async def test_pre_registered_client_is_used_first(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser, method: str | None
) -> None:
    with oauth_server(cimd=True) as server:
        server.register_client(
            Client(
                "desk-app",
                secret="s3cret",
                auth_method=method or "client_secret_basic",
                redirect_uris=["http://127.0.0.1:1/callback"],
            )
        )
        config = remote(server, client_id="desk-app", client_secret="s3cret", token_endpoint_auth_method=method)
        record = await sign_in(config, credentials, browser, client_metadata_url=CIMD_URL)
    assert server.requests.register == [] and server.requests.authorize[0]["client_id"] == "desk-app"
    token = server.requests.token[-1]
    if method == "client_secret_post":
        assert token["client_secret"] == "s3cret" and not token["authorization"]
    else:
        assert token["authorization"].startswith("Basic ") and "client_secret" not in token
    assert record.client is None  # the secret stays where the user put it, not copied into the record


async def test_client_id_metadata_document_when_advertised(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server(cimd=True) as server:
        server.cimd_documents[CIMD_URL] = {
            "client_id": CIMD_URL,
            "client_name": "MCP Desk",
            "redirect_uris": ["http://127.0.0.1/callback"],
        }
        record = await sign_in(remote(server), credentials, browser, client_metadata_url=CIMD_URL)
    assert server.requests.register == []
    assert server.requests.authorize[0]["client_id"] == CIMD_URL
    assert record.client is not None and record.client.client_id == CIMD_URL


async def test_dynamic_registration_when_cimd_is_not_advertised(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server(cimd=False) as server:
        await sign_in(remote(server), credentials, browser, client_metadata_url=CIMD_URL)
    assert len(server.requests.register) == 1


async def test_stored_registration_is_reused(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        first = await sign_in(remote(server), credentials, browser)
        second = await sign_in(remote(server), credentials, browser)
    assert len(server.requests.register) == 1
    assert first.client is not None and second.client is not None
    assert first.client.client_id == second.client.client_id
    assert first.tokens != second.tokens


# -- scopes --------------------------------------------------------------------------------


async def test_scopes_come_from_the_resource_metadata_without_a_challenge_scope(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server(challenge_scope=None, resource_scopes=("mcp:read", "profile")) as server:
        await sign_in(remote(server), credentials, browser)
    assert server.requests.authorize[0]["scope"] == "mcp:read profile offline_access"


async def test_no_scope_when_neither_challenge_nor_resource_names_one(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    # The authorization server lists many scopes; the specification still omits `scope` here.
    with oauth_server(challenge_scope=None, resource_scopes=None) as server:
        await sign_in(remote(server), credentials, browser)
    assert "scope" not in server.requests.authorize[0]


async def test_configured_scopes_and_offline_access_only_when_advertised(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server(server_scopes=(READ_SCOPE, ADMIN_SCOPE)) as server:
        await sign_in(remote(server, scopes=(ADMIN_SCOPE,)), credentials, browser)
    assert server.requests.authorize[0]["scope"] == ADMIN_SCOPE
    assert "prompt" not in server.requests.authorize[0]


async def test_step_up_asks_for_the_union_of_scopes(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        await sign_in(remote(server), credentials, browser)
        challenge = Challenge(403, f'Bearer error="insufficient_scope", scope="{ADMIN_SCOPE}"')
        record = await sign_in(remote(server), credentials, browser, challenge=challenge)
    scopes = server.requests.authorize[-1]["scope"].split()
    assert {READ_SCOPE, ADMIN_SCOPE} <= set(scopes)
    assert record.tokens is not None and ADMIN_SCOPE in (record.tokens.scope or "")
    assert len(server.requests.metadata) == 1  # the step-up reuses what the sign-in discovered


# -- machine to machine --------------------------------------------------------------------


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_client_credentials_with_a_secret(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser, method: str
) -> None:
    with oauth_server() as server:
        server.register_client(Client("robot", secret="r0b0t", auth_method=method, grant_types=["client_credentials"]))
        config = remote(
            server,
            grant="client_credentials",
            client_id="robot",
            client_secret="r0b0t",
            token_endpoint_auth_method=method,
        )
        record = await sign_in(config, credentials, browser)
    assert browser.opened == []
    token = server.requests.token[-1]
    assert token["grant_type"] == "client_credentials" and token["resource"] == server.url
    assert record.tokens is not None and record.tokens.refresh_token is None


async def test_client_credentials_with_a_private_key_jwt(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    with oauth_server() as server:
        server.register_client(
            Client("robot", auth_method="private_key_jwt", grant_types=["client_credentials"], public_key=public_pem)
        )
        config = remote(
            server, grant="client_credentials", client_id="robot", private_key=private_pem, issuer=server.issuer
        )
        record = await sign_in(config, credentials, browser)
    token = server.requests.token[-1]
    assert token["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert record.tokens is not None


# -- what goes wrong -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"as_down": True}, "cannot reach http://127.0.0.1:1"),
        ({"metadata_malformed": True}, "sent metadata MCP Desk cannot read"),
        ({"metadata_status": 503}, "is not working (HTTP 503)"),
        ({"metadata_issuer": "http://127.0.0.1:9/elsewhere"}, "names another issuer"),
        ({"iss_override": "http://127.0.0.1:9"}, "another authorization server than the one asked"),
        ({"send_iss": False, "advertise_iss": True}, "did not name its issuer"),
        ({"registration_refused": True}, "refused to register MCP Desk (invalid_client_metadata"),
        ({"token_error": "invalid_grant"}, "refused the token request (invalid_grant"),
        ({"resource_override": "http://127.0.0.1:9/other"}, "is for another resource (http://127.0.0.1:9/other"),
        ({"pkce": False}, "does not support PKCE"),
        ({"deny": True}, "declined in the browser"),
        ({"endpoints_at": "http://auth.example.test"}, "to http://auth.example.test: it is not HTTPS"),
    ],
)
async def test_each_bad_input_is_one_clear_line_and_stores_nothing(
    oauth_server: ServerFactory,
    credentials: CredentialStore,
    browser: FollowingBrowser,
    options: dict[str, object],
    expected: str,
) -> None:
    with oauth_server(**options) as server:
        with pytest.raises(SignInError) as caught:
            await sign_in(remote(server), credentials, browser)
        assert expected in str(caught.value)
        assert "\n" not in str(caught.value)
        assert credentials.load(server.url) is None


async def test_a_forged_callback_first_does_not_cancel_the_real_sign_in(
    oauth_server: ServerFactory, credentials: CredentialStore
) -> None:
    racing = ForgingBrowser()
    with oauth_server() as server:
        record = await sign_in(remote(server), credentials, racing)
    assert [response.status_code for response in racing.forged] == [400, 400, 400, 400]
    assert all("Not this sign-in" in response.text for response in racing.forged)
    assert "Signed in" in racing.pages[0]
    assert record.tokens is not None and credentials.load(server.url) == record


async def test_a_redirect_with_another_state_is_not_taken(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server(state_override="forged") as server:
        with pytest.raises(SignInCancelled, match="did not come back"):
            await sign_in(remote(server), credentials, browser, browser_timeout=0.3)
        assert credentials.load(server.url) is None
    assert "Not this sign-in" in browser.pages[0]  # the tab says so; the sign-in went on waiting for its own


async def test_a_redirect_that_never_comes_times_out(oauth_server: ServerFactory, credentials: CredentialStore) -> None:
    closed_tab = FollowingBrowser(follow=False)
    with oauth_server() as server:
        with pytest.raises(SignInCancelled, match=r"did not come back within 0\.3 s"):
            await sign_in(remote(server), credentials, closed_tab, browser_timeout=0.3)
        assert credentials.load(server.url) is None
    assert query_of(closed_tab.opened[0])["response_type"] == "code"


async def test_a_failed_sign_in_keeps_the_previous_one(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        before = await sign_in(remote(server), credentials, browser)
        server.options.token_error = "invalid_grant"
        with pytest.raises(SignInError):
            await sign_in(remote(server), credentials, browser)
        assert credentials.load(server.url) == before


async def test_the_servers_own_headers_never_reach_its_authorization_server(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    """A header the user set for the MCP server (an API key) went with every sign-in request, to an
    authorization server the MCP server itself names: it stays with the MCP server's origin now."""
    with oauth_server(prm="path") as server:
        config = replace(remote(server), headers={"X-Api-Key": "sk-live-0123456789"})
        await sign_in(config, credentials, browser)
    assert server.requests.headers, "the authorization server was asked nothing"
    assert all("x-api-key" not in headers for headers in server.requests.headers)
    assert server.requests.token[-1]["grant_type"] == "authorization_code"
