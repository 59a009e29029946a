"""One connected attempt: the SDK client from its handshake to its close.

The owner task creates a `Session` per attempt and awaits `run`, so the client's cancel scopes
are entered and left by that one task. Once listed, the session waits for work: a re-listing,
a changed set of subscriptions, a stop, or the transport's end. A listing refused for want of
scopes is the connection's concern (`ServerAuth.listing_refused`), not a restart's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from mcp import Client
from mcp.client import advertise
from mcp_types import (
    LoggingMessageNotificationParams,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    ToolListChangedNotification,
)

from desktop_app.core.asks.server_asks import ServerAsks
from desktop_app.core.auth.server_auth import ServerAuth
from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.connection.listings import ListKind, Staleness, list_catalog
from desktop_app.core.connection.negotiation import CLIENT_INFO, discover_pinned, enable_legacy_logging, is_modern
from desktop_app.core.connection.server_claim import ServerClaims
from desktop_app.core.connection.server_log import ServerLog
from desktop_app.core.connection.subscriptions import Subscriptions, cancel
from desktop_app.core.events import Event, ResourceUpdated
from desktop_app.core.extensions import skills
from desktop_app.core.extensions.apps_meta import EXTENSION_ID, client_extension_settings
from desktop_app.core.extensions.tasks import TasksExtension
from desktop_app.core.server_config import LOG_LEVELS, ServerConfig
from desktop_app.core.server_errors import ConnectionLost
from desktop_app.core.transport_watch import TransportWatch


class Session:
    """The SDK client of one attempt; `client` is set while the session is ready for requests."""

    def __init__(
        self,
        config: ServerConfig,
        target: Any,
        watch: TransportWatch,
        *,
        auth: ServerAuth,
        log: ServerLog,
        log_level: Callable[[], str],
        asks: ServerAsks,
        staleness: Staleness,
        subscriptions: Subscriptions,
        publish: Callable[[Event], None],
        claims: ServerClaims | None = None,
    ) -> None:
        """`claims` keeps what the handshake and each listing page say the server is."""
        self._config = config
        self._watch = watch
        self._auth = auth
        self._log = log
        self._log_level = log_level
        self._asks = asks
        self._staleness = staleness
        self._subscriptions = subscriptions
        self._publish = publish
        self._claims = claims
        self.client: Client | None = None
        self._sdk = Client(
            target,
            mode=config.protocol,
            read_timeout_seconds=config.timeout,
            message_handler=self._on_message,
            logging_callback=self._on_log,
            log_level=log_level(),  # type: ignore[arg-type]
            client_info=CLIENT_INFO,
            cache=None,  # every read and list must reflect the server now, not a TTL ago
            **asks.client_options(),
            # MCP Apps (views render here), Tasks (a call the server makes a task of is followed: `Calls`)
            # and Skills (listed by name, read on demand).
            extensions=[
                advertise(EXTENSION_ID, client_extension_settings()),
                TasksExtension(),
                skills.client_extension(),
            ],
        )

    async def run(
        self,
        stop: asyncio.Event,
        *,
        catalog: Callable[[], ServerCatalog | None],
        set_catalog: Callable[[ServerCatalog], None],
        ready: Callable[[Client], None],
        idling: Callable[[], AbstractContextManager[None]],
    ) -> None:
        """Connect, list, then serve until `stop` is set (returns) or the transport ends (raises)."""
        client, watch, config = self._sdk, self._watch, self._config
        async with contextlib.AsyncExitStack() as stack:
            watch.handshaking = True
            try:
                # The SDK bounds each request, but not the whole `auto` probe-and-fallback dance.
                async with asyncio.timeout(config.timeout):
                    await stack.enter_async_context(client)
            except Exception as exc:
                raise watch.handshake_failure(exc, config.timeout) from exc
            finally:
                watch.handshaking = False
            self._log.note("info", f"connected, protocol {client.protocol_version}")
            if self._claims is not None:
                self._claims.handshake(client.server_info)
            await discover_pinned(client, config, self._log.note)
            await enable_legacy_logging(client, self._log_level(), self._log.note)
            set_catalog(await self._list(client))
            self.client = client
            ready(client)
            listener: asyncio.Task[None] | None = None
            try:
                await self._subscriptions.apply_all(client)
                if is_modern(client):
                    listener = self._subscriptions.start_listener(client)
                while True:
                    with idling():
                        await _first_of(stop, watch.dead, self._staleness.due, self._subscriptions.changed)
                    if stop.is_set():
                        return
                    if watch.dead.is_set():
                        raise ConnectionLost(watch.dead_reason)
                    if self._staleness.due.is_set():
                        stale = self._staleness.take()
                        set_catalog(await self._list(client, catalog(), stale))
                    if self._subscriptions.changed.is_set():
                        self._subscriptions.changed.clear()
                        if listener is not None:
                            await cancel(listener)
                            listener = self._subscriptions.start_listener(client)
            finally:
                self.client = None
                if listener is not None:
                    await cancel(listener)

    async def _list(
        self, client: Client, kept: ServerCatalog | None = None, stale: set[ListKind] | None = None
    ) -> ServerCatalog:
        """List the catalog; a listing refused for want of scopes makes the connection need them."""
        generation = self._auth.generation
        try:
            seen = self._claims.seen if self._claims is not None else None
            return await list_catalog(client, self._config.name, kept, stale, seen)
        except Exception:
            self._auth.listing_refused(generation)
            raise

    async def _on_message(self, message: Any) -> None:
        self._asks.on_notification(message)
        # Exceptions (unparsable lines) arrive here too; the watched transport already logged them.
        if isinstance(message, ResourceUpdatedNotification):
            self._publish(ResourceUpdated(self._config.name, message.params.uri))
        elif isinstance(message, ResourceListChangedNotification):
            self._staleness.mark(("resources",))
        elif isinstance(message, ToolListChangedNotification):
            self._staleness.mark(("tools",))
        elif isinstance(message, PromptListChangedNotification):
            self._staleness.mark(("prompts",))

    async def _on_log(self, params: LoggingMessageNotificationParams) -> None:
        if severity(params.level) < severity(self._log_level()):
            return  # below this server's level: not every server honours logging/setLevel
        data = params.data if isinstance(params.data, str) else repr(params.data)
        prefix = f"[{params.logger}] " if params.logger else ""
        self._log.add("server", params.level, prefix + data)


def severity(level: str) -> int:
    return LOG_LEVELS.index(level) if level in LOG_LEVELS else 0


async def _first_of(*events: asyncio.Event) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
