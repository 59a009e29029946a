"""A hostile authorization server's oversized answers: cut off early, refused in one line, nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.flow import sign_in
from desktop_app.core.secret_store import SecretStore
from tests.core.auth.conftest import ServerFactory, remote
from tests.hosting import eventually
from tests.servers.oauth_server import FollowingBrowser, OAuthTestServer

pytestmark = pytest.mark.anyio

HUGE = 60 * 1024 * 1024


def largest_file(folder: Path) -> int:
    return max((path.stat().st_size for path in folder.rglob("*") if path.is_file()), default=0)


async def cut_off(server: OAuthTestServer) -> None:
    """The server's one oversized answer ended before all of it went out: the client stopped reading."""
    (stream,) = server.streams
    await eventually(stream.ended.is_set, what="the oversized answer to end")
    assert not stream.completed and stream.sent < HUGE // 4


async def test_a_60_mb_token_response_is_cut_off_and_nothing_is_stored(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser, tmp_path: Path
) -> None:
    with oauth_server(token_size=HUGE) as server:
        with pytest.raises(SignInError) as caught:
            await sign_in(remote(server), credentials, browser)
        await cut_off(server)
    message = str(caught.value)
    assert message == f"the answer from {server.as_origin}/token is larger than 1 MiB; refusing it"
    assert credentials.load(server.url) is None
    assert largest_file(tmp_path / "data") < 64 * 1024


async def test_a_token_over_16_kib_is_refused_before_it_is_stored(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser, secrets: SecretStore
) -> None:
    with oauth_server(token_size=100_000) as server:
        with pytest.raises(SignInError) as caught:
            await sign_in(remote(server), credentials, browser)
        assert server.streams[0].completed  # under the response cap: read whole, then refused
    assert str(caught.value) == (
        "the authorization server issued an access token of 98 KiB (MCP Desk keeps at most 16 KiB); refusing it"
    )
    assert credentials.load(server.url) is None
    assert all(len(secrets.get(name) or "") < 64 * 1024 for name in secrets.names())


@pytest.mark.parametrize("declare_length", [False, True])
async def test_a_60_mb_metadata_document_is_cut_off(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser, declare_length: bool
) -> None:
    with oauth_server(metadata_size=HUGE, declare_length=declare_length) as server:
        with pytest.raises(SignInError) as caught:
            await sign_in(remote(server), credentials, browser)
        await cut_off(server)
    assert str(caught.value) == (
        f"the answer from {server.as_origin}/.well-known/oauth-authorization-server is larger than 1 MiB; refusing it"
    )
    assert browser.opened == [] and server.requests.register == []  # stopped before anything else
    assert credentials.load(server.url) is None


async def test_a_compressed_metadata_bomb_is_refused_unread(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    with (
        oauth_server(metadata_gzip_bomb=HUGE // 4) as server,
        pytest.raises(SignInError) as caught,
    ):
        await sign_in(remote(server), credentials, browser)
    assert str(caught.value) == (
        f"the answer from {server.as_origin}/.well-known/oauth-authorization-server came compressed (gzip)"
        " though asked not to be; refusing it"
    )
    assert browser.opened == [] and credentials.load(server.url) is None


async def test_an_error_description_becomes_part_of_one_short_line(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    description = "first line\n\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 " + "x" * 500_000
    with (
        oauth_server(token_error="invalid_grant", token_error_description=description) as server,
        pytest.raises(SignInError) as caught,
    ):
        await sign_in(remote(server), credentials, browser)
    message = str(caught.value)
    assert message.startswith("the authorization server refused the token request (invalid_grant: first line ]8;;")
    assert message.isprintable() and len(message) < 300
