"""Every secret a chat's servers use is scrubbed from its traces: OAuth tokens from the secret store,
`${secret:…}` and `${VAR}` values, values written into a server's environment or headers, the API key."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.auth import OAuthToken

from desktop_app.core.auth.credentials import AuthRecord
from desktop_app.core.chat.trace_secrets import SecretsInUse, masked_names, scrubber_for
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
ENVIRONMENT = {"DEPLOY_TARGET": "from-the-environment-3f4e5d6c7b", "MY_API_TOKEN": "env-api-token-2718"}
"""The first reaches a server through `${DEPLOY_TARGET}` and is shaped like a credential; the second is
named like one."""
ACCESS, REFRESH = "oauth-access-token-0101", "oauth-refresh-token-0202"
LITERAL = "written-into-servers-json-9f8e7d6c"
"""Under an ordinary name, but shaped like a credential."""
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


async def test_only_credentials_are_masked_and_their_names_are_told(tmp_path: Path) -> None:
    """Headers and variables named like credentials, values shaped like them and a URL's password are
    masked; a mode, a path, a workspace and the author's name are ordinary words and stay."""
    environ = {"GIT_AUTHOR_NAME": "Ada Lovelace", "SERVICE_TOKEN": "process-token-value", "SHORT_KEY": "abc"}
    ordinary = ["deleted", "/home/ada/notes", "none-at-all", "acme-workspace", "Ada Lovelace", "wheel"]
    secret = {
        "bearer": "bearer-credential-31415",
        "cookie": "session=cookie-value-27182",
        "api key": "plain words under a key name",
        "url password": "url-password-16180",
        "shaped": "9f8e7d6c5b4a3928170615",
        "process": "process-token-value",
    }
    host = ServerHost(secrets=Store(), policy=RestartPolicy(max_attempts=0))
    local = ServerConfig(
        name="local",
        transport=TransportKind.STDIO,
        command="/nonexistent/server",
        env={"MODE": "deleted", "NOTES_DIR": "/home/ada/notes", "AUTH_MODE": "none-at-all", "ID": secret["shaped"]},
    )
    remote = ServerConfig(
        name="remote",
        transport=TransportKind.HTTP,
        url=f"http://ada:{secret['url password']}@127.0.0.1:9/mcp",
        headers={
            "Authorization": f"Bearer {secret['bearer']}",
            "Cookie": secret["cookie"],
            "X-Api-Key": secret["api key"],
            "X-Workspace": "acme-workspace",
            "X-Group": "wheel",
        },
    )
    host.start([local, remote])
    try:
        await host.wait_settled(30)
        text = " | ".join([*ordinary, *secret.values()])
        shown = scrubber_for(host, None, environ).text(text)
        assert shown == " | ".join([*ordinary, *["***"] * len(secret)])
        assert masked_names(host, None, environ) == [
            "local: env ID",
            "remote: header Authorization",
            "remote: header Cookie",
            "remote: header X-Api-Key",
            "remote: URL password",
            "remote: sign-in tokens",
            "environment SERVICE_TOKEN",
        ]
    finally:
        await host.stop_all()
