"""Looking up a domain: its catalog, then each card it lists, as one listing to show.

The catalog is looked for at `/.well-known/mcp/catalog.json`, then `/.well-known/ai-catalog.json`;
for a URL with a path and no catalog, at `{url}/server-card` (the location SEP-2127 reserves). Cards
are fetched side by side (`Accept: application/mcp-server-card+json`); one that cannot be fetched
or read is listed with its problem, so the rest still show. Every address a document gives is
checked first (`address.check_url`): nothing is fetched from where the domain may not send MCP Desk.
For a domain that is not this computer, every connection resolves its host and reaches public
addresses only (`core/network_guard`): a name that points into this computer or the local network,
when checked or a moment later, is not read.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final

import httpx2

from desktop_app.core.discovery.address import DiscoveryError, DomainAddress, check_url, parse_address
from desktop_app.core.discovery.cache import DocumentCache
from desktop_app.core.discovery.card import ServerCard, parse_card
from desktop_app.core.discovery.catalog import CARD_TYPE, CatalogEntry, parse_catalog, parse_json
from desktop_app.core.discovery.fetch import Fetcher, http_client
from desktop_app.core.network_guard import GuardedTransport, Resolver, system_resolver
from desktop_app.core.publisher_document import DocumentError

CATALOG_ACCEPT: Final = "application/json, application/ai-catalog+json"
PARALLEL_CARDS: Final = 6


@dataclass(frozen=True)
class FoundServer:
    """One server a domain lists: its card, or why it cannot be shown, and what to tell the user."""

    identifier: str
    display_name: str
    card_url: str | None
    """Where the card came from (None when the catalog carried it inline)."""
    card: ServerCard | None = None
    problem: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class DomainListing:
    domain: DomainAddress
    source: str
    """The catalog (or card) URL the listing came from."""
    servers: tuple[FoundServer, ...]
    skipped: tuple[str, ...] = ()


async def discover(
    address: str | DomainAddress,
    *,
    cache: DocumentCache | None = None,
    transport: httpx2.AsyncBaseTransport | None = None,
    resolve: Resolver = system_resolver,
) -> DomainListing:
    """Every server `address` lists; `DiscoveryError` when the domain has no catalog or it is unreadable.
    Names are resolved with `resolve` (a domain on this computer, or a given `transport`, is not guarded)."""
    domain = parse_address(address) if isinstance(address, str) else address
    if transport is None and not domain.local:
        transport = GuardedTransport(resolve)
    async with http_client(transport) as client:
        fetcher = Fetcher(client, cache)
        for url in domain.catalog_urls():
            body = await fetcher.get(url, accept=CATALOG_ACCEPT, missing_ok=True)
            if body is not None:
                return await _from_catalog(fetcher, domain, url, body)
        if domain.path:
            url = f"{domain.origin}{domain.path}/server-card"
            entry = CatalogEntry(identifier=url, url=url)
            return DomainListing(domain, url, (await _card(fetcher, domain, entry),))
    raise DiscoveryError(f"{domain.host} publishes no MCP servers (nothing at {domain.catalog_urls()[0]})")


async def _from_catalog(fetcher: Fetcher, domain: DomainAddress, url: str, body: bytes) -> DomainListing:
    try:
        catalog = parse_catalog(parse_json(body, "the catalog"))
    except DocumentError as exc:
        raise DiscoveryError(f"{domain.host}'s catalog cannot be read: {exc}") from None
    if not catalog.entries and not catalog.skipped:
        raise DiscoveryError(f"{domain.host}'s catalog lists no MCP servers")
    limit = asyncio.Semaphore(PARALLEL_CARDS)

    async def one(entry: CatalogEntry) -> FoundServer:
        async with limit:
            return await _card(fetcher, domain, entry)

    servers = await asyncio.gather(*(one(entry) for entry in catalog.entries))
    return DomainListing(domain, url, tuple(servers), catalog.skipped)


async def _card(fetcher: Fetcher, domain: DomainAddress, entry: CatalogEntry) -> FoundServer:
    name = entry.display_name or entry.identifier
    warnings: tuple[str, ...] = ()
    data: object = entry.data
    if entry.url is not None:
        findings = check_url(entry.url, domain, "its card")
        if findings.problem is not None:
            return FoundServer(entry.identifier, name, entry.url, problem=findings.problem)
        warnings = findings.warnings
        try:
            body = await fetcher.get(entry.url, accept=CARD_TYPE)
            assert body is not None
            data = parse_json(body, "the card")
        except (DiscoveryError, DocumentError) as exc:
            return FoundServer(entry.identifier, name, entry.url, problem=str(exc), warnings=warnings)
    try:
        card = parse_card(data)
    except DocumentError as exc:
        return FoundServer(entry.identifier, name, entry.url, problem=str(exc), warnings=warnings)
    return FoundServer(entry.identifier, card.display_name, entry.url, card, warnings=warnings)
