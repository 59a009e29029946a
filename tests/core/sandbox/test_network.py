"""A sandboxed server reaches only its `allowedDomains`, through the proxy: run through the real host, over real
stdio, inside real bubblewrap, fetching from HTTP servers on 127.0.0.1 that the test's resolver names."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest

from desktop_app.core.host import ServerHost
from desktop_app.core.sandbox.probe import system_support
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import SandboxProbe, open_transport
from tests.core.sandbox.conftest import Home
from tests.core.sandbox.test_hostile_server import listener
from tests.core.sandbox.test_proxy import LOOPBACK_OK, web_server
from tests.hosting import FAST_RESTARTS

pytestmark = pytest.mark.anyio


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


def log_texts(connection: Any) -> list[str]:
    """Every line of the server's log, whoever wrote it."""
    return [entry.text for entry in connection.log]


async def test_only_listed_hosts_are_reachable_and_only_through_the_proxy(home: Home) -> None:
    config = home.config(
        sandboxed=True, allowed_domains=("allowed.test", "*.allowed.test"), denied_domains=("no.allowed.test",)
    )
    async with AsyncExitStack() as stack:
        port = await stack.enter_async_context(web_server(b"served"))
        greeter = await stack.enter_async_context(listener())
        connection = await stack.enter_async_context(started(config))
        allowed, other = f"http://allowed.test:{port}/", f"http://other.test:{port}/"
        denied, literal = f"http://no.allowed.test:{port}/", f"http://127.0.0.1:{port}/"
        urls = [allowed, other, other, denied, literal]
        report = await call(connection, "fetch", {"urls": urls, "child_url": f"http://api.allowed.test:{port}/c"})
        direct = await call(connection, "probe", {"connect": greeter})
        lines = host_lines(connection)
        texts = log_texts(connection)
    assert report[allowed].startswith("ok: 200 served GET / HTTP/1.1"), report[allowed]
    assert report[other].startswith("denied: 403") and "other.test is not in allowedDomains" in report[other]
    assert report[denied].startswith("denied: 403") and "in deniedDomains" in report[denied]
    assert report[literal].startswith("denied: 403") and "an IP address" in report[literal]
    assert report["proxy"].startswith("http://127.0.0.1:")
    assert report["child"].startswith("ok: 200 served GET /c HTTP/1.1"), report["child"]  # children go the same way
    assert direct["connect"].startswith("denied"), direct["connect"]
    assert [text for text in texts if "other.test" in text] == [
        "sandbox refused a connection to other.test (not in allowedDomains)"
    ]
    assert "warning: sandbox refused a connection to other.test (not in allowedDomains)" in lines  # MCP Desk's own
    assert any(line.startswith("info: sandboxed: bubblewrap") and "allowed.test" in line for line in lines)


async def test_without_allowed_domains_there_is_no_proxy_and_no_network(home: Home) -> None:
    async with web_server(b"served") as port, started(home.config(sandboxed=True)) as connection:
        report = await call(connection, "fetch", {"urls": [f"http://127.0.0.1:{port}/"]})
        lines = host_lines(connection)
    assert report["proxy"] == "none"
    assert report[f"http://127.0.0.1:{port}/"].startswith("denied: "), report
    assert "info: sandboxed: bubblewrap (files read-only, secrets hidden, no network)" in lines
