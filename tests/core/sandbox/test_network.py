"""A sandboxed server reaches only its `allowedDomains`, through the proxy: run through the real host, over real
stdio, inside real bubblewrap, fetching from HTTP servers on 127.0.0.1 that the test's resolver names."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import pytest

from tests.core.sandbox.conftest import Home
from tests.core.sandbox.probes import call, host_lines, listener, started
from tests.core.sandbox.web_server import web_server

pytestmark = pytest.mark.anyio


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
