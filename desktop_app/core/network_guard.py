"""Names are resolved before they are believed: a host named by someone on the internet (a domain's
Server Card, a remote it lists) may not reach this computer or the local network.

Comparing addresses as written is not enough: `evil.example` may resolve to 127.0.0.1, or to a
public address when it is checked and to 192.168.1.1 a moment later, when the connection is made
(DNS rebinding). So a guarded HTTP client resolves each host itself, refuses it when any of its
addresses is loopback, private, link-local or otherwise not public, and connects to an address it
checked, never to a name resolved again behind its back. TLS still checks the certificate
against the name.

The resolver is a parameter (`Resolver`): the system's by default, a table in tests, which must
never depend on real DNS.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import anyio
import httpcore2
import httpx2

from desktop_app.core.tls import tls_context

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""(host, port) -> the addresses a connection to it could reach."""

_NAT64: ipaddress.IPv6Network = ipaddress.IPv6Network("64:ff9b::/96")


class InternalAddressError(OSError):
    """A host named from outside resolves into this computer or the local network; the message says which."""


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """The system's own answer (getaddrinfo, in a worker thread)."""
    found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in found]


def is_loopback_host(host: str) -> bool:
    """`localhost`, a `.localhost` name or a loopback address, as written (nothing is resolved)."""
    name = host.rstrip(".").strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_internal(address: str) -> bool:
    """Loopback, private, link-local, shared or reserved: anything that is not a public internet address,
    including IPv6 forms that carry an IPv4 address (mapped, 6to4, NAT64)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0].strip("[]"))
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_internal(str(embedded))
    return not ip.is_global or ip.is_multicast


async def public_addresses(host: str, port: int, resolve: Resolver = system_resolver) -> list[str]:
    """`host`'s addresses, all public; `InternalAddressError` when any is not (or there are none)."""
    name = host.strip("[]")
    try:
        addresses = [str(ipaddress.ip_address(name))]
    except ValueError:
        addresses = [str(a) for a in await resolve(name, port)]
    if not addresses:
        raise InternalAddressError(f"{name} does not resolve to any address")
    for address in addresses:
        if is_internal(address):
            shown = name if name == address else f"{name} resolves to {address}, which is"
            raise InternalAddressError(f"{shown} on this computer or your local network; not connected")
    return addresses


class _PublicOnlyBackend(httpcore2.AsyncNetworkBackend):
    """Connects only to public addresses it resolved and checked itself."""

    def __init__(self, resolve: Resolver) -> None:
        self._resolve = resolve
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout):
                addresses = await public_addresses(host, port, self._resolve)
        except (InternalAddressError, OSError) as exc:
            raise httpcore2.ConnectError(str(exc)) from exc
        except TimeoutError as exc:
            raise httpcore2.ConnectTimeout(f"resolving {host} took longer than {timeout:g} s") from exc
        failure: Exception | None = None
        for address in addresses:  # the checked addresses, never the name again
            try:
                return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.AsyncNetworkStream:
        raise httpcore2.ConnectError("a guarded client does not open local sockets")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class GuardedTransport(httpx2.AsyncHTTPTransport):
    """httpx's transport whose every new connection resolves through `resolve` and reaches public addresses only.

    Built without proxies: a proxy would resolve the name itself, out of reach of the check."""

    def __init__(self, resolve: Resolver = system_resolver) -> None:
        super().__init__(verify=tls_context(trust_env=False), trust_env=False)
        # httpx takes no network backend: the pool is built again with ours (same TLS settings).
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=tls_context(trust_env=False), network_backend=_PublicOnlyBackend(resolve)
        )
