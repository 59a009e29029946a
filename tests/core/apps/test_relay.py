"""The views' network relay: a declared origin is carried both ways, nothing else is even dialled."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from desktop_app.core.apps.relay import ConnectRelay

pytestmark = pytest.mark.anyio


class Echo:
    """A TCP server on 127.0.0.1 that counts its connections and echoes what it hears."""

    def __init__(self) -> None:
        self.connections = 0
        self.port = 0

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        while data := await reader.read(1024):
            writer.write(data)
            await writer.drain()
        writer.close()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Echo]:
        server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        async with server:
            yield self


async def socks_connect(
    relay_port: int, host: str, port: int, command: int = 1
) -> tuple[int, asyncio.StreamReader, asyncio.StreamWriter]:
    """Ask the relay for `host:port` as Chromium does (SOCKS5, no authentication, the name unresolved)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", relay_port)
    writer.write(b"\x05\x01\x00")
    assert await reader.readexactly(2) == b"\x05\x00"
    name = host.encode("ascii")
    writer.write(bytes([5, command, 0, 3, len(name)]) + name + port.to_bytes(2, "big"))
    reply = await reader.readexactly(10)
    return reply[1], reader, writer


@pytest.fixture(scope="module")
def relay() -> ConnectRelay:
    return ConnectRelay()


async def test_a_declared_origin_is_carried_both_ways(relay: ConnectRelay) -> None:
    async with Echo().running() as echo:
        relay.allow("view-1", (f"http://127.0.0.1:{echo.port}",))
        try:
            code, reader, writer = await socks_connect(relay.start(), "127.0.0.1", echo.port)
            assert code == 0
            writer.write(b"ping")
            assert await reader.readexactly(4) == b"ping"
            writer.close()
        finally:
            relay.forget("view-1")


async def test_an_undeclared_target_is_refused_before_it_is_dialled(relay: ConnectRelay) -> None:
    async with Echo().running() as echo:
        relay.allow("view-1", ("https://api.example.com",))
        try:
            code, _reader, writer = await socks_connect(relay.start(), "127.0.0.1", echo.port)
            assert code == 2  # connection not allowed by ruleset
            code, _reader, other = await socks_connect(relay.start(), "data-in-the-name.attacker.example", 443)
            assert code == 2
            writer.close()
            other.close()
            assert echo.connections == 0
        finally:
            relay.forget("view-1")


async def test_a_closed_view_takes_its_origins_with_it(relay: ConnectRelay) -> None:
    async with Echo().running() as echo:
        relay.allow("view-1", (f"http://127.0.0.1:{echo.port}",))
        relay.forget("view-1")
        code, _reader, writer = await socks_connect(relay.start(), "127.0.0.1", echo.port)
        writer.close()
        assert code == 2 and echo.connections == 0


async def test_only_connect_is_relayed(relay: ConnectRelay) -> None:
    async with Echo().running() as echo:
        relay.allow("view-1", (f"http://127.0.0.1:{echo.port}",))
        try:
            code, _reader, writer = await socks_connect(relay.start(), "127.0.0.1", echo.port, command=3)
            writer.close()
            assert code == 7 and echo.connections == 0  # no UDP ASSOCIATE (nor BIND)
        finally:
            relay.forget("view-1")


def test_declared_origins_match_as_the_csp_does() -> None:
    relay = ConnectRelay()
    relay.allow("a", ("https://*.example.com", "http://[::1]:8080"))
    relay.allow("b", ("wss://live.example.org",))
    assert relay.permits("api.example.com", 443)
    assert not relay.permits("api.example.com", 8443)
    assert not relay.permits("example.com.attacker.example", 443)
    assert relay.permits("::1", 8080)
    assert relay.permits("live.example.org", 443)
    relay.forget("b")
    assert not relay.permits("live.example.org", 443)
