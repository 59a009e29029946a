"""Where a domain's Server Cards are looked for, and where its documents may send MCP Desk.

The user types `example.com`, `https://example.com` or a URL on it; the catalog is looked for at
`/.well-known/mcp/catalog.json` on that origin (then at the AI Catalog's `/.well-known/ai-catalog.json`).
Plain http is used only on this computer, as for sign-in: anywhere else, whoever is on the path could
swap the cards. Hosts are shown in their ASCII (xn--) form with a look-alike warning (`asks/link_check`).
A domain on the network may not point MCP Desk at this computer or the local network (a card or a
remote on 127.0.0.1 or 192.168.x.x): any web site could otherwise make the app call services that
only this machine can reach. Addresses are compared as written (`check_url`) and, for a domain on
the network, as resolved (`check_resolved`, `core/network_guard`): a name is believed only once every
address it resolves to is public, at install and again on every connection. A `user@` part in an
address a domain wrote is refused, not shown.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from desktop_app.core.asks.link_check import check_link
from desktop_app.core.network_guard import (
    InternalAddressError,
    Resolver,
    is_loopback_host,
    public_addresses,
    system_resolver,
)

CATALOG_PATHS: Final = ("/.well-known/mcp/catalog.json", "/.well-known/ai-catalog.json")


class DiscoveryError(Exception):
    """A domain's servers cannot be found or read; the message is one line for the user."""


@dataclass(frozen=True)
class DomainAddress:
    """A domain as MCP Desk reads it: the origin its documents come from and the host the user sees."""

    origin: str
    """`https://example.com` (or `http://127.0.0.1:8080` on this computer)."""
    host: str
    """The host in ASCII, with its port when one was given: how the domain is shown and remembered."""
    path: str = ""
    """The path of a URL the user typed (its card may live at `{url}/server-card`)."""
    warnings: tuple[str, ...] = ()

    @property
    def local(self) -> bool:
        """The domain is this computer (loopback): plain http and local addresses are allowed."""
        return is_loopback_host(_hostname(self.origin))

    def catalog_urls(self) -> tuple[str, ...]:
        return tuple(self.origin + path for path in CATALOG_PATHS)

    def same_origin(self, url: str) -> bool:
        return origin_of(url) == self.origin


@dataclass(frozen=True)
class UrlFindings:
    """An address a domain's document gave: the host it reaches, why it is refused, what to warn about."""

    host: str
    problem: str | None = None
    warnings: tuple[str, ...] = ()


def parse_address(text: str) -> DomainAddress:
    """`example.com`, `127.0.0.1:8080` or `https://example.com/mcp` as a domain; `DiscoveryError` if it is not one."""
    text = text.strip()
    if not text:
        raise DiscoveryError("type a domain, such as example.com")
    if "://" not in text:
        bare = urlsplit(f"//{text}")
        scheme = "http" if bare.hostname and is_loopback_host(bare.hostname) else "https"
        text = f"{scheme}://{text}"
    check = check_link(text)
    if check.problem is not None:
        raise DiscoveryError(f"{text} is not an address MCP Desk looks up: {check.problem}")
    parts = urlsplit(check.url)
    if parts.username is not None or parts.password is not None:
        raise DiscoveryError(f"{text} has a user@ part before the host; type the domain alone")
    origin = origin_of(check.url)
    path = parts.path.rstrip("/")
    return DomainAddress(origin, origin.split("://", 1)[1], path, check.warnings)


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of `url`, lower-cased, default ports left out."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    netloc = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and port != {"https": 443, "http": 80}.get(scheme):
        netloc += f":{port}"
    return f"{scheme}://{netloc}"


def check_url(url: str, domain: DomainAddress, what: str = "it") -> UrlFindings:
    """Whether `domain` may send MCP Desk to `url` (a card, a remote), and what the user should know."""
    check = check_link(url)
    host = origin_of(check.url).split("://", 1)[1] if check.host else check.host
    if check.problem is not None:
        return UrlFindings(host, f"{what} is refused: {check.problem}")
    parts = urlsplit(check.url)
    if parts.username is not None or parts.password is not None:
        return UrlFindings(host, f"{what} is refused: it has a user@ part before the host")
    if not domain.local and _internal(check.host):
        return UrlFindings(host, f"{what} is refused: {domain.host} may not point at this computer or your network")
    warnings = [w for w in check.warnings if not w.startswith("misleading")]
    if origin_of(check.url) != domain.origin:
        warnings.append(f"{what} is on {host}, not on {domain.host}")
    return UrlFindings(host, None, tuple(warnings))


async def check_resolved(
    url: str, domain: DomainAddress, what: str = "it", resolve: Resolver = system_resolver
) -> str | None:
    """Why `domain` may not send MCP Desk to `url`, with its host resolved (`check_url`'s reasons first).

    A domain on this computer may name anything; for any other, every address the host resolves to
    must be public. A name that does not resolve now is not refused here: connecting checks again."""
    problem = check_url(url, domain, what).problem
    if problem is not None or domain.local:
        return problem
    parts = urlsplit(check_link(url).url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        await public_addresses(parts.hostname or "", port, resolve)
    except InternalAddressError as exc:
        return f"{what} is refused: {domain.host} may not point at this computer or your network ({exc})"
    except OSError:
        return None
    return None


def _hostname(origin: str) -> str:
    return urlsplit(origin).hostname or ""


def _internal(host: str) -> bool:
    """This computer or a private, link-local or otherwise non-public address (named hosts are not resolved)."""
    if is_loopback_host(host):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host.endswith((".local", ".internal", ".lan"))
    return not address.is_global
