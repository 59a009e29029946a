"""An organisation's sign-in set up for tests (SEP-990): a real identity provider on 127.0.0.1 and MCP servers
whose authorization servers trust it and know MCP Desk's pre-registered client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from tests.servers.identity_provider import TestIdentityProvider
from tests.servers.oauth_authorization import JWT_BEARER, Client
from tests.servers.oauth_server import OAuthOptions, OAuthTestServer

CLIENT_ID = "mcp-desk-corp"
"""MCP Desk's client at each MCP authorization server (the organisation registered it there)."""


@contextmanager
def organisation(count: int = 1, **options: object) -> Iterator[tuple[TestIdentityProvider, list[OAuthTestServer]]]:
    """An identity provider and `count` MCP servers whose authorization servers trust it."""
    idp = TestIdentityProvider(mcp_client_id=CLIENT_ID)
    with ExitStack() as stack:
        stack.enter_context(idp.running())
        servers = []
        for index in range(count):
            server = OAuthTestServer(OAuthOptions(idp=idp, prm="path", **options))  # type: ignore[arg-type]
            server.register_client(
                Client(CLIENT_ID, secret=f"secret-{index}", auth_method="client_secret_basic", grant_types=[JWT_BEARER])
            )
            servers.append(stack.enter_context(server.running()))
        yield idp, servers
