"""A hostile stdio server, run through the real core: confined, every attack fails; unconfined, each works."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from desktop_app.core.host import ServerHost
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from tests.core.sandbox.conftest import APP_SECRET, DIARY, KEY, README, Home
from tests.hosting import FAST_RESTARTS

pytestmark = pytest.mark.anyio
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
    host = ServerHost(policy=FAST_RESTARTS)
    host.start([config])
    try:
        await host.wait_settled(60)
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
    finally:
        await host.stop_all()


async def test_sandboxed_server_fails_every_attack_and_writes_only_where_allowed(home: Home) -> None:
    async with listener() as port:
        report = await run_probe(home.config(sandboxed=True), home, port)
    allowed = {f"read {home.readme}", f"write {home.notes / 'note.txt'}"}
    for attempt, outcome in report.items():
        expected = "ok" if attempt in allowed else "denied"
        assert outcome.startswith(expected), f"{attempt}: {outcome}"
    assert README in report[f"read {home.readme}"]
    assert (home.notes / "note.txt").read_text() == "written by the probe"
    assert not (home.root / "outside.txt").exists()


async def test_unsandboxed_control_succeeds_at_each_attack(home: Home) -> None:
    async with listener() as port:
        report = await run_probe(home.config(sandboxed=False), home, port)
    for attempt, outcome in report.items():
        assert outcome.startswith("ok"), f"{attempt}: {outcome}"
    assert KEY in report[f"read {home.key}"]
    assert APP_SECRET in report[f"read {home.app_secret}"]
    assert DIARY in report[f"read {home.diary}"]
    assert GREETING in report["connect"]
    assert KEY in report["proc root"] and KEY in report["child read"]


async def test_listed_domains_open_no_direct_route_and_the_log_says_what_is_reachable(home: Home) -> None:
    log: list[str] = []
    async with listener() as port:
        report = await run_probe(home.config(sandboxed=True, allowed_domains=("localhost",)), home, port, log)
    assert report["connect"].startswith("denied"), report["connect"]
    assert [line for line in log if "sandboxed" in line] == [
        "info: sandboxed: bubblewrap (files read-only, secrets hidden, network only to localhost through the "
        "sandbox's proxy)"
    ]
