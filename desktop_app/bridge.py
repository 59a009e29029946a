"""The one door between the Qt-free core and the widgets: core events become Qt signals.

It sits below `ui`, `resources_ui` and the Qt kit (`qt_kit`), and imports none of them, so each may use it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_import import ImportReport
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.events import (
    CatalogChanged,
    LogLine,
    ResourceUpdated,
    SamplingUsage,
    ServerRemoved,
    ServerStateChanged,
)
from desktop_app.core.host import ServerHost
from desktop_app.core.registry.bundle import remove_bundle_files
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_config import ServerConfig

log = logging.getLogger(__name__)


class CoreBridge(QObject):
    """Re-emits host events as signals and runs UI-initiated core work as background tasks."""

    server_state_changed = Signal(str, object)  # name, ServerStatus
    server_removed = Signal(str)  # name: the server left the host; drop it from every view
    catalog_changed = Signal(str, object)  # name, ServerCatalog | None
    resource_updated = Signal(str, str)  # server, uri
    log_line = Signal(str, object)  # server, LogEntry
    task_failed = Signal(str)  # a user-facing error from background work
    secrets_changed = Signal(object)  # SecretStore | None: unlocked, or moved to another backend
    fallback_stepped_aside = Signal(list)  # names of the fallback (demo) servers the user's first server replaced
    sampling_used = Signal(object)  # SamplingUsage: a server's sampling request ran on the user's model

    def __init__(
        self,
        host: ServerHost,
        secrets: SecretStore | None = None,
        store: ConfigStore | None = None,
        fallback: list[ServerConfig] | None = None,
    ) -> None:
        super().__init__()
        self.host = host
        self.host.secrets = secrets
        self.store = store
        self._fallback = fallback or []
        self._tasks: set[asyncio.Task[Any]] = set()
        bus = host.bus
        bus.subscribe(ServerStateChanged, lambda e: self.server_state_changed.emit(e.server, e.status))
        bus.subscribe(ServerRemoved, lambda e: self.server_removed.emit(e.server))
        bus.subscribe(CatalogChanged, lambda e: self.catalog_changed.emit(e.server, e.catalog))
        bus.subscribe(ResourceUpdated, lambda e: self.resource_updated.emit(e.server, e.uri))
        bus.subscribe(LogLine, lambda e: self.log_line.emit(e.server, e.entry))
        bus.subscribe(SamplingUsage, self.sampling_used.emit)

    def spawn(self, work: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run core work without blocking the Qt thread; failures surface as `task_failed`."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and (exc := t.exception()) is not None:
                log.warning("%s failed: %s", what, exc)
                self.task_failed.emit(f"{what} failed: {exc}")

        task.add_done_callback(done)
        return task

    @property
    def secrets(self) -> SecretStore | None:
        store = self.host.secrets
        return store if isinstance(store, SecretStore) else None

    def set_secrets(self, store: SecretStore | None) -> None:
        """Use another secret store from now on (servers read it when they next connect)."""
        self.host.secrets = store
        self.secrets_changed.emit(store)

    def configured_servers(self) -> list[ServerConfig]:
        """What should run: the user's servers, or the embedded demo while there are none."""
        servers = list(self.store.servers.values()) if self.store else []
        return servers or list(self._fallback)

    def restart_server(self, name: str) -> None:
        self.spawn(self.host.restart(name), f"Restarting {name}")

    def sign_in(self, name: str) -> None:
        """Start `name`'s sign-in in the browser; its progress and outcome show in the server's state."""

        async def sign_in() -> None:
            await self.host.connection(name).auth.sign_in()

        self.spawn(sign_in(), f"Signing in to {name}")

    def cancel_sign_in(self, name: str) -> None:
        if name in self.host.connections:
            self.host.connection(name).auth.cancel_sign_in()

    def sign_out(self, name: str) -> None:
        """Revoke and forget `name`'s sign-in, then reconnect (it will ask for a new one)."""

        async def sign_out() -> None:
            await self.host.connection(name).auth.sign_out()
            await self.host.restart(name)

        self.spawn(sign_out(), f"Signing out of {name}")

    def set_server_enabled(self, name: str, enabled: bool) -> None:
        """Persist the toggle for configured servers, then start or stop the server."""
        if self.store is not None and name in self.store.servers:
            self.store.set_disabled(name, not enabled)
        self.spawn(self.host.set_enabled(name, enabled), f"{'Enabling' if enabled else 'Disabling'} {name}")

    def save_server(self, config: ServerConfig, previous_name: str | None) -> None:
        """Save to `servers.json` (raises ConfigError, nothing changed) and apply to the host."""
        if self.store is None:
            raise ConfigError("no configuration file is in use")
        had_none = not self.store.servers
        self.store.upsert(config, previous_name=previous_name)
        self._apply(had_none)

    def remove_server(self, name: str) -> None:
        """Drop the entry and stop the server; an installed bundle's files go once it has stopped."""
        removed = self.store.servers.get(name) if self.store is not None else None
        if self.store is not None and removed is not None:
            self.store.remove(name)
        self.spawn(self._apply_then_remove_files(removed), "Applying the server configuration")

    async def _apply_then_remove_files(self, removed: ServerConfig | None) -> None:
        await self.host.apply(self.configured_servers())
        if removed is not None:
            await asyncio.to_thread(remove_bundle_files, removed)

    def import_servers(self, report: ImportReport) -> None:
        """Save the servers of an import the user reviewed, exactly as shown, and start them."""
        if self.store is None:
            raise ConfigError("no configuration file is in use")
        had_none = not self.store.servers
        self.store.add_imported(report)
        self._apply(had_none)

    def _apply(self, had_none: bool = False) -> None:
        """Run what is configured now; `had_none`: the fallback ran until this change."""
        self.spawn(self.host.apply(self.configured_servers()), "Applying the server configuration")
        if had_none and self.store is not None and self.store.servers and self._fallback:
            self.fallback_stepped_aside.emit([config.name for config in self._fallback])
