"""The one door between the Qt-free core and the widgets: core events become Qt signals."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_app.core.events import CatalogChanged, LogLine, ResourceUpdated, ServerStateChanged
from desktop_app.core.host import ServerHost
from desktop_app.core.secret_store import SecretStore

log = logging.getLogger(__name__)


class CoreBridge(QObject):
    """Re-emits host events as signals and runs UI-initiated core work as background tasks."""

    server_state_changed = Signal(str, object)  # name, ServerStatus
    catalog_changed = Signal(str, object)  # name, ServerCatalog | None
    resource_updated = Signal(str, str)  # server, uri
    log_line = Signal(str, object)  # server, LogEntry
    task_failed = Signal(str)  # a user-facing error from background work

    def __init__(self, host: ServerHost, secrets: SecretStore | None = None) -> None:
        super().__init__()
        self.host = host
        self.secrets = secrets
        self._tasks: set[asyncio.Task[Any]] = set()
        bus = host.bus
        bus.subscribe(ServerStateChanged, lambda e: self.server_state_changed.emit(e.server, e.status))
        bus.subscribe(CatalogChanged, lambda e: self.catalog_changed.emit(e.server, e.catalog))
        bus.subscribe(ResourceUpdated, lambda e: self.resource_updated.emit(e.server, e.uri))
        bus.subscribe(LogLine, lambda e: self.log_line.emit(e.server, e.entry))

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

    def restart_server(self, name: str) -> None:
        self.spawn(self.host.restart(name), f"Restarting {name}")

    def set_server_enabled(self, name: str, enabled: bool) -> None:
        self.spawn(self.host.set_enabled(name, enabled), f"{'Enabling' if enabled else 'Disabling'} {name}")
