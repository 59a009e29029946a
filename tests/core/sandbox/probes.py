"""The sandbox probe server run through a real host, and what it reaches: a greeting TCP listener on
127.0.0.1, a host whose sandbox proxy resolves the test names, and the probe's reports and host log lines."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from desktop_app.core.host import ServerHost
from desktop_app.core.sandbox.probe import system_support
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import SandboxProbe, open_transport
from tests.core.sandbox.conftest import Home
from tests.core.sandbox.web_server import LOOPBACK_OK
from tests.hosting import FAST_RESTARTS, serving_configs

GREETING = "hello from the host"


@asynccontextmanager
async def listener() -> AsyncIterator[int]:
    """A TCP server on 127.0.0.1 that greets whoever connects: its port."""

    async def greet(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(GREETING.encode())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(greet, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def run_probe(config: ServerConfig, home: Home, port: int, log: list[str] | None = None) -> dict[str, str]:
    """Start `config` through a real host, have it try every attack; its log's host lines go to `log`."""
    async with serving_configs(config, settle=60) as host:
        connection = host.connection(config.name)
        assert connection.status.state is ServerState.READY, connection.status.explained()
        arguments = {
            "read": [str(home.key), str(home.app_secret), str(home.diary), str(home.readme), str(home.host_tmp_file)],
            "write": [str(home.root / "outside.txt"), str(home.notes / "note.txt")],
            "connect": port,
            "proc_root": str(home.key),
            "child_read": str(home.key),
        }
        result = await connection.call_tool("probe", arguments)
        if log is not None:
            log += [f"{entry.level}: {entry.text}" for entry in connection.log if entry.source == "host"]
        report: dict[str, str] = json.loads(result.content[0].text)  # type: ignore[union-attr]
        return report


@asynccontextmanager
async def started(config: ServerConfig, sandbox: SandboxProbe = system_support) -> AsyncIterator[Any]:
    """`config` running in a real host (confined by the tier `sandbox` gives) whose sandbox proxy resolves the
    test names to 127.0.0.1."""
    host = ServerHost(
        policy=FAST_RESTARTS,
        target_factory=lambda c, hooks: open_transport(c, hooks, sandbox=sandbox, reach=LOOPBACK_OK),
    )
    host.start([config])
    try:
        await host.wait_settled(60)
        connection = host.connection(config.name)
        assert connection.status.state is ServerState.READY, connection.status.explained()
        yield connection
    finally:
        await host.stop_all()


async def call(connection: Any, tool: str, arguments: dict[str, Any]) -> dict[str, str]:
    result = await connection.call_tool(tool, arguments)
    report: dict[str, str] = json.loads(result.content[0].text)
    return report


def host_lines(connection: Any) -> list[str]:
    return [f"{entry.level}: {entry.text}" for entry in connection.log if entry.source == "host"]
