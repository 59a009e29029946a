"""HTTP servers on 127.0.0.1 for the sandbox's proxy to reach, and the test's own resolver that names them
`allowed.test`, `other.test` and their subdomains (no real DNS in tests)."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from desktop_app.core.sandbox.proxy import Reach

NAMES = {"allowed.test", "other.test", "api.allowed.test", "deep.api.allowed.test", "blocked.allowed.test"}


async def table(host: str, _port: int) -> Sequence[str]:
    """Every test name is this computer; nothing else resolves (no real DNS in tests)."""
    if host in NAMES:
        return ["127.0.0.1"]
    raise OSError(f"{host} does not resolve")


LOOPBACK_OK = Reach(resolve=table, acceptable=lambda address: ipaddress.ip_address(address).is_loopback)


@asynccontextmanager
async def web_server(body: bytes) -> AsyncIterator[int]:
    """A one-route HTTP server on 127.0.0.1 answering every request with `body` and the request line."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()  # a tunnel closed before asking anything
            return
        first, *headers = head.split(b"\r\n")
        host = b"".join(line for line in headers if line.lower().startswith(b"host:"))
        payload = body + b" " + first + b" " + host
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(payload), payload))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()
