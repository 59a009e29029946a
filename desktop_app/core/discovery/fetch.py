"""Reading one document a domain serves (its catalog, a card): small, from where it was asked, cached.

Everything here is written by the domain, so each read is bounded: at most 1 MiB (a longer
`Content-Length` is refused before reading, a longer stream is cut off as it arrives), within a
timeout, and redirects are followed only on the same origin: a catalog that sends MCP Desk to
another host is refused rather than followed. The cache (`cache.py`) answers while a document is
fresh and revalidates it with its `ETag` after that.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final
from urllib.parse import urljoin

import httpx2

from desktop_app.core.discovery.address import DiscoveryError, origin_of
from desktop_app.core.discovery.cache import DocumentCache
from desktop_app.core.tls import tls_context

MAX_DOCUMENT_BYTES: Final = 1024 * 1024
MAX_REDIRECTS: Final = 3
TIMEOUT_S: Final = 10.0
CONNECT_TIMEOUT_S: Final = 5.0


@asynccontextmanager
async def http_client(transport: httpx2.AsyncBaseTransport | None = None) -> AsyncIterator[httpx2.AsyncClient]:
    """One client for one look-up (the task that opens it closes it); redirects are followed by hand."""
    timeout = httpx2.Timeout(TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    headers = {"User-Agent": "mcp-desk"}
    async with httpx2.AsyncClient(
        timeout=timeout,
        headers=headers,
        transport=transport,
        follow_redirects=False,
        trust_env=False,
        verify=tls_context(trust_env=False),
    ) as client:
        yield client


class Fetcher:
    """GETs documents through `client`, with the cache when there is one."""

    def __init__(self, client: httpx2.AsyncClient, cache: DocumentCache | None = None) -> None:
        self._client = client
        self._cache = cache

    async def get(self, url: str, *, accept: str, missing_ok: bool = False) -> bytes | None:
        """The body of `url`; None when it is missing (404/410) and `missing_ok`; else `DiscoveryError`."""
        cached = self._cache.load(url) if self._cache is not None else None
        if cached is not None and self._cache is not None and cached.fresh(self._cache.now()):
            return cached.body
        headers = {"Accept": accept}
        if cached is not None and cached.etag:
            headers["If-None-Match"] = cached.etag
        target = url
        for _ in range(MAX_REDIRECTS + 1):
            try:
                async with self._client.stream("GET", target, headers=headers) as response:
                    if response.is_redirect and "location" in response.headers:
                        target = self._redirect(url, target, response.headers["location"])
                        continue
                    cache_control = response.headers.get("cache-control")
                    if response.status_code == 304 and cached is not None and self._cache is not None:
                        self._cache.revalidated(url, cached, cache_control)
                        return cached.body
                    if response.status_code in (404, 410) and missing_ok:
                        return None
                    if response.status_code >= 300:
                        raise DiscoveryError(f"{url} answered HTTP {response.status_code}")
                    body = await _read_capped(response, url)
                    if self._cache is not None:
                        self._cache.save(url, body, response.headers.get("etag"), cache_control)
                    return body
            except httpx2.TimeoutException:
                raise DiscoveryError(f"{url} did not answer within {TIMEOUT_S:g} s") from None
            except httpx2.ConnectError as exc:
                raise DiscoveryError(f"{origin_of(url)} cannot be reached ({exc or 'connection refused'})") from None
            except httpx2.HTTPError as exc:
                raise DiscoveryError(f"reading {url} failed: {exc}") from None
        raise DiscoveryError(f"{url} redirects more than {MAX_REDIRECTS} times; not followed")

    @staticmethod
    def _redirect(url: str, current: str, location: str) -> str:
        """The next URL of a redirect, only on the origin that was asked."""
        target = urljoin(current, location)
        if origin_of(target) != origin_of(url):
            raise DiscoveryError(
                f"{url} redirects to {origin_of(target)}; MCP Desk does not follow a domain's documents elsewhere"
            )
        return target


async def _read_capped(response: httpx2.Response, url: str) -> bytes:
    too_big = f"{url} is larger than {MAX_DOCUMENT_BYTES // 1024} KiB; not read"
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_DOCUMENT_BYTES:
        raise DiscoveryError(too_big)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_DOCUMENT_BYTES:
            raise DiscoveryError(too_big)
        chunks.append(chunk)
    return b"".join(chunks)
