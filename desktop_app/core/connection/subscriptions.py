"""Resource subscriptions and change notifications, in both protocol eras.

A 2025-era server takes `resources/subscribe` per URI on the session. A 2026 server streams
changes through one `subscriptions/listen` request naming every URI, so a changed set of URIs
starts the listener over. Counts let several viewers share one subscription.
"""

from __future__ import annotations

import asyncio
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcp import Client
from mcp.client.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged
from mcp.client.subscriptions import ResourceUpdated as ListenResourceUpdated
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from desktop_app.core.connection.listings import LIST_KINDS, ListKind, Staleness
from desktop_app.core.connection.negotiation import Note, is_modern
from desktop_app.core.events import Event, ResourceUpdated
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError, describe_error

Request = Callable[[str, Callable[[Client], Awaitable[Any]]], Awaitable[Any]]
"""Sends one request through the connection (what, send) and words its failure."""

_LISTEN_KINDS: Final[dict[type, tuple[ListKind, ...]]] = {
    ResourcesListChanged: ("resources",),
    PromptsListChanged: ("prompts",),
    ToolsListChanged: ("tools",),
}


class Subscriptions:
    """The URIs the app watches on one server, kept across reconnects and applied to each session."""

    def __init__(
        self,
        server: Callable[[], str],
        *,
        client: Callable[[], Client | None],
        request: Request,
        staleness: Staleness,
        publish: Callable[[Event], None],
        note: Note,
    ) -> None:
        self._server = server
        self._client = client
        self._request = request
        self._staleness = staleness
        self._publish = publish
        self._note = note
        self._counts: Counter[str] = Counter()
        self.changed = asyncio.Event()
        """Set when a 2026 session's listener must start over with a changed set of URIs."""

    async def add(self, uri: str) -> None:
        self._counts[uri] += 1
        if self._counts[uri] == 1:
            await self._apply(uri, subscribe=True)

    async def remove(self, uri: str) -> None:
        if self._counts[uri] <= 0:
            return
        self._counts[uri] -= 1
        if self._counts[uri] == 0:
            del self._counts[uri]
            await self._apply(uri, subscribe=False)

    async def apply_all(self, client: Client) -> None:
        """A new 2025-era session subscribes again to everything watched (2026 sessions listen instead)."""
        if not is_modern(client):
            for uri in list(self._counts):
                await self._apply(uri, subscribe=True)

    def start_listener(self, client: Client) -> asyncio.Task[None]:
        return asyncio.create_task(self._listen(client, sorted(self._counts)), name=f"listen:{self._server()}")

    async def _apply(self, uri: str, *, subscribe: bool) -> None:
        client = self._client()
        if client is None:
            return  # applied on (re)connect
        if is_modern(client):
            self.changed.set()
            return
        caps = client.server_capabilities.resources
        if caps is None or not caps.subscribe:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            try:
                if subscribe:
                    await self._request(f"resources/subscribe {uri}", lambda c: c.subscribe_resource(uri))
                else:
                    await self._request(f"resources/unsubscribe {uri}", lambda c: c.unsubscribe_resource(uri))
            except (MCPError, ServerUnavailableError, ServerRequestTimeout) as exc:
                self._note("warning", f"could not change subscription to {uri}: {describe_error(exc)}")

    async def _listen(self, client: Client, uris: list[str]) -> None:
        caps = client.server_capabilities
        wants_uris = uris if caps.resources is not None and caps.resources.subscribe else []
        try:
            async with client.listen(
                tools_list_changed=bool(caps.tools and caps.tools.list_changed),
                prompts_list_changed=bool(caps.prompts and caps.prompts.list_changed),
                resources_list_changed=bool(caps.resources and caps.resources.list_changed),
                resource_subscriptions=wants_uris,
            ) as subscription:
                async for event in subscription:
                    if isinstance(event, ListenResourceUpdated):
                        self._publish(ResourceUpdated(self._server(), event.uri))
                    else:
                        self._staleness.mark(_LISTEN_KINDS.get(type(event), LIST_KINDS))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._note("info", f"change notifications unavailable: {describe_error(exc)}")


async def cancel(task: asyncio.Task[None]) -> None:
    """Cancel the listener and wait for its end: only its own cancellation is swallowed, never the caller's
    (the owner being stopped must not take the listener's CancelledError for its own and carry on)."""
    task.cancel()
    await asyncio.wait({task})
