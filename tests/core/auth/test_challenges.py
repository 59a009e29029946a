"""A server's refusals outside tool calls: while connecting, while listing, and to `server/discover`.

Each plays against a real OAuth-protected MCP server on 127.0.0.1. Before, a 403 asking for more
scopes while listing read "server error -32603" and restarted into the same 403, and with auto
negotiation a refused `server/discover` was followed by the old handshake and a second 401.
"""

from __future__ import annotations

import pytest

from desktop_app.core.auth.doctor import Step
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_status import ServerState
from tests.core.auth.conftest import ServerFactory, remote
from tests.core.auth.hosted import hosted, signed_in
from tests.hosting import eventually
from tests.servers.oauth_server import ADMIN_SCOPE, READ_SCOPE, FollowingBrowser

pytestmark = pytest.mark.anyio


async def test_a_403_for_more_scopes_while_listing_asks_for_one_step_up_not_a_restart_loop(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server(scoped_methods={"tools/list": ADMIN_SCOPE}) as server:
        async with hosted(secrets, browser, remote(server)) as (host, states):
            connection = host.connection("remote")
            assert await connection.auth.sign_in() is None  # the first sign-in grants mcp:read only
            await eventually(
                lambda: connection.status.state is ServerState.NEEDS_SIGN_IN and connection.status.reason,
                what="the connection to say what it needs",
            )
            assert connection.status.summary == f"needs sign-in: needs more permissions ({ADMIN_SCOPE})"
            assert not any(s.state is ServerState.RESTARTING for s in states)
            assert not any("-32603" in entry.text for entry in connection.log)
            assert server.statuses_of("tools/list") == [403]
            assert len(server.requests.authorize) == 1  # nothing opened the browser by itself

            await signed_in(host)  # the user's one step-up
            asked = set(server.requests.authorize[-1]["scope"].split())
            assert {READ_SCOPE, ADMIN_SCOPE} <= asked  # what was granted, and what was asked for
            assert server.statuses_of("tools/list") == [403, 200]
            assert connection.catalog is not None and connection.catalog.tools


async def test_a_step_up_that_does_not_help_ends_in_failure_not_a_loop(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server(scoped_methods={"tools/list": ADMIN_SCOPE}, withhold_scopes=(ADMIN_SCOPE,)) as server:
        async with hosted(secrets, browser, remote(server)) as (host, states):
            connection = host.connection("remote")
            assert await connection.auth.sign_in() is None
            await eventually(lambda: connection.status.reason is not None, what="needs more permissions")
            assert await connection.auth.sign_in() is None  # granted without mcp:admin, again
            status = await connection.wait_settled(30)
            assert status.state is ServerState.FAILED
            assert status.reason == (
                f"still refuses to connect after signing in with more permissions ({ADMIN_SCOPE}); giving up"
            )
            assert len(server.requests.authorize) == 2
            assert server.statuses_of("tools/list") == [403, 403]
            assert not any(s.state is ServerState.RESTARTING for s in states)


async def test_a_refused_discover_signs_in_on_the_first_401(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        config = remote(server)
        assert config.protocol == "auto"
        async with hosted(secrets, browser, config) as (host, _):
            connection = host.connection("remote")
            assert connection.status.state is ServerState.NEEDS_SIGN_IN
            assert server.statuses_of("server/discover") == [401]
            assert server.statuses_of("initialize") == []  # no second refusal from the old handshake
            await signed_in(host)
            assert server.statuses_of("server/discover")[-1] == 200
            assert [status for _, status in server.requests.mcp].count(401) == 1


async def test_a_403_to_the_handshake_is_not_retried_with_the_old_one(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    scoped = {"server/discover": ADMIN_SCOPE, "initialize": ADMIN_SCOPE}
    with oauth_server(scoped_methods=scoped) as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            connection = host.connection("remote")
            assert await connection.auth.sign_in() is None
            await eventually(lambda: connection.status.reason is not None, what="needs more permissions")
            assert server.statuses_of("server/discover") == [401, 403]
            assert server.statuses_of("initialize") == []
            await signed_in(host)
            assert server.statuses_of("server/discover")[-1] == 200


async def test_the_first_request_with_a_new_token_is_part_of_the_diagnosis(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            connection = host.connection("remote")
            await signed_in(host)
            diagnosis = connection.auth.diagnosis
            assert diagnosis is not None
            first = diagnosis.finding(Step.FIRST_REQUEST)
            assert first is not None and first.ok and first.status == 200 and first.url == server.url

    with oauth_server(reject_tokens=True) as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            connection = host.connection("remote")
            assert await connection.auth.sign_in() is None
            await eventually(lambda: connection.status.state is ServerState.NEEDS_SIGN_IN, what="refused again")
            diagnosis = connection.auth.diagnosis
            assert diagnosis is not None and diagnosis.failed is not None
            assert diagnosis.failed.step is Step.FIRST_REQUEST and diagnosis.failed.status == 401
            assert "the server does not accept the new token" in diagnosis.failed.line()
            assert 'error="invalid_token"' in diagnosis.failed.line()
