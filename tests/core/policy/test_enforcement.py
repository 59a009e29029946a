"""The host obeys the policy in force: a blocked server never starts (no process at all), however it is
started; sampling is refused when switched off; sign-in uses the organisation's identity provider."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.asks.question import ScriptedAsker
from desktop_app.core.auth.idp import DEFAULT_SCOPES, IdentityProviderSettings
from desktop_app.core.host import ServerHost
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from tests.core.asks.hosting import asking_config, refusal
from tests.policy_files import put_policy
from tests.servers.asking_server import build_asking_server

pytestmark = pytest.mark.anyio
BLOCKED = "blocked by your organisation's policy"


def marker_server(marker: Path) -> ServerConfig:
    """Not an MCP server: a process that leaves `marker` behind the moment it runs."""
    script = f"open({str(marker)!r}, 'w').write('ran')"
    return ServerConfig("marker", TransportKind.STDIO, command=sys.executable, args=("-c", script))


async def test_a_blocked_server_never_spawns_however_it_is_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_policy(tmp_path, monkeypatch, {"servers": {"allow": [{"command": "npx", "args": ["-y", "@acme/*"]}]}})
    marker = tmp_path / "ran"
    config = marker_server(marker)
    host = ServerHost(policy=RestartPolicy(max_attempts=3, first_delay=0.01))  # the policy in force, unasked
    try:
        host.start([config])
        status = await host.connection("marker").wait_settled(30)
        assert status.state is ServerState.FAILED and status.attempt == 0  # refused once, never retried
        assert status.reason == (
            f"{BLOCKED}: 'marker' (command {Path(sys.executable).name}) is not on the list of servers allowed to run"
            " (servers.allow)"
        )
        assert host.blocked["marker"].field == "servers.allow"
        await host.restart("marker")
        await host.set_enabled("marker", False)
        await host.set_enabled("marker", True)
        await host.apply([replace(config, args=(*config.args, "again"))])  # a changed entry: a new start
        assert (await host.connection("marker").wait_settled(30)).state is ServerState.FAILED
        assert not marker.exists()
    finally:
        await host.stop_all()

    # The same entry, allowed: the process runs (so the marker above would have been written).
    put_policy(tmp_path, monkeypatch, {"servers": {"allow": [{"command": Path(sys.executable).name, "args": ["**"]}]}})
    host = ServerHost(policy=RestartPolicy(max_attempts=0))
    try:
        host.start([config])
        await host.connection("marker").wait_settled(30)
        assert marker.read_text() == "ran" and "marker" not in host.blocked
    finally:
        await host.stop_all()


async def test_a_blocked_remote_server_is_never_contacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    put_policy(tmp_path, monkeypatch, {"servers": {"allow": [{"url": "https://mcp.acme.example"}]}})
    host = ServerHost(policy=RestartPolicy(max_attempts=0))
    try:
        # Nothing listens on port 9 here; a contact would fail with a connection error instead of the rule.
        host.start([ServerConfig("far", TransportKind.HTTP, url="http://127.0.0.1:9/mcp")])
        status = await host.connection("far").wait_settled(30)
        assert status.reason == (
            f"{BLOCKED}: 'far' (address http://127.0.0.1:9) is not on the list of servers allowed to run"
            " (servers.allow)"
        )
    finally:
        await host.stop_all()


async def test_sampling_switched_off_is_not_offered_and_refused_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_policy(tmp_path, monkeypatch, {"features": {"sampling": False}})
    host = ServerHost(policy=RestartPolicy(max_attempts=0), target_factory=lambda _c, _h: build_asking_server())
    asker = ScriptedAsker(lambda _q: pytest.fail("nothing may be asked"))
    host.questions.asker = asker
    host.start([asking_config("legacy")])
    try:
        await host.wait_settled(30)
        connection = host.connection("asking")
        # The client does not declare sampling, so a server that asks anyway gets the SDK's refusal.
        options = connection.asks.client_options()
        assert "sampling_callback" not in options and "sampling_capabilities" not in options
        assert await refusal(connection, "sample", {"prompt": "Say hi"}) == "Sampling not supported"
        assert asker.asked == []
    finally:
        await host.stop_all()


def test_the_policys_identity_provider_is_the_one_sign_in_uses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    idp = {"issuer": "https://login.acme.example", "clientId": "mcp-desk", "clientSecret": "${secret:ACME_IDP}"}
    put_policy(tmp_path, monkeypatch, {"identityProvider": idp})
    host = ServerHost()
    assert host.sign_in.identity_provider is None  # its secret is not in any store yet
    host.secrets = {"ACME_IDP": "s3cret"}  # e.g. once the store is unlocked
    assert host.sign_in.identity_provider == IdentityProviderSettings(
        "https://login.acme.example", "mcp-desk", "s3cret", DEFAULT_SCOPES, source="policy"
    )
    assert host.managed.fixed("identityProvider") == (
        "set by your organisation's policy: https://login.acme.example (identityProvider)"
    )
