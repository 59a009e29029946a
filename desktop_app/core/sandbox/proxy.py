"""The filtering proxy a sandboxed server reaches the network through: only the hosts its entry lists.

A sandboxed server has no network of its own. It reaches this proxy over a Unix socket bound into its sandbox
(`forwarder` makes it a loopback port there), and asks for a host with HTTP `CONNECT` (https and anything
tunnelled) or an absolute `http://` request. The host is judged as written, before anything is resolved:
`deniedDomains` wins, then it must match `allowedDomains` (exactly, or a `*.` wildcard matching subdomains);
an IP address must be listed as such. A listed name is then resolved once and refused when any address is
inside this computer or the local network (unless the name listed is itself local, `localhost`), and the
connection goes to an address that was checked, so a second, different DNS answer gets nowhere.

One proxy per running server, on the app's loop; it closes with the server's transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from desktop_app.core.network_guard import Resolver, is_internal, is_loopback_host, system_resolver
from desktop_app.core.sandbox.refusals import Note, Refusals
from desktop_app.core.sandbox.settings import SandboxSettings

MAX_TUNNELS: Final = 64
"""Connections one server may hold open through the proxy at once; more are refused with 503."""
HEAD_BYTES: Final = 16 * 1024
HEAD_TIMEOUT_S: Final = 15.0
CONNECT_TIMEOUT_S: Final = 15.0
IDLE_TIMEOUT_S: Final = 300.0
"""A tunnel with no traffic either way for this long is closed."""
_CHUNK: Final = 64 * 1024
_DROPPED_HEADERS: Final = frozenset(
    {b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive", b"host"}
)
"""Hop-by-hop headers, and `Host`: it is written again from the checked address, so a request for a listed
host cannot name another site served from the same address."""


def _public(address: str) -> bool:
    return not is_internal(address)


@dataclass(frozen=True)
class Reach:
    """How the proxy finds a listed host's addresses, and which of them it may connect to (tests name their
    own hosts and let them reach 127.0.0.1; the app resolves with the system and reaches public addresses)."""

    resolve: Resolver = system_resolver
    acceptable: Callable[[str], bool] = field(default=_public)


class Refused(Exception):
    """A request the proxy answers with `status` and a one-line `text` instead of connecting; a host refused by
    the rules or by its addresses is logged with `reason`."""

    def __init__(self, status: int, text: str, *, host: str | None = None, reason: str = "") -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.host = host
        self.reason = reason


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _matches(host: str, pattern: str) -> bool:
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def refusal(host: str, settings: SandboxSettings) -> str | None:
    """Why `host` (as the server wrote it) is refused by the entry's lists, or None when it is allowed."""
    name = host.strip("[]").rstrip(".").lower()
    address = _literal(name)
    if address is not None:
        listed = any(_literal(item) == address for item in settings.allowed_domains)
        return None if listed else "an IP address not in allowedDomains"
    if any(_matches(name, pattern) for pattern in settings.denied_domains):
        return "in deniedDomains"
    if any(_matches(name, pattern) for pattern in settings.allowed_domains):
        return None
    return "not in allowedDomains"


@dataclass(frozen=True)
class _Request:
    host: str
    port: int
    tunnel: bool
    head: bytes
    """For plain HTTP: the head to send on, in origin form, without hop-by-hop headers."""


def _target(target: str) -> tuple[str, int]:
    parts = urlsplit(f"//{target}")
    try:
        port = parts.port
    except ValueError as exc:
        raise Refused(400, f"bad port in {target!r}") from exc
    if not parts.hostname or port is None:
        raise Refused(400, f"CONNECT needs host:port, not {target!r}")
    return parts.hostname, port


def _parse(head: bytes) -> _Request:
    lines = head.split(b"\r\n")
    words = lines[0].decode("latin-1").split(" ")
    if len(words) != 3:
        raise Refused(400, "malformed request line")
    method, target, version = words
    if version not in ("HTTP/1.0", "HTTP/1.1"):
        raise Refused(400, "only HTTP/1.0 and HTTP/1.1 requests go through this proxy")
    if method.upper() == "CONNECT":
        return _Request(*_target(target), tunnel=True, head=b"")
    parts = urlsplit(target)
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise Refused(400, "only CONNECT and absolute http:// requests go through this proxy")
    try:
        port = parts.port or 80
    except ValueError as exc:
        raise Refused(400, f"bad port in {target!r}") from exc
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kept = [line for line in lines[1:] if line and line.split(b":", 1)[0].strip().lower() not in _DROPPED_HEADERS]
    first = f"{method} {path} {version}\r\nHost: {parts.netloc.rpartition('@')[2]}".encode("latin-1")
    origin = b"\r\n".join([first, *kept, b"Connection: close", b"", b""])
    return _Request(parts.hostname, port, tunnel=False, head=origin)


