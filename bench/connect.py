"""Connect-and-list cost: MCP Desk's host against a bare SDK client, and 10 servers against one.

Goals: host / bare SDK <= 1.10 on server-everything; ten servers at once <= 1.5x one server.
Run: `.venv/bin/python bench/connect.py` (needs `make test`'s npm peers).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import Client
from mcp.client.stdio import stdio_client

from desktop_app.core.host import ServerHost
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.servers.everything import everything_stdio_params

ROUNDS = 5


def everything_config(name: str) -> ServerConfig:
    params = everything_stdio_params()
    return ServerConfig(name=name, transport=TransportKind.STDIO, command=params.command, args=tuple(params.args))


async def bare_sdk() -> float:
    """What a hand-written script does: connect, then list every kind of thing (close not timed)."""
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - /dev/null never blocks
        started = time.perf_counter()
        async with (
            stdio_client(everything_stdio_params(), errlog=errlog) as streams,
            Client(_Streams(streams)) as client,
        ):
            await client.list_resources()
            await client.list_resource_templates()
            await client.list_prompts()
            await client.list_tools()
            elapsed = time.perf_counter() - started
    return elapsed


async def bare_sdk_parallel(count: int) -> float:
    """`count` bare clients at once: the floor set by starting that many servers on this machine."""
    started = time.perf_counter()
    await asyncio.gather(*(bare_sdk() for _ in range(count)))
    return time.perf_counter() - started


class _Streams:
    """Hands already-open streams to `Client` as a transport."""

    def __init__(self, streams: Any) -> None:
        self._streams = streams

    async def __aenter__(self) -> Any:
        return self._streams

    async def __aexit__(self, *exc: object) -> None:
        return None


async def through_host(count: int) -> float:
    """Start `count` servers through the host and wait until all are ready with their catalogs."""
    host = ServerHost()
    started = time.perf_counter()
    host.start([everything_config(f"everything-{i}") for i in range(count)])
    await host.wait_settled(60)
    elapsed = time.perf_counter() - started
    assert host.ready_count() == count, [c.status for c in host.connections.values()]
    await host.stop_all()
    return elapsed


async def main() -> None:
    await bare_sdk()  # warm the OS caches for node and the package
    bare = [await bare_sdk() for _ in range(ROUNDS)]
    one = [await through_host(1) for _ in range(ROUNDS)]
    ten = [await through_host(10) for _ in range(3)]
    bare_ten = [await bare_sdk_parallel(10) for _ in range(3)]
    bare_s, one_s, ten_s = statistics.median(bare), statistics.median(one), statistics.median(ten)
    bare_ten_s = statistics.median(bare_ten)
    print(f"bare SDK connect+list        {bare_s * 1000:8.1f} ms (median of {ROUNDS})")
    print(f"host, 1 server ready         {one_s * 1000:8.1f} ms (median of {ROUNDS})")
    print(f"host, 10 servers ready       {ten_s * 1000:8.1f} ms (median of 3)")
    print(f"host / bare SDK              {one_s / bare_s:8.2f}   (goal <= 1.10)")
    print(f"bare SDK, 10 clients at once {bare_ten_s * 1000:8.1f} ms (median of 3)")
    print(f"10 servers / 1 server        {ten_s / one_s:8.2f}   (goal <= 1.50)")
    print(f"  same ratio for bare SDK    {bare_ten_s / bare_s:8.2f}   (the machine's floor: {os.cpu_count()} cores)")


if __name__ == "__main__":
    asyncio.run(main())
