"""App views' one way onto the network: a SOCKS5 relay that connects only to origins a view declared.

The web engine is started with this relay as its proxy, loopback included, so every TCP connection
a view's engine opens arrives here first with its host name unresolved: fetches and web sockets,
which the CSP and the request interceptor already check, and WebRTC's TURN over TCP, which neither
sees (a view can reach WebRTC's classes through a frame it makes before any script of ours runs
there). The relay connects a request only when an open view declared that host and port; anything
else is refused before a byte or a DNS query leaves the machine. Chromium reads its proxy once per
process, so the relay lives as long as the process, on a thread of its own (a busy view never
waits on the window's thread).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import threading
from concurrent.futures import Future
from typing import Final

from desktop_app.core.extensions.apps_csp import origin_allowed

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT: Final = 10.0
CONNECT_TIMEOUT: Final = 30.0
_CHUNK: Final = 65536
_SCHEMES: Final = ("https", "http", "wss", "ws")
# SOCKS5 replies (RFC 1928 §6).
_SUCCEEDED, _NOT_ALLOWED, _UNREACHABLE, _REFUSED, _UNSUPPORTED = 0x00, 0x02, 0x04, 0x05, 0x07


class ConnectRelay:
    """The relay; `allow` and `forget` keep its allow-list to the views that are open."""

    def __init__(self) -> None:
        self._allowed: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()
        self._port: int | None = None

    def allow(self, key: str, origins: tuple[str, ...]) -> None:
        """A view (`key`) is open and declared `origins` (source expressions, as in its CSP)."""
        with self._lock:
            self._allowed[key] = origins

    def forget(self, key: str) -> None:
        with self._lock:
            self._allowed.pop(key, None)

    def permits(self, host: str, port: int) -> bool:
        """Whether some open view declared `host:port`, under any scheme a connection can carry."""
        with self._lock:
            declared = [origin for origins in self._allowed.values() for origin in origins]
        netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        return any(origin_allowed(f"{scheme}://{netloc}/", declared) for scheme in _SCHEMES)

    def start(self) -> int:
        """Listen on 127.0.0.1 (the first call starts the relay's thread); returns the port."""
        if self._port is None:
            ready: Future[int] = Future()
            threading.Thread(target=self._run, args=(ready,), name="app-view-relay", daemon=True).start()
            self._port = ready.result()
        return self._port

    def _run(self, ready: Future[int]) -> None:
        try:
            asyncio.run(self._serve(ready))
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            log.exception("the app views' network relay stopped: views can reach no network now")

    async def _serve(self, ready: Future[int]) -> None:
        server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        ready.set_result(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                target = await _handshake(reader, writer)
            if target is None:
                return
            host, port = target
            if not self.permits(host, port):
                log.warning("refused an app view's connection to %s:%d: no open view declared it", host, port)
                await _reply(writer, _NOT_ALLOWED)
                return
            try:
                async with asyncio.timeout(CONNECT_TIMEOUT):
                    up_reader, up_writer = await asyncio.open_connection(host, port)
            except TimeoutError:
                await _reply(writer, _UNREACHABLE)
                return
            except OSError:
                await _reply(writer, _REFUSED)
                return
            await _reply(writer, _SUCCEEDED)
            try:
                async with asyncio.TaskGroup() as group:
                    group.create_task(_pipe(reader, up_writer))
                    group.create_task(_pipe(up_reader, writer))
            finally:
                up_writer.close()
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            pass  # the engine went away mid-handshake: nothing to tell anyone
        finally:
            writer.close()


async def _handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple[str, int] | None:
    """Read a SOCKS5 greeting and CONNECT request (no authentication); the target, or None if refused."""
    version, count = await reader.readexactly(2)
    methods = await reader.readexactly(count)
    if version != 5 or 0 not in methods:
        writer.write(b"\x05\xff")
        await writer.drain()
        return None
    writer.write(b"\x05\x00")
    await writer.drain()
    version, command, _reserved, kind = await reader.readexactly(4)
    if kind == 1:
        host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
    elif kind == 4:
        host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
    elif kind == 3:
        name = await reader.readexactly((await reader.readexactly(1))[0])
        host = name.decode("ascii", "replace").lower()
    else:
        await _reply(writer, _UNSUPPORTED)
        return None
    port = int.from_bytes(await reader.readexactly(2), "big")
    if version != 5 or command != 1:  # CONNECT only: no BIND, no UDP ASSOCIATE
        await _reply(writer, _UNSUPPORTED)
        return None
    return host, port


async def _reply(writer: asyncio.StreamWriter, code: int) -> None:
    writer.write(bytes([5, code, 0, 1, 0, 0, 0, 0, 0, 0]))
    await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy one direction until its end, then pass the end on (or drop the connection on an error)."""
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()
