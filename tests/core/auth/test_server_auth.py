"""A remote server that needs sign-in, through the host: its state, signing in, renewal, step-up, sign-out."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import httpx2
import pytest

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.errors import SignInRequired
from desktop_app.core.config_file import save_config
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_config import TransportKind
from desktop_app.core.server_errors import ServerUnavailableError
from desktop_app.core.server_status import ServerState, ServerStatus
from tests.core.auth.conftest import ServerFactory, remote
from tests.core.auth.hosted import hosted, signed_in
from tests.hosting import eventually, fixture_config
from tests.servers.oauth_server import ADMIN_SCOPE, ADMIN_TOOL, Client, FollowingBrowser, ForgingBrowser

pytestmark = pytest.mark.anyio


@pytest.mark.stdio
async def test_needs_sign_in_is_its_own_state_not_restart_backoff(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server), fixture_config("local")) as (host, states):
            connection = host.connection("remote")
            assert connection.status.state is ServerState.NEEDS_SIGN_IN
            assert not any(s.state is ServerState.RESTARTING for s in states)
            assert [e.text for e in connection.log][-1] == "needs sign-in"
            assert host.connection("local").status.state is ServerState.READY  # the others are unaffected
            assert browser.opened == []  # nobody opened a browser without the user asking
            with pytest.raises(SignInRequired, match="'remote' needs sign-in"):
                await connection.call_tool("whoami", {})

            await signed_in(host)
            assert {t.name for t in connection.catalog.tools} == {"whoami", ADMIN_TOOL}  # type: ignore[union-attr]
            result = await connection.call_tool("whoami", {})
            assert result.content[0].text == "a signed-in user"  # type: ignore[union-attr]
            after = [s.state for s in states][[s.state for s in states].index(ServerState.SIGNING_IN) :]
            assert set(after) == {ServerState.SIGNING_IN, ServerState.STARTING, ServerState.READY}
            assert after[-1] is ServerState.READY


async def test_a_forged_callback_does_not_cancel_the_windows_sign_in(
    oauth_server: ServerFactory, secrets: SecretStore
) -> None:
    racing = ForgingBrowser()
    with oauth_server() as server:
        async with hosted(secrets, racing, remote(server)) as (host, _):
            await signed_in(host)
            assert [response.status_code for response in racing.forged] == [400, 400, 400, 400]
            assert "Signed in" in racing.pages[0]


async def test_stored_sign_in_is_used_on_the_next_start(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser, tmp_path: Path
) -> None:
    with oauth_server() as server:
        config = remote(server)
        async with hosted(secrets, browser, config) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            save_config(tmp_path / "servers.json", {"remote": config})
            log_text = "\n".join(entry.text for entry in connection.log)
        async with hosted(secrets, browser, config) as (host, _):
            assert host.connection("remote").status.state is ServerState.READY
        assert len(browser.opened) == 1
    record = CredentialStore(lambda: secrets).load(server.url)
    assert record is not None and record.tokens is not None
    # Tokens live in the secret store only: not in servers.json, not in the log.
    for token in (record.tokens.access_token, record.tokens.refresh_token):
        assert token and token not in (tmp_path / "servers.json").read_text() and token not in log_text


async def test_refresh_shortly_before_expiry(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server(access_ttl=3) as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            record = CredentialStore(lambda: secrets).load(server.url)
            assert record is not None and record.renew_at is not None and record.expires_at is not None
            assert record.renew_at < record.expires_at
            renew_at = record.renew_at
            await eventually(lambda: time.time() > renew_at, what="the renewal time")
            refused_before = server.requests.mcp_statuses.count(401)
            await host.connection("remote").call_tool("whoami", {})
            grants = [t["grant_type"] for t in server.requests.token]
            assert grants == ["authorization_code", "refresh_token"]
            assert server.requests.mcp_statuses.count(401) == refused_before  # renewed before the server refused


async def test_refresh_on_401(oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser) -> None:
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            server.expire_access_tokens()  # the server stops accepting the token early
            result = await host.connection("remote").call_tool("whoami", {})
            assert not result.is_error
            assert server.requests.token[-1]["grant_type"] == "refresh_token"
            assert host.connection("remote").status.state is ServerState.READY


async def test_revoked_refresh_token_needs_a_new_sign_in(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            server.expire_access_tokens()
            server.revoke_refresh_tokens()
            with pytest.raises(SignInRequired, match="expired or was revoked"):
                await connection.call_tool("whoami", {})
            await eventually(lambda: connection.status.state is ServerState.NEEDS_SIGN_IN, what="needs sign-in")
            assert connection.status.reason == "the sign-in has expired or was revoked"
            record = CredentialStore(lambda: secrets).load(server.url)
            assert record is not None and record.tokens is None and record.client is not None  # no dead tokens kept
            await signed_in(host)
            assert len(server.requests.register) == 1  # the registration survived


@pytest.mark.parametrize(
    ("size", "expected"),
    [(60 * 1024 * 1024, "larger than 1 MiB; refusing it"), (100_000, "an access token of 98 KiB")],
)
async def test_a_renewal_with_an_oversized_token_is_refused(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser, size: int, expected: str
) -> None:
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            server.options.token_size = size
            server.expire_access_tokens()
            with pytest.raises(SignInRequired, match=f"could not renew the sign-in: .*{expected}"):
                await host.connection("remote").call_tool("whoami", {})
            (stream,) = server.streams
            await eventually(stream.ended.is_set, what="the oversized answer to end")
            assert stream.sent < 60 * 1024 * 1024 // 4
            record = CredentialStore(lambda: secrets).load(server.url)
            assert record is not None and record.tokens is None  # the old token is given up, no new one kept
            assert all(len(secrets.get(name) or "") < 64 * 1024 for name in secrets.names())


async def test_step_up_and_its_limit(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            with pytest.raises(SignInRequired) as caught:
                await connection.call_tool(ADMIN_TOOL, {})
            assert caught.value.challenge is not None and caught.value.challenge.step_up
            assert await connection.auth.sign_in(caught.value.challenge) is None
            assert connection.status.state is ServerState.READY  # the session went on
            assert (await connection.call_tool(ADMIN_TOOL, {})).content[0].text == "admin work done"  # type: ignore[union-attr]

    with oauth_server(withhold_scopes=(ADMIN_SCOPE,)) as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            for _ in range(2):
                with pytest.raises(SignInRequired) as caught:
                    await connection.call_tool(ADMIN_TOOL, {})
                assert await connection.auth.sign_in(caught.value.challenge) is None
            with pytest.raises(ServerUnavailableError, match="giving up") as final:
                await connection.call_tool(ADMIN_TOOL, {})
            assert not isinstance(final.value, SignInRequired)


async def test_sign_out_revokes_and_forgets(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            outcome = await connection.auth.sign_out()
            assert outcome == "signed out; the authorization server revoked the tokens"
            assert {r["token_type_hint"] for r in server.requests.revoke} == {"refresh_token", "access_token"}
            assert CredentialStore(lambda: secrets).load(server.url) is None
            await connection.restart()
            assert (await connection.wait_settled(30)).state is ServerState.NEEDS_SIGN_IN


async def test_cancel_while_waiting_for_the_browser(oauth_server: ServerFactory, secrets: SecretStore) -> None:
    closed_tab = FollowingBrowser(follow=False)
    with oauth_server() as server:
        async with hosted(secrets, closed_tab, remote(server)) as (host, _):
            connection = host.connection("remote")
            task = connection.auth.start_sign_in()
            await eventually(lambda: bool(closed_tab.opened), what="the browser to open")
            assert connection.status.state is ServerState.SIGNING_IN
            redirect_uri = httpx2.URL(closed_tab.opened[0]).params["redirect_uri"]
            connection.auth.cancel_sign_in()
            assert await task == "sign-in cancelled"
            assert connection.status == ServerStatus(ServerState.NEEDS_SIGN_IN, reason="sign-in cancelled")
            assert [e.text for e in connection.log][-1] == "sign-in cancelled"
            with pytest.raises(httpx2.ConnectError):  # the loopback listener is closed
                async with httpx2.AsyncClient() as http:
                    await http.get(redirect_uri)


async def test_a_failed_sign_in_says_why_in_status_and_log(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server(registration_refused=True) as server:
        async with hosted(secrets, browser, remote(server), fixture_config("local")) as (host, _):
            connection = host.connection("remote")
            failure = await connection.auth.sign_in()
            assert failure is not None and "refused to register MCP Desk" in failure
            assert connection.status.state is ServerState.NEEDS_SIGN_IN and connection.status.reason == failure
            assert [e.text for e in connection.log][-1] == f"sign-in failed: {failure}"
            assert host.connection("local").status.state is ServerState.READY


async def test_client_credentials_connect_without_anyone(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server(access_ttl=3) as server:
        server.register_client(
            Client("robot", secret="r0b0t", auth_method="client_secret_basic", grant_types=["client_credentials"])
        )
        config = remote(server, grant="client_credentials", client_id="robot", client_secret="r0b0t")
        async with hosted(secrets, browser, config) as (host, states):
            connection = host.connection("remote")
            assert connection.status.state is ServerState.READY
            assert ServerState.NEEDS_SIGN_IN not in {s.state for s in states}
            record = CredentialStore(lambda: secrets).load(server.url)
            assert record is not None and record.renew_at is not None
            renew_at = record.renew_at
            await eventually(lambda: time.time() > renew_at, what="the renewal time")
            await connection.call_tool("whoami", {})
            assert [t["grant_type"] for t in server.requests.token] == ["client_credentials", "client_credentials"]
        assert browser.opened == []


async def test_client_credentials_refused_waits_instead_of_looping(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        server.register_client(
            Client("robot", secret="right", auth_method="client_secret_basic", grant_types=["client_credentials"])
        )
        config = remote(server, grant="client_credentials", client_id="robot", client_secret="wrong")
        async with hosted(secrets, browser, config) as (host, _):
            connection = host.connection("remote")
            assert connection.status.state is ServerState.NEEDS_SIGN_IN
            assert "refused the token request (invalid_client" in (connection.status.reason or "")
            await asyncio.sleep(0)  # nothing is retried behind the user's back
            assert len(server.requests.token) == 1


async def test_a_missing_client_secret_placeholder_fails_clearly(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        config = remote(server, client_id="desk", client_secret="${secret:DESK_SECRET}")
        async with hosted(secrets, browser, config) as (host, _):
            status = host.connection("remote").status
    assert status.state is ServerState.FAILED
    assert "oauth.clientSecret uses secret 'DESK_SECRET'" in (status.reason or "")


async def test_sse_transport_signs_in_the_same_way(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server(sse=True, prm="path") as server:
        config = replace(remote(server), transport=TransportKind.SSE)
        async with hosted(secrets, browser, config) as (host, states):
            connection = host.connection("remote")
            assert connection.status.state is ServerState.NEEDS_SIGN_IN
            assert not any(s.state is ServerState.RESTARTING for s in states)
            await signed_in(host)
            assert (await connection.call_tool("whoami", {})).content[0].text == "a signed-in user"  # type: ignore[union-attr]
    assert browser.opened[0].startswith(f"{server.issuer}/authorize?")
