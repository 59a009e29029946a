"""A big listing's rows, built off the window's thread.

Turning a server's 10,000 resources into the tree's entries (labels and filter text case-folded
once each) takes about 25 ms of Python; on the window's thread that was a pause as the listing
arrived. A worker builds them instead (the interpreter is handed back to the window every
millisecond meanwhile) and hands them over with a queued signal; a newer listing of the same
server makes an older one's rows moot.
"""

from __future__ import annotations

import threading
from typing import Final

from PySide6.QtCore import QObject, Signal

from desktop_app.core.catalog import ServerCatalog
from resources_ui.tree_entries import entries_of

BIG_LISTING: Final = 2_000
"""Listings with more resources and templates than this are built in a worker; smaller ones at once."""


def is_big(catalog: ServerCatalog) -> bool:
    return len(catalog.resources) + len(catalog.templates) > BIG_LISTING


class ListingEntries(QObject):
    """Builds listings' entries in workers; `built` arrives on the window's thread, newest listing only."""

    built = Signal(str, object, object)  # server name, its listing (ServerCatalog), the entries (list[Entry])

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._newest: dict[str, ServerCatalog] = {}
        self._relay.connect(self._deliver)

    _relay = Signal(str, object, object)

    def build(self, server: str, catalog: ServerCatalog) -> None:
        """Start building `catalog`'s entries; an earlier build for `server` still running is dropped."""
        self._newest[server] = catalog
        threading.Thread(target=self._work, args=(server, catalog), name="listing-entries", daemon=True).start()

    def forget(self, server: str) -> None:
        """A build still running for `server` is moot (a smaller listing was shown, or the server left)."""
        self._newest.pop(server, None)

    def _work(self, server: str, catalog: ServerCatalog) -> None:
        self._relay.emit(server, catalog, entries_of(catalog))  # queued: delivered on the window's thread

    def _deliver(self, server: str, catalog: ServerCatalog, entries: object) -> None:
        if self._newest.get(server) is catalog:
            del self._newest[server]
            self.built.emit(server, catalog, entries)
