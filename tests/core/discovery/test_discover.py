"""Looking up a real domain on 127.0.0.1: its catalog, its cards, the fallbacks, and the HTTP cache."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from desktop_app.core.discovery.address import DiscoveryError, parse_address
from desktop_app.core.discovery.cache import DocumentCache, freshness
from desktop_app.core.discovery.card import SCHEMAS
from desktop_app.core.discovery.discover import discover
from tests.servers.card_domain import (
    CARD_TYPE,
    CATALOG_PATH,
    CardDomain,
    Served,
    card,
    catalog,
    entry,
    running_domain,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def domain() -> Iterator[CardDomain]:
    with running_domain() as served:
        yield served


async def test_a_domain_lists_its_servers_from_their_cards(domain: CardDomain) -> None:
    listing = await discover(domain.host)
    assert listing.domain.origin == domain.url and listing.source == domain.url + CATALOG_PATH
    [server] = listing.servers
    assert server.problem is None and server.card is not None
    assert (server.card.name, server.card.version, server.display_name) == ("io.example/weather", "2.0.0", "Weather")
    [remote] = server.card.remotes
    assert remote.url == domain.url + "/mcp?region={region}"
    assert remote.headers[0].name == "X-Api-Key" and remote.headers[0].is_secret
    assert remote.supported_protocol_versions == ("2025-11-25", "2026-07-28")
    assert server.card_url == domain.url + "/cards/weather" and server.warnings == ()
    card_request = dict(domain.requests)["/cards/weather"]
    assert card_request["accept"] == CARD_TYPE


async def test_the_v2_schema_an_inline_card_and_the_ai_catalog(domain: CardDomain) -> None:
    del domain.files[CATALOG_PATH]
    inline = card(domain, name="io.example/inline", **{"$schema": SCHEMAS[1]})
    domain.files["/.well-known/ai-catalog.json"] = Served(
        {"specVersion": "1.0", "entries": [{"identifier": "urn:x", "type": CARD_TYPE, "data": inline}]}
    )
    listing = await discover(domain.url)
    [server] = listing.servers
    assert server.card is not None and server.card.name == "io.example/inline" and server.card_url is None
    assert domain.paths() == [CATALOG_PATH, "/.well-known/ai-catalog.json"]


async def test_a_url_without_a_catalog_reads_its_server_card(domain: CardDomain) -> None:
    del domain.files[CATALOG_PATH]
    domain.files["/mcp/server-card"] = Served(card(domain))
    listing = await discover(domain.url + "/mcp")
    [server] = listing.servers
    assert server.card is not None and listing.source == domain.url + "/mcp/server-card"


async def test_what_cannot_be_read_is_said_and_the_rest_still_shows(domain: CardDomain) -> None:
    domain.files[CATALOG_PATH] = Served(
        catalog(
            entry(domain.url + "/cards/weather"),
            entry(domain.url + "/cards/missing", "urn:missing"),
            {"identifier": "urn:no-url", "type": CARD_TYPE},
            {"identifier": "urn:other", "type": "application/a2a-agent-card+json", "url": "https://a.example"},
        )
    )
    domain.files["/cards/old"] = Served(card(domain, **{"$schema": "https://example.com/server.schema.json"}))
    domain.files[CATALOG_PATH].body["entries"].append(entry(domain.url + "/cards/old", "urn:old"))
    listing = await discover(domain.host)
    weather, missing, old = listing.servers
    assert weather.card is not None
    assert missing.card is None and missing.problem == f"{domain.url}/cards/missing answered HTTP 404"
    assert old.problem is not None and "is not a Server Card schema" in old.problem
    assert listing.skipped == ("entries[2] needs either a url or the card as data",)  # the agent card is not ours


async def test_a_domain_without_servers_says_so(domain: CardDomain) -> None:
    del domain.files[CATALOG_PATH]
    with pytest.raises(DiscoveryError, match=rf"^{domain.host} publishes no MCP servers \(nothing at "):
        await discover(domain.host)
    domain.files[CATALOG_PATH] = Served(b"<html>not json</html>")
    with pytest.raises(DiscoveryError, match="catalog cannot be read: the catalog is not JSON"):
        await discover(domain.host)


async def test_cache_control_and_etags_are_honoured(domain: CardDomain, tmp_path: Path) -> None:
    now = [datetime(2026, 11, 30, 12, 0, tzinfo=UTC)]
    cache = DocumentCache(tmp_path, clock=lambda: now[0])
    await discover(domain.host, cache=cache)
    assert domain.paths() == [CATALOG_PATH, "/cards/weather"]
    await discover(domain.host, cache=cache)
    assert len(domain.requests) == 2  # both fresh: nothing asked

    now[0] += timedelta(minutes=5)  # the catalog (max-age=60) is stale, the card (3600) is not
    listing = await discover(domain.host, cache=cache)
    assert domain.paths()[2:] == [CATALOG_PATH] and domain.requests[-1][1]["if-none-match"] == '"cat-1"'
    assert listing.servers[0].card is not None

    now[0] += timedelta(hours=2)  # the card changed meanwhile: a new ETag, a new body
    domain.files["/cards/weather"] = Served(card(domain, version="2.1.0"), etag='"card-2"', cache_control="max-age=10")
    listing = await discover(domain.host, cache=cache)
    assert domain.requests[-1][1]["if-none-match"] == '"card-1"'
    assert listing.servers[0].card is not None and listing.servers[0].card.version == "2.1.0"


def test_cache_control_is_read_for_a_private_cache() -> None:
    assert freshness("public, max-age=3600") == freshness("max-age=3600")
    assert freshness("max-age=3600").max_age_s == 3600
    assert freshness("no-store, max-age=60").store is False
    assert freshness("no-cache, max-age=60").max_age_s == 0 and freshness(None).max_age_s == 0
    assert freshness("max-age=999999999").max_age_s == 24 * 3600  # a card cannot pin itself for years


def test_addresses_users_type() -> None:
    assert parse_address("example.com").origin == "https://example.com"
    assert parse_address("https://Example.com:443/mcp/").origin == "https://example.com"
    assert parse_address("https://example.com/mcp/").path == "/mcp"
    assert parse_address("127.0.0.1:8080").origin == "http://127.0.0.1:8080"  # plain http on this computer only
    assert parse_address("localhost:8080").host == "localhost:8080"
