"""Fixtures for sign-in tests: a real secret store in a temp dir, the test OAuth servers, a browser."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.secret_store import SecretStore, open_secret_store
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from tests.servers.oauth_server import FollowingBrowser, OAuthOptions, OAuthTestServer

ServerFactory = Callable[..., AbstractContextManager[OAuthTestServer]]


@pytest.fixture
def secrets(tmp_path: Path) -> SecretStore:
    """A real secret store (the 0600 plaintext file) so tests can read what was written."""
    return open_secret_store(tmp_path / "data", prefer="plaintext-file")


@pytest.fixture
def credentials(secrets: SecretStore) -> CredentialStore:
    return CredentialStore(lambda: secrets)


@pytest.fixture
def browser() -> FollowingBrowser:
    return FollowingBrowser()


@pytest.fixture
def oauth_server() -> Iterator[ServerFactory]:
    """`with oauth_server(**options) as server:` a running OAuth-protected MCP server."""

    def start(**options: object) -> AbstractContextManager[OAuthTestServer]:
        return OAuthTestServer(OAuthOptions(**options)).running()  # type: ignore[arg-type]

    yield start


def remote(server: OAuthTestServer, name: str = "remote", **oauth: object) -> ServerConfig:
    settings = OAuthSettings(**oauth) if oauth else None  # type: ignore[arg-type]
    return ServerConfig(name=name, transport=TransportKind.HTTP, url=server.url, timeout=10.0, oauth=settings)
