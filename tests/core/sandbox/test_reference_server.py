"""The npm reference server still works inside the sandbox: it lists its tools and answers `echo`."""

from __future__ import annotations

import pytest

from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from tests.core.sandbox.conftest import Home
from tests.hosting import serving_configs
from tests.servers.everything import everything_available, everything_stdio_params

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.npm,
    pytest.mark.skipif(not everything_available(), reason="server-everything is not installed"),
]


async def test_server_everything_runs_sandboxed(home: Home) -> None:
    params = everything_stdio_params()
    config = ServerConfig(
        name="everything",
        transport=TransportKind.STDIO,
        command=params.command,
        args=tuple(params.args),
        sandbox_enabled=True,
    )
    async with serving_configs(config, settle=90) as host:
        connection = host.connection("everything")
        assert connection.status.state is ServerState.READY, connection.status.explained()
        assert connection.catalog is not None and "echo" in {tool.name for tool in connection.catalog.tools}
        result = await connection.call_tool("echo", {"message": "from inside"})
        assert "from inside" in result.content[0].text  # type: ignore[union-attr]
        assert any(entry.text.startswith("sandboxed: bubblewrap") for entry in connection.log)
