"""The controller of Servers → Add from a domain…: it looks the domain up (`core/discovery`, in the
background, with the cards' HTTP cache) and hands the chosen server to a `CardSession`; the dialog
only draws what it is given.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.discovery.address import DiscoveryError
from desktop_app.core.discovery.cache import DocumentCache
from desktop_app.core.discovery.discover import DomainListing, FoundServer, discover
from desktop_app.core.discovery.origin import find_card_install
from desktop_app.core.network_guard import Resolver, system_resolver
from desktop_app.core.paths import cache_dir
from desktop_app.ui.gallery.card_session import CardSession
from desktop_app.ui.gallery.domain_dialog import DomainDialog
from desktop_app.ui.gallery.frame import LIST_ICON
from desktop_app.ui.gallery.icons import to_icon


class DomainController(QObject):
    """Owns the domain window (one at a time) and its look-ups."""

    def __init__(self, bridge: CoreBridge, window: QWidget) -> None:
        super().__init__(window)
        self.bridge = bridge
        self._window = window
        self.cache = DocumentCache(cache_dir() / "discovery")
        self.dialog: DomainDialog | None = None
        self.session: CardSession | None = None
        self.listing: DomainListing | None = None
        self._looking: asyncio.Task[None] | None = None
        self.resolve: Resolver = system_resolver
        """Answers for host names: the domain's, and a server's address before it is saved."""

    def open_dialog(self, domain: str = "") -> DomainDialog:
        """Show the window (raised if already open); a given `domain` is looked up at once."""
        if self.dialog is None:
            dialog = DomainDialog(self._window)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.session = CardSession(dialog.pane, self.bridge, dialog, self.resolve)
            self.session.sig_installed.connect(lambda _name: self._show_badges())
            dialog.sig_look_up.connect(self.look_up)
            dialog.sig_selected.connect(self._select)
            dialog.sig_closed.connect(self._closed)
            self.dialog = dialog
        else:
            self.dialog.raise_()
            self.dialog.activateWindow()
        self.dialog.show()
        if domain:
            self.dialog.domain.setText(domain)
            self.look_up(domain)
        else:
            self.dialog.domain.setFocus()
        return self.dialog

    def _closed(self) -> None:
        if self.session is not None:
            self.session.withdraw()
        if self._looking is not None:
            self._looking.cancel()
        self.dialog, self.session, self.listing = None, None, None

    def look_up(self, text: str) -> None:
        if self.dialog is None:
            return
        if self._looking is not None and not self._looking.done():
            self._looking.cancel()
        if self.session is not None:
            self.session.withdraw("Another domain was looked up: nothing was installed.")
        self.listing = None
        self.dialog.set_servers([])
        self.dialog.set_status(f"Looking up {text}…" if text else "Type a domain first.")
        if text:
            self._looking = self.bridge.spawn(self._look_up(text), f"Looking up {text}")

    async def _look_up(self, text: str) -> None:
        dialog = self.dialog
        assert dialog is not None
        try:
            listing = await discover(text, cache=self.cache, resolve=self.resolve)
        except DiscoveryError as exc:
            dialog.set_status(str(exc), tone="error")
            return
        self.listing = listing
        domain = listing.domain
        count = len(listing.servers)
        lines = [f"{domain.host} describes {count} server{'' if count == 1 else 's'} ({listing.source})."]
        lines += [f"Left out: {line}" for line in listing.skipped]
        lines += [f"Caution: {warning}" for warning in domain.warnings]
        dialog.set_status("\n".join(lines), tone="caution" if domain.warnings else "")
        dialog.set_servers([(found, self._icon(found), self._badge(found)) for found in listing.servers])

    @staticmethod
    def _icon(found: FoundServer) -> QIcon:
        """A lettered icon: a domain's icon URLs are not fetched (they may point anywhere)."""
        return to_icon(None, found.display_name, LIST_ICON)

    def _badge(self, found: FoundServer) -> str | None:
        if self.listing is None or found.card is None:
            return None
        servers = self.bridge.store.servers.values() if self.bridge.store else []
        installed = find_card_install(servers, self.listing.domain, found.card.name)
        if installed is None:
            return None
        version = installed.origin.get("version")
        return "installed" if version == found.card.version else f"installed {version}"

    def _show_badges(self) -> None:
        if self.dialog is not None and self.listing is not None:
            for index, found in enumerate(self.listing.servers):
                self.dialog.set_badge(index, found, self._badge(found))

    def _select(self, index: int) -> None:
        if self.session is None or self.listing is None or not 0 <= index < len(self.listing.servers):
            return
        found = self.listing.servers[index]
        self.session.show_found(self.listing.domain, found, self._icon(found))
