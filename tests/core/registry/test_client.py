"""The registry client against a real HTTP registry on 127.0.0.1: the v0.1 API, failures, the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.registry.cache import RegistryCache
from desktop_app.core.registry.client import RegistryClient, RegistryError, browse, normalise_registry_url
from tests.servers.registry_documents import hello, simple
from tests.servers.registry_fixture import RegistryFixture, response

pytestmark = pytest.mark.anyio


async def test_lists_latest_versions_and_skips_malformed_entries(registry: RegistryFixture) -> None:
    page, body = await RegistryClient(registry.url).list_servers()
    names = [e.server.name for e in page.entries]
    assert "io.github.mcp-desk-tests/hello" in names and "io.github.acme/weather" in names
    assert "io.github.acme/gone" not in names  # deleted entries are left out by the registry
    hello_entry = next(e for e in page.entries if e.server.name.endswith("/hello"))
    assert hello_entry.server.version == "1.0.0"  # version=latest
    assert hello_entry.official.is_latest is True and hello_entry.official.status == "active"
    assert len(page.skipped) == 1 and page.skipped[0].startswith("io.github.acme/broken: server.description")
    assert body["servers"] and "version=latest" in registry.requests[-1]


async def test_search_cursor_limit_and_updated_since(registry: RegistryFixture) -> None:
    client = RegistryClient(registry.url)
    page, _ = await client.list_servers(search="weather", limit=1)
    assert [e.server.name for e in page.entries] == ["io.github.acme/weather"]
    assert page.next_cursor == "1"
    following, _ = await client.list_servers(search="weather", limit=1, cursor=page.next_cursor)
    assert [e.server.name for e in following.entries] == ["io.github.acme/old-weather"]
    assert following.next_cursor is None
    assert "cursor=1" in registry.requests[-1] and "limit=1" in registry.requests[-1]
    recent, _ = await client.list_servers(updated_since="2026-10-15T00:00:00Z", version=None)
    assert "updated_since=2026-10-15T00%3A00%3A00Z" in registry.requests[-1]
    assert "io.github.acme/gone" in [e.server.name for e in recent.entries]  # deleted shows with updated_since
    assert all(e.server.version != "0.9.0" for e in recent.entries)


async def test_versions_and_one_version(registry: RegistryFixture) -> None:
    client = RegistryClient(registry.url)
    versions = await client.versions("io.github.mcp-desk-tests/hello")
    assert [v.server.version for v in versions] == ["1.0.0", "0.9.0"]
    assert "/v0.1/servers/io.github.mcp-desk-tests%2Fhello/versions" in registry.requests[-1]
    old = await client.get("io.github.mcp-desk-tests/hello", "0.9.0")
    assert old.server.version == "0.9.0" and old.official.is_latest is False
    latest = await client.get("io.github.mcp-desk-tests/hello")
    assert latest.server.version == "1.0.0" and registry.requests[-1].endswith("/versions/latest")


async def test_unknown_server_and_version(registry: RegistryFixture) -> None:
    client = RegistryClient(registry.url)
    with pytest.raises(RegistryError, match=r"^io.github.nobody/x is not in the registry at http://127"):
        await client.get("io.github.nobody/x")
    with pytest.raises(RegistryError, match=r"io.github.acme/weather 9.9 is not in"):
        await client.get("io.github.acme/weather", "9.9")


async def test_malformed_single_entry_is_refused_with_the_field(registry: RegistryFixture) -> None:
    with pytest.raises(RegistryError, match=r"entry for io.github.acme/broken is malformed: server.description"):
        await RegistryClient(registry.url).get("io.github.acme/broken")


async def test_down_slow_and_not_json(registry: RegistryFixture) -> None:
    client = RegistryClient(registry.url, timeout=0.3)
    registry.down = True
    with pytest.raises(RegistryError, match=r"answered HTTP 503"):
        await client.list_servers()
    registry.down = False
    registry.raw = b"<html>oops"
    with pytest.raises(RegistryError, match=r"did not answer with JSON"):
        await client.list_servers()
    registry.raw = b'{"items": []}'
    with pytest.raises(RegistryError, match=r"did not answer with a server list"):
        await client.list_servers()
    registry.raw = None
    registry.delay = 1.0
    with pytest.raises(RegistryError, match=r"did not answer within 0.3 s"):
        await client.list_servers()


async def test_unreachable_registry() -> None:
    with pytest.raises(RegistryError, match=r"^the registry at http://127.0.0.1:9 cannot be reached"):
        await RegistryClient("http://127.0.0.1:9").list_servers()


def test_registry_urls() -> None:
    assert normalise_registry_url(" https://r.example/v0.1/ ") == "https://r.example"
    assert normalise_registry_url("") == "https://registry.modelcontextprotocol.io"
    with pytest.raises(RegistryError, match=r"must start with https://"):
        normalise_registry_url("ftp://r.example")


async def test_cached_list_opens_offline_labelled(registry: RegistryFixture, tmp_path: Path) -> None:
    cache = RegistryCache(tmp_path)
    client = RegistryClient(registry.url)
    fresh = await browse(client, cache, search="")
    assert fresh.cached_at is None and fresh.entries
    registry.down = True
    stale = await browse(client, cache, search="")
    assert stale.cached_at == fresh.fetched_at
    assert stale.offline_reason is not None and "HTTP 503" in stale.offline_reason
    assert [e.server.name for e in stale.entries] == [e.server.name for e in fresh.entries]
    with pytest.raises(RegistryError):  # nothing cached for another search: the error stands
        await browse(client, cache, search="never-searched")
    # The cache survives a new process (another instance over the same folder).
    again = await browse(client, RegistryCache(tmp_path), search="")
    assert again.cached_at is not None


async def test_cache_keeps_registries_apart(registry: RegistryFixture, tmp_path: Path) -> None:
    cache = RegistryCache(tmp_path)
    await browse(RegistryClient(registry.url), cache)
    assert cache.load(registry.url, "") is not None
    assert cache.load("https://other.example", "") is None
    damage(tmp_path)
    assert cache.load(registry.url, "") is None  # a damaged cache is just no cache


def damage(folder: Path) -> None:
    for path in folder.iterdir():
        path.write_text("{not json")


async def test_download_limits(registry: RegistryFixture) -> None:
    registry.files["big"] = b"x" * 2048
    client = RegistryClient(registry.url)
    assert await client.download(registry.file_url("big"), limit=4096) == b"x" * 2048
    with pytest.raises(RegistryError, match=r"larger than"):
        await client.download(registry.file_url("big"), limit=1024)
    with pytest.raises(RegistryError, match=r"HTTP 404"):
        await client.download(registry.file_url("missing"), limit=1024)
    with pytest.raises(RegistryError, match=r"only http"):
        await client.download("file:///etc/passwd", limit=1024)


async def test_new_versions_appear(registry: RegistryFixture) -> None:
    registry.versions["io.github.mcp-desk-tests/hello"][0]["_meta"]["io.modelcontextprotocol.registry/official"][
        "isLatest"
    ] = False
    registry.add(response(hello(registry, "1.1.0")), response(simple("io.github.x/y", "Y")))
    entry = await RegistryClient(registry.url).get("io.github.mcp-desk-tests/hello")
    assert entry.server.version == "1.1.0"
