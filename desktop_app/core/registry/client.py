"""A client for an MCP Registry's read API (v0.1): list and search servers, their versions, downloads.

The registry URL is the user's choice (an organisation may run its own sub-registry), so every
failure is worded for a person: which registry, what went wrong, nothing about exception classes.
Each call opens and closes its own HTTP client: the task that starts a request owns it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote, urlsplit

import httpx2

from desktop_app.core.publisher_document import DocumentError
from desktop_app.core.registry import DEFAULT_REGISTRY_URL
from desktop_app.core.registry.cache import RegistryCache
from desktop_app.core.registry.model import ServerEntry, parse_entry
from desktop_app.core.tls import tls_context

API: Final = "/v0.1"
DEFAULT_TIMEOUT_S: Final = 10.0
CONNECT_TIMEOUT_S: Final = 5.0
MAX_JSON_BYTES: Final = 8 * 1024 * 1024
PAGE_SIZE: Final = 30


class RegistryError(Exception):
    """The registry could not give an answer; the message is one line for the user."""


@dataclass(frozen=True)
class ServerPage:
    """One page of a listing; `cached_at` is set when it came from disk because the registry failed."""

    entries: tuple[ServerEntry, ...]
    next_cursor: str | None = None
    skipped: tuple[str, ...] = ()
    """Why entries were left out (malformed documents), one line each."""
    fetched_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    cached_at: datetime | None = None
    offline_reason: str | None = None
    """The registry's failure when this page is the cached one."""


def normalise_registry_url(url: str) -> str:
    """`https://host/path/` -> `https://host/path` (empty: the official registry); refuses non-http(s) URLs."""
    url = url.strip().rstrip("/") or DEFAULT_REGISTRY_URL
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RegistryError(f"the registry URL must start with https:// (got {url!r})")
    if url.endswith(API):
        url = url[: -len(API)]
    return url


def page_from_body(body: object, *, source: str) -> ServerPage:
    """Read a `ServerList` (`{"servers": [...], "metadata": {"nextCursor": ...}}`), skipping bad entries."""
    if not isinstance(body, dict) or not isinstance(body.get("servers"), list):
        raise RegistryError(f"{source} did not answer with a server list (is it an MCP Registry v0.1 API?)")
    entries: list[ServerEntry] = []
    skipped: list[str] = []
    for index, item in enumerate(body["servers"]):
        try:
            entries.append(parse_entry(item))
        except DocumentError as exc:
            name = item.get("server", {}).get("name") if isinstance(item, dict) else None
            skipped.append(f"{name or f'entry {index + 1}'}: {exc}")
    metadata = body.get("metadata")
    cursor = metadata.get("nextCursor") if isinstance(metadata, dict) else None
    return ServerPage(tuple(entries), cursor if isinstance(cursor, str) and cursor else None, tuple(skipped))