async def _addresses(host: str, port: int, reach: Reach) -> list[str]:
    """The addresses to connect to, checked once here (the connection never resolves the name again)."""
    literal = _literal(host)
    if literal is not None:
        return [str(literal)]
    try:
        found = list(await asyncio.wait_for(reach.resolve(host, port), CONNECT_TIMEOUT_S))
    except (OSError, TimeoutError) as exc:
        raise Refused(502, f"{host} could not be resolved ({exc or 'timed out'})") from exc
    if not found:
        raise Refused(502, f"{host} does not resolve to any address")
    if not is_loopback_host(host):
        for address in found:
            if not reach.acceptable(address):
                reason = f"resolves to {address}, inside this computer or the local network"
                raise Refused(403, f"{host} {reason}", host=host, reason=reason)
    return found


async def _open(addresses: Sequence[str], port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    failure: Exception | None = None
    for address in addresses:
        try:
            return await asyncio.wait_for(asyncio.open_connection(address, port), CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            failure = exc
    raise Refused(502, f"could not connect ({failure or 'no address'})")


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, last: list[float]) -> None:
    """Copy one direction until its end (passed on as a half-close), or until neither direction has moved for
    `IDLE_TIMEOUT_S` (`last` is when either did: a long download sends nothing the other way)."""
    while True:
        try:
            chunk = await asyncio.wait_for(reader.read(_CHUNK), IDLE_TIMEOUT_S)
        except TimeoutError:
            if time.monotonic() - last[0] < IDLE_TIMEOUT_S:
                continue
            raise
        if not chunk:
            break
        last[0] = time.monotonic()
        writer.write(chunk)
        await writer.drain()
    if writer.can_write_eof():
        writer.write_eof()


async def _relay(
    client: tuple[asyncio.StreamReader, asyncio.StreamWriter], server: tuple[asyncio.StreamReader, asyncio.StreamWriter]
) -> None:
    """Both directions at once; a failure or idle end of one ends the other."""
    last = [time.monotonic()]
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(_pipe(client[0], server[1], last))
            group.create_task(_pipe(server[0], client[1], last))
    except* (OSError, TimeoutError):
        pass


def _answer(status: int, reason: str) -> bytes:
    words = {200: "Connection established", 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}
    body = f"{reason}\n".encode()
    title = words.get(status, "Service Unavailable")
    return f"HTTP/1.1 {status} {title}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n".encode() + (
        b"Connection: close\r\n\r\n" + body
    )


class _Proxy:
    """One server's proxy: its rules, its open connections and its refusals."""

    def __init__(self, settings: SandboxSettings, refusals: Refusals, reach: Reach) -> None:
        self.settings = settings
        self.refusals = refusals
        self.reach = reach
        self.tasks: set[asyncio.Task[None]] = set()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        upstream: asyncio.StreamWriter | None = None
        try:
            request = await self._request(reader)
            if len(self.tasks) > MAX_TUNNELS:
                raise Refused(503, f"more than {MAX_TUNNELS} connections open at once")
            upstream_reader, upstream = await _open(await self._check(request), request.port)
            if request.tunnel:
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream.write(request.head)
            await _relay((reader, writer), (upstream_reader, upstream))
        except Refused as refused:
            if refused.host is not None:
                self.refusals.refused(refused.host, refused.reason)
            with contextlib.suppress(OSError):
                writer.write(_answer(refused.status, refused.text))
                await writer.drain()
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the server hung up or sent too much: nothing to answer
        except asyncio.CancelledError:
            # Only `serving_proxy` cancels a connection, when closing; asyncio's server logs a cancelled
            # handler as an error, so it ends quietly instead.
            return
        finally:
            self.tasks.discard(task)
            for end in (writer, upstream):
                if end is not None:
                    end.close()

    async def _request(self, reader: asyncio.StreamReader) -> _Request:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
        except asyncio.LimitOverrunError as exc:
            raise Refused(400, f"request head longer than {HEAD_BYTES} bytes") from exc
        return _parse(head)

    async def _check(self, request: _Request) -> list[str]:
        reason = refusal(request.host, self.settings)
        if reason is not None:
            raise Refused(403, f"{request.host} is {reason}", host=request.host, reason=reason)
        return await _addresses(request.host, request.port, self.reach)


@contextlib.asynccontextmanager
async def serving_proxy(settings: SandboxSettings, note: Note, reach: Reach | None = None) -> AsyncIterator[str]:
    """Serve the proxy for one server on a fresh Unix socket (in a folder only this user can enter); yields
    its path. Leaving closes the socket and every connection still open through it."""
    folder = tempfile.mkdtemp(prefix="mcp-desk-proxy-")
    path = os.path.join(folder, "proxy.sock")
    proxy = _Proxy(settings, Refusals(note), reach or Reach())
    server = await asyncio.start_unix_server(proxy.serve, path, limit=HEAD_BYTES)
    try:
        yield path
    finally:
        server.close()
        for task in list(proxy.tasks):
            task.cancel()
        await asyncio.gather(*proxy.tasks, return_exceptions=True)
        await server.wait_closed()
        proxy.refusals.summarise()
        shutil.rmtree(folder, ignore_errors=True)
