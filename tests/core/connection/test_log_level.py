"""A server's log level: sent with `logging/setLevel` (2025-11-25) or as the 2026-07-28 opt-in, changed live."""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop_app.core.host import ServerHost
from desktop_app.core.server_status import ServerState
from tests.hosting import eventually, fixture_config, serving_configs

pytestmark = pytest.mark.anyio


def server_lines(host: ServerHost) -> list[str]:
    return [e.text for e in host.connection("fx").log if e.source == "server"]


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
@pytest.mark.stdio
async def test_the_log_level_filters_what_the_server_sends_and_changes_live(era: str) -> None:
    async with serving_configs(fixture_config("fx", protocol=era, log_level="warning"), settle=20) as host:
        connection = host.connection("fx")
        assert connection.log_level == "warning"
        await connection.call_tool("log", {"message": "quiet please"})
        await connection.call_tool("echo", {"text": "sync"})
        assert server_lines(host) == []  # an info message is below the server's level
        client = connection.client
        await host.apply([replace(connection.config, log_level="debug")])
        await host.wait_settled(20)
        assert connection.status.state is ServerState.READY
        # 2025-11-25 changes the level on the same session; 2026-07-28 opts in per request, so it reconnects.
        assert (connection.client is client) == (era == "legacy")
        await connection.call_tool("log", {"message": "now you hear me"})
        await eventually(lambda: server_lines(host) == ["[fixture] now you hear me"], what="the info line")
