"""Reads cached by (server, URI), invalidated when the server says the resource changed.

The same cache tracks who keeps a resource in view: a viewer showing it or a conversation it
is attached to `retain`s it, which subscribes to `resources/updated`, and `release` undoes it.
"""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict
from typing import Final

from PySide6.QtCore import QObject, Signal

from desktop_app.bridge import CoreBridge
from desktop_app.core.content import ResourceContent
from desktop_app.core.server_status import ServerState, ServerStatus

MAX_CACHED_BYTES: Final = 64 * 1024 * 1024
Key = tuple[str, str]


class ResourceCache(QObject):
    """Shared by every viewer (and the composer) so one resource is read once until it changes."""

    updated = Signal(str, str)
    """server, uri: the server changed this resource; the cached copy is gone, read it again."""

    def __init__(self, bridge: CoreBridge, max_bytes: int = MAX_CACHED_BYTES, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._max_bytes = max_bytes
        self._entries: OrderedDict[Key, tuple[list[ResourceContent], int]] = OrderedDict()
        self._bytes = 0
        self._reads: dict[Key, asyncio.Future[list[ResourceContent]]] = {}
        self._retained: Counter[Key] = Counter()
        bridge.resource_updated.connect(self._on_updated)
        bridge.server_state_changed.connect(self._on_state)

    def cached(self, server: str, uri: str) -> list[ResourceContent] | None:
        entry = self._entries.get((server, uri))
        return entry[0] if entry is not None else None

    async def read(self, server: str, uri: str) -> list[ResourceContent]:
        """The resource's contents, from the cache or one shared request to its server."""
        key = (server, uri)
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            return entry[0]
        future = self._reads.get(key)
        if future is None:
            future = asyncio.ensure_future(self._bridge.host.read_resource(uri, server=server))
            self._reads[key] = future
            future.add_done_callback(lambda done: self._store(key, done))
        # Shielded: one caller giving up (the user moved on) must not cancel the others' read.
        return await asyncio.shield(future)

    def invalidate(self, server: str, uri: str) -> None:
        key = (server, uri)
        self._reads.pop(key, None)
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._bytes -= entry[1]

    def retain(self, server: str, uri: str) -> None:
        """Keep `uri` fresh while it is shown or attached: subscribe on the first holder."""
        self._retained[(server, uri)] += 1
        connection = self._bridge.host.connections.get(server)
        if connection is not None:
            self._bridge.spawn(connection.subscribe(uri), f"Subscribing to {uri}")

    def release(self, server: str, uri: str) -> None:
        key = (server, uri)
        if self._retained[key] <= 0:
            return
        self._retained[key] -= 1
        if not self._retained[key]:
            del self._retained[key]
        connection = self._bridge.host.connections.get(server)
        if connection is not None:
            self._bridge.spawn(connection.unsubscribe(uri), f"Unsubscribing from {uri}")

    def retained(self) -> list[Key]:
        return sorted(self._retained)

    def _store(self, key: Key, future: asyncio.Future[list[ResourceContent]]) -> None:
        if self._reads.get(key) is not future:
            return  # invalidated while in flight: the answer may predate the change
        del self._reads[key]
        if future.cancelled() or future.exception() is not None:
            return
        contents = future.result()
        size = sum(item.size for item in contents)
        if size > self._max_bytes:
            return
        self._entries[key] = (contents, size)
        self._bytes += size
        while self._bytes > self._max_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self._bytes -= dropped

    def _on_updated(self, server: str, uri: str) -> None:
        self.invalidate(server, uri)
        self.updated.emit(server, uri)

    def _on_state(self, server: str, status: ServerStatus) -> None:
        """A restarted server may serve different content: forget what it said before."""
        if status.state is not ServerState.READY:
            for key in [k for k in self._entries if k[0] == server]:
                self.invalidate(*key)
