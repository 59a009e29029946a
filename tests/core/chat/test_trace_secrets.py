"""Every secret a chat's servers use is scrubbed from its traces: OAuth tokens from the secret store,
`${secret:…}` and `${VAR}` values, values written into a server's environment or headers, the API key."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.auth import OAuthToken

from desktop_app.core.auth.credentials import AuthRecord
from desktop_app.core.chat.trace_secrets import SecretsInUse
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.trace import TraceWriter
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from tests.core.ledger.secrets_check import assert_clean

pytestmark = pytest.mark.anyio

URL = "http://127.0.0.1:9/mcp"  # nothing listens: the servers need not run for their secrets to be known
SECRETS = {
    "stored": "value-from-the-secret-store-5521",
    "header": "header-token-from-the-store-8812",
    "client": "oauth-client-secret-7731",
}
ENVIRONMENT = {"DEPLOY_TARGET": "from-the-environment-3141", "MY_API_TOKEN": "env-api-token-2718"}
"""The first reaches a server through `${DEPLOY_TARGET}`; the second is named like a credential."""
ACCESS, REFRESH = "oauth-access-token-0101", "oauth-refresh-token-0202"
LITERAL = "written-into-servers-json-9999"
API_KEY = "sk-provider-key-abcdefabcdef1234"


class Store(dict[str, str]):
    """The secret store's interface (the keyring in the app)."""

    def set(self, name: str, value: str) -> None:
        self[name] = value

    def delete(self, name: str) -> None:
        self.pop(name, None)


async def test_a_trace_keeps_none_of_the_secrets_its_servers_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    secrets = Store({name: value for name, value in SECRETS.items()})
    host = ServerHost(secrets=secrets, policy=RestartPolicy(max_attempts=0))
    host.sign_in.credentials.save(AuthRecord(URL, tokens=OAuthToken(access_token=ACCESS, refresh_token=REFRESH)))
    local = ServerConfig(
        name="local",
        transport=TransportKind.STDIO,
        command="/nonexistent/server",
        env={"A": "${secret:stored}", "B": "${DEPLOY_TARGET}", "C": LITERAL},
    )
    remote = ServerConfig(
        name="remote",
        transport=TransportKind.HTTP,
        url=URL,
        headers={"X-Token": "Bearer ${secret:header}"},
        oauth=OAuthSettings(client_id="desk", client_secret="${secret:client}"),
    )
    host.start([local, remote])
    try:
        await host.wait_settled(30)
        path = tmp_path / "trace.jsonl"
        writer = TraceWriter(path, SecretsInUse(host, API_KEY))
        every = [*SECRETS.values(), *ENVIRONMENT.values(), ACCESS, REFRESH, LITERAL, API_KEY]
        writer.add({"type": "mcp", "result": {"content": [{"type": "text", "text": " ".join(every)}]}})
        writer.add({"type": "model_response", "message": {"content": f"Authorization: Bearer {ACCESS}"}})
        writer.flush()
        assert writer.failed is None and path.read_text().count("***") == len(every) + 1
        assert_clean([path], every)
    finally:
        await host.stop_all()
