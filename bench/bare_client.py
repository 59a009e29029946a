"""What a bare SDK client does, for the benches that compare the host with one: open streams handed to
`mcp.Client`, and every listing read to its last page."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any


class OpenStreams:
    """Hands already-open streams to `Client` as a transport."""

    def __init__(self, streams: Any) -> None:
        self._streams = streams

    async def __aenter__(self) -> Any:
        return self._streams

    async def __aexit__(self, *exc: object) -> None:
        return None


async def all_pages(fetch: Callable[[str | None], Awaitable[Any]]) -> None:
    """Fetch a paginated listing to its last page."""
    cursor: str | None = None
    while True:
        page = await fetch(cursor)
        cursor = page.next_cursor
        if not cursor:
            return


async def list_everything(client: Any) -> None:
    """Resources, templates, prompts and tools, each to its last page (what the host lists)."""
    await all_pages(lambda c: client.list_resources(cursor=c))
    await all_pages(lambda c: client.list_resource_templates(cursor=c))
    await all_pages(lambda c: client.list_prompts(cursor=c))
    await all_pages(lambda c: client.list_tools(cursor=c))