class RegistryClient:
    """Reads one registry. `transport` lets tests and embedders swap the HTTP layer."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = normalise_registry_url(base_url)
        self.timeout = timeout
        self._transport = transport

    @asynccontextmanager
    async def _http(self) -> AsyncIterator[httpx2.AsyncClient]:
        timeout = httpx2.Timeout(self.timeout, connect=min(CONNECT_TIMEOUT_S, self.timeout))
        headers = {"Accept": "application/json", "User-Agent": "mcp-desk"}
        async with httpx2.AsyncClient(
            timeout=timeout, headers=headers, transport=self._transport, follow_redirects=True, verify=tls_context()
        ) as client:
            yield client

    async def list_servers(
        self,
        *,
        search: str | None = None,
        cursor: str | None = None,
        limit: int | None = PAGE_SIZE,
        version: str | None = "latest",
        updated_since: datetime | str | None = None,
    ) -> tuple[ServerPage, dict[str, Any]]:
        """`GET /v0.1/servers`; returns the page and the raw body (for the cache)."""
        params: dict[str, str] = {}
        if search:
            params["search"] = search
        if cursor:
            params["cursor"] = cursor
        if limit is not None:
            params["limit"] = str(limit)
        if version:
            params["version"] = version
        if updated_since is not None:
            stamp = updated_since if isinstance(updated_since, str) else updated_since.isoformat()
            params["updated_since"] = stamp.replace("+00:00", "Z")
        body = await self._get_json(f"{API}/servers", params)
        return page_from_body(body, source=self._label()), body

    async def versions(self, name: str) -> list[ServerEntry]:
        """`GET /v0.1/servers/{name}/versions`: every version, newest first."""
        body = await self._get_json(f"{API}/servers/{quote(name, safe='')}/versions", {}, missing=f"{name} is not in")
        page = page_from_body(body, source=self._label())
        return list(page.entries)

    async def get(self, name: str, version: str = "latest") -> ServerEntry:
        """`GET /v0.1/servers/{name}/versions/{version}` (`latest` is the newest)."""
        path = f"{API}/servers/{quote(name, safe='')}/versions/{quote(version, safe='')}"
        what = f"{name} is not in" if version == "latest" else f"{name} {version} is not in"
        body = await self._get_json(path, {}, missing=what)
        try:
            return parse_entry(body)
        except DocumentError as exc:
            raise RegistryError(f"the registry's entry for {name} is malformed: {exc}") from None

    async def download(self, url: str, *, limit: int) -> bytes:
        """Fetch a file (a `.mcpb`, an icon) of at most `limit` bytes."""
        if urlsplit(url).scheme not in ("http", "https"):
            raise RegistryError(f"cannot download {url!r}: only http(s) URLs are fetched")
        async with self._errors(url), self._http() as client, client.stream("GET", url) as response:
            if response.status_code >= 400:
                raise RegistryError(f"downloading {url} failed: HTTP {response.status_code}")
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > limit:
                    raise RegistryError(f"{url} is larger than {limit // (1024 * 1024) or 1} MB; not downloaded")
                chunks.append(chunk)
            return b"".join(chunks)

    def _label(self) -> str:
        return f"the registry at {self.base_url}"

    @asynccontextmanager
    async def _errors(self, what: str) -> AsyncIterator[None]:
        try:
            yield
        except httpx2.TimeoutException:
            raise RegistryError(f"{what} did not answer within {self.timeout:g} s") from None
        except httpx2.ConnectError as exc:
            raise RegistryError(f"{what} cannot be reached ({exc or 'connection refused'})") from None
        except httpx2.HTTPError as exc:
            raise RegistryError(f"{what} failed: {exc}") from None

    async def _get_json(self, path: str, params: dict[str, str], *, missing: str | None = None) -> Any:
        label = self._label()
        async with self._errors(label), self._http() as client:
            response = await client.get(self.base_url + path, params=params)
            if response.status_code == 404 and missing is not None:
                raise RegistryError(f"{missing} {label}")
            if response.status_code >= 400:
                raise RegistryError(f"{label} answered HTTP {response.status_code} for {path}")
            content = response.content
        if len(content) > MAX_JSON_BYTES:
            raise RegistryError(f"{label} sent an answer too large to read")
        try:
            return json.loads(content)
        except ValueError:
            raise RegistryError(f"{label} did not answer with JSON") from None


async def browse(
    client: RegistryClient, cache: RegistryCache | None, *, search: str = "", cursor: str | None = None
) -> ServerPage:
    """A page of the latest versions; when the registry fails, the last cached first page, marked so."""
    try:
        page, body = await client.list_servers(search=search or None, cursor=cursor)
    except RegistryError as exc:
        cached = cache.load(client.base_url, search) if cache is not None and cursor is None else None
        if cached is None:
            raise
        try:
            stale = page_from_body(cached.body, source="the cached list")
        except RegistryError:
            raise exc from None
        return ServerPage(
            stale.entries,
            None,
            stale.skipped,
            fetched_at=cached.fetched_at,
            cached_at=cached.fetched_at,
            offline_reason=str(exc),
        )
    if cache is not None and cursor is None:
        cache.save(client.base_url, search, body, page.fetched_at)
    return page
