"""The MCP conformance suite's client: MCP Desk's own connection and sign-in, run without a window.

The suite starts it as `python -m tests.conformance.client SERVER_URL` (from the checkout) with the scenario's name in
`MCP_CONFORMANCE_SCENARIO` and its data (pre-registered clients, keys, an identity provider's
ID token) in `MCP_CONFORMANCE_CONTEXT`. It connects as the window does: a server that asks for
sign-in gets one (the "browser" is an HTTP client following the authorization page's redirect to
the app's loopback listener), then it lists the tools and calls the scenario's tool, signing in
again when a call asks for more permissions, once. Any failure exits 1 with one line on stderr.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

import httpx2

from desktop_app.cli.asks import CliAsker
from desktop_app.core.asks.question import QuestionGate
from desktop_app.core.asks.service import AskService
from desktop_app.core.atomic_file import write_private
from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.enterprise import ENTERPRISE_GRANT
from desktop_app.core.auth.errors import SignInRequired
from desktop_app.core.auth.idp import IdentityProviderSettings, IdTokens, read_id_token
from desktop_app.core.auth.server_auth import SignInServices
from desktop_app.core.connection import ServerConnection
from desktop_app.core.events import EventBus
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import JWT_BEARER_GRANT, OAuthSettings, ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from tests.conformance import steps

CIMD_URL: Final = "https://conformance-test.local/client-metadata.json"
"""The Client ID Metadata Document URL the suite's authorization servers accept (`auth/basic-cimd`)."""
SETTLE_S: Final = 25.0
MAX_SIGN_INS: Final = 3
TOOL_ARGUMENTS: Final[dict[str, dict[str, Any]]] = {"add_numbers": {"a": 5, "b": 3}}


class FollowingBrowser:
    """The user's browser, approving at once: loads the authorization page and follows its redirects home."""

    async def open(self, url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as http:
            await http.get(url)


def oauth_settings(scenario: str, context: dict[str, Any], workdir: Path) -> OAuthSettings | None:
    """How MCP Desk would be configured for the scenario: from the data its context carries.

    A workload's JWT is where its platform would leave it: in a file (`workdir`), named by the entry.
    DPoP needs no setting: the authorization server advertises it.
    """
    if scenario == "auth/client-credentials-basic":
        return OAuthSettings(
            client_id=context["client_id"], client_secret=context["client_secret"], grant="client_credentials"
        )
    if scenario == "auth/client-credentials-jwt":
        return OAuthSettings(
            client_id=context["client_id"],
            private_key=context["private_key_pem"],
            signing_algorithm=context.get("signing_algorithm") or "ES256",
            grant="client_credentials",
        )
    if scenario == "auth/pre-registration":
        return OAuthSettings(client_id=context["client_id"], client_secret=context["client_secret"])
    if scenario == "auth/enterprise-managed-authorization":
        return OAuthSettings(
            client_id=context["client_id"], client_secret=context["client_secret"], grant=ENTERPRISE_GRANT
        )
    if scenario == "auth/wif-jwt-bearer":
        token = workdir / "workload-token"
        write_private(token, context["valid_jwt"])
        return OAuthSettings(client_id=context["client_id"], grant=JWT_BEARER_GRANT, assertion_file=str(token))
    return None


def identity_provider(context: dict[str, Any], credentials: CredentialStore) -> IdentityProviderSettings | None:
    """The organisation's IdP, with the user already signed in to it: the suite hands over their ID token."""
    if "idp_issuer" not in context:
        return None
    idp = IdentityProviderSettings(issuer=context["idp_issuer"], client_id=context["idp_client_id"])
    IdTokens(credentials).save(idp, read_id_token(context["idp_id_token"], idp))
    return idp


async def run(url: str, scenario: str, context: dict[str, Any], workdir: Path) -> None:
    config = ServerConfig(
        name="conformance",
        transport=TransportKind.HTTP,
        url=url,
        timeout=SETTLE_S,
        oauth=oauth_settings(scenario, context, workdir),
    )
    credentials = CredentialStore(lambda: None)
    services = SignInServices(
        credentials,
        opener=FollowingBrowser(),
        client_metadata_url=CIMD_URL,
        identity_provider=identity_provider(context, credentials),
    )
    asks = AskService(QuestionGate(CliAsker("defaults", "deny", lambda line: print(line, file=sys.stderr))))
    connection = ServerConnection(config, EventBus(), sign_in=services, asks=asks, policy=RestartPolicy(max_attempts=0))
    connection.start()
    try:
        await ready(connection)
        if await steps.drive(connection, scenario, context):
            return
        catalog = connection.catalog
        assert catalog is not None
        for tool in catalog.tools:
            await call(connection, tool.name, TOOL_ARGUMENTS.get(tool.name, {}))
    finally:
        await connection.stop()


async def ready(connection: ServerConnection) -> None:
    """Connected, signing in as often as the server asks (a few times at most)."""
    for _ in range(MAX_SIGN_INS):
        status = await connection.wait_settled(SETTLE_S)
        if status.state is not ServerState.NEEDS_SIGN_IN:
            break
        failure = await connection.auth.sign_in()
        if failure is not None:
            raise SystemExit(f"sign-in failed: {failure}")
    status = await connection.wait_settled(SETTLE_S)
    if status.state is not ServerState.READY:
        raise SystemExit(f"not connected: {status.summary}")


async def call(connection: ServerConnection, tool: str, arguments: dict[str, Any]) -> None:
    """Call `tool`; a refusal that wants a sign-in (more permissions) gets one, and the call one more try."""
    try:
        await connection.call_tool(tool, arguments)
        return
    except SignInRequired as refused:
        failure = await connection.auth.sign_in(refused.challenge)
        if failure is not None:
            raise SystemExit(f"sign-in for {tool} failed: {failure}") from None
    await ready(connection)
    await connection.call_tool(tool, arguments)


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    try:
        with tempfile.TemporaryDirectory(prefix="mcp-desk-conformance-") as workdir:
            asyncio.run(run(url, scenario, context, Path(workdir)))
    except SystemExit as exc:
        print(f"conformance client: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        print(f"conformance client: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
