"""The gallery's controller: it reads the registry (and its cache), fetches icons, opens bundles,
finds updates for installed servers and holds the domain window's controller (`domains`); the
dialogs only draw what it gives them. The organisation's policy is followed here too: a pinned
registry is the only one read (the registry line says so and "Change…" is greyed), and a bundle is
not even opened while bundles are switched off.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.network_guard import Resolver, system_resolver
from desktop_app.core.paths import cache_dir
from desktop_app.core.registry.bundle import bundle_icon, open_bundle_file
from desktop_app.core.registry.cache import RegistryCache
from desktop_app.core.registry.client import RegistryClient, RegistryError, ServerPage, browse
from desktop_app.core.registry.manifest import BundleError
from desktop_app.core.registry.model import ServerEntry
from desktop_app.core.registry.updates import find_installed, find_updates, installed_from
from desktop_app.ui.gallery.bundle_dialog import BundleDialog
from desktop_app.ui.gallery.domain_controller import DomainController
from desktop_app.ui.gallery.frame import LIST_ICON
from desktop_app.ui.gallery.gallery_dialog import GalleryDialog
from desktop_app.ui.gallery.icons import MAX_ICON_BYTES, icon_image, to_icon
from desktop_app.ui.gallery.install_session import InstallSession
from desktop_app.ui.gallery.unreachable_view import ServerMenus

log = logging.getLogger(__name__)
ICON_TYPES: Final = (None, "image/png", "image/jpeg", "image/jpg", "image/svg+xml")


def icon_url_allowed(url: str) -> bool:
    """HTTPS icons only (as the schema says), plus plain HTTP from this machine (a local registry)."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        return True
    if parts.scheme != "http" or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False


class GalleryController(QObject):
    """Owns the gallery window and bundle windows; talks to the registry and the bridge."""

    sig_updates = Signal(object)
    """Installed servers with a newer registry version: dict of entry name -> version."""

    def __init__(
        self,
        bridge: CoreBridge,
        registry_url: Callable[[], str],
        open_settings: Callable[[], object],
        window: QWidget,
        menus: ServerMenus,
    ) -> None:
        """`menus` are the window's ways to add a server, offered when the registry cannot be read."""
        super().__init__(window)
        self._menus = menus
        self.bridge = bridge
        self.managed = bridge.host.managed
        self._chosen_registry = registry_url
        self._open_settings = open_settings
        self._window = window
        self.cache = RegistryCache(cache_dir() / "registry")
        self.dialog: GalleryDialog | None = None
        self.session: InstallSession | None = None
        self._client: RegistryClient | None = None
        self._entries: list[ServerEntry] = []
        self._icons: dict[str, QIcon] = {}
        self._search = ""
        self._cursor: str | None = None
        self._listing: asyncio.Task[None] | None = None
        self._updates: dict[str, str] = {}
        self.bundle_dialogs: list[BundleDialog] = []
        self.resolve: Resolver = system_resolver
        """Answers for host names: a registry remote's address is checked with it before it is saved."""
        self.domains = DomainController(bridge, window)
        """Servers → Add from a domain…: a domain's Server Cards."""

    # -- the gallery -----------------------------------------------------------------------

    def open_gallery(self) -> GalleryDialog:
        """Show the gallery (one window, raised if already open) with the registry's first page."""
        if self.dialog is None:
            dialog = GalleryDialog(self._window)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.session = InstallSession(dialog.pane, self.bridge, dialog, self.resolve)
            self.session.sig_installed.connect(self._installed)
            dialog.sig_search.connect(self.search)
            dialog.sig_more.connect(self._more)
            dialog.sig_selected.connect(self._select)
            dialog.sig_change_registry.connect(self._open_settings)
            dialog.sig_closed.connect(self._closed)
            dialog.unreachable.offer(self._menus)
            if (fixed := self.managed.fixed("registry")) is not None:
                dialog.change.setEnabled(False)
                dialog.change.setToolTip(fixed[:1].upper() + fixed[1:])
            self.dialog = dialog
            self.search("")
        elif self.dialog.isVisible():
            self.dialog.raise_()
            self.dialog.activateWindow()
        self.dialog.show()
        return self.dialog

    def settings_changed(self) -> None:
        """The registry URL may have changed: an open gallery starts over on the new one."""
        if self.dialog is not None and self._client is not None and self._client.base_url != self._url():
            self.search(self.dialog.search.text().strip())

    def _closed(self) -> None:
        if self.session is not None:
            self.session.withdraw()
        if self._listing is not None:
            self._listing.cancel()
        self.dialog = None
        self.session = None

    def _registry_url(self) -> str:
        """The registry in Settings, unless the organisation's policy pins another."""
        return self.managed.registry_url(self._chosen_registry())

    def _url(self) -> str:
        try:
            return RegistryClient(self._registry_url()).base_url
        except RegistryError:
            return self._registry_url()

    def search(self, text: str) -> None:
        if self.dialog is None:
            return
        if self._listing is not None and not self._listing.done():
            self._listing.cancel()
        self._search, self._cursor = text, None
        self._entries = []
        try:
            self._client = RegistryClient(self._registry_url())
        except RegistryError as exc:
            self.dialog.set_registry(self._registry_url())
            self.dialog.show_unreachable(self._registry_url(), str(exc))
            return
        self.dialog.set_registry(self._client.base_url)
        self.dialog.searching("Searching…" if text else "Loading the registry…")
        self._list(None)

    def _more(self) -> None:
        if self._cursor is not None:
            self._list(self._cursor)

    def _list(self, cursor: str | None) -> None:
        if self._listing is not None and not self._listing.done():
            self._listing.cancel()
        self._listing = self.bridge.spawn(self._fetch(cursor), "Reading the registry")

    async def _fetch(self, cursor: str | None) -> None:
        client, dialog = self._client, self.dialog
        assert client is not None and dialog is not None
        try:
            page = await browse(client, self.cache, search=self._search, cursor=cursor)
        except RegistryError as exc:
            if cursor is None:
                dialog.show_unreachable(client.base_url, str(exc))
            else:  # the first pages stay listed; More tries again
                dialog.set_status(f"No more results: {exc}.", tone="error")
            return
        self._show_page(page)
        await self._fetch_icons(range(len(self._entries) - len(page.entries), len(self._entries)))

    def _show_page(self, page: ServerPage) -> None:
        dialog = self.dialog
        assert dialog is not None
        start = len(self._entries)
        self._entries.extend(page.entries)
        self._cursor = page.next_cursor
        rows = [(start + i, e, self._icon_for(e), self._badge(e)) for i, e in enumerate(page.entries)]
        dialog.add_entries(rows, more=page.next_cursor is not None)
        if page.cached_at is not None:
            when = page.cached_at.astimezone().strftime("%Y-%m-%d %H:%M")
            dialog.set_offline(f"Offline: {page.offline_reason}. Showing the list saved on {when}.")
        elif page.skipped:
            count = len(page.skipped)
            dialog.set_status(
                f"{count} server{'' if count == 1 else 's'} not shown: malformed registry entr"
                f"{'y' if count == 1 else 'ies'} (hover for details)."
            )
            dialog.status.setToolTip("\n".join(page.skipped))
        elif not self._entries:
            dialog.set_status(
                f"No servers match “{self._search}”." if self._search else "The registry lists no servers."
            )
        else:
            dialog.set_status("")
        dialog.select_first()

    def _badge(self, entry: ServerEntry) -> str | None:
        servers = self.bridge.store.servers.values() if self.bridge.store else []
        assert self._client is not None
        installed = find_installed(servers, self._client.base_url, entry.server.name)
        if installed is None:
            return None
        version = installed.origin.get("version")
        return "installed" if version == entry.server.version else f"installed {version}, update available"

    def _icon_for(self, entry: ServerEntry) -> QIcon:
        url = self._icon_url(entry)
        return (
            self._icons.get(url, to_icon(None, entry.server.display_name, LIST_ICON))
            if url
            else to_icon(None, entry.server.display_name, LIST_ICON)
        )

    @staticmethod
    def _icon_url(entry: ServerEntry) -> str | None:
        for icon in entry.server.icons:
            if icon.mime_type in ICON_TYPES and icon_url_allowed(icon.src):
                return icon.src
        return None

    async def _fetch_icons(self, indexes: range) -> None:
        client = self._client
        assert client is not None
        for index in indexes:
            entry = self._entries[index]
            url = self._icon_url(entry)
            if url is None:
                continue
            if url not in self._icons:
                try:
                    data = await client.download(url, limit=MAX_ICON_BYTES)
                except RegistryError as exc:
                    log.info("no icon for %s: %s", entry.server.name, exc)
                    data = b""
                self._icons[url] = to_icon(icon_image(data, 96), entry.server.display_name, 96)
            if self.dialog is not None:
                self.dialog.set_entry_icon(index, self._icons[url])
                if self.dialog.list.currentRow() == index:
                    self.dialog.pane.details.set_icon(self._icons[url])

    def _installed(self, _name: str) -> None:
        """Badges follow installs: the list says which servers are installed now."""
        if self.dialog is not None:
            for index, entry in enumerate(self._entries):
                self.dialog.set_entry_badge(index, entry, self._badge(entry))
        self.check_updates()

    def _select(self, index: int) -> None:
        if self.session is None or self._client is None or not 0 <= index < len(self._entries):
            return
        entry = self._entries[index]
        servers = self.bridge.store.servers.values() if self.bridge.store else []
        installed = find_installed(servers, self._client.base_url, entry.server.name)
        kind = installed.origin.get("package") if installed else None
        self.session.show_entry(self._client, entry, self._icon_for(entry), kind)

    # -- updates ---------------------------------------------------------------------------

    def check_updates(self) -> None:
        """Ask each registry an installed server came from for its latest version (in the background)."""
        self.bridge.spawn(self._check_updates(), "Checking for server updates")

    async def _check_updates(self) -> None:
        servers = list(self.bridge.store.servers.values()) if self.bridge.store else []
        # Only the registry the policy pins is asked (an update from another would be refused anyway).
        servers = [c for c in servers if self.managed.registry_refusal(c.origin.get("registry", "")) is None]
        found = await find_updates(servers, RegistryClient)
        self._updates = {name: entry.server.version for name, entry in found.items()}
        self.sig_updates.emit(dict(self._updates))

    def open_update(self, name: str) -> None:
        """Show the installed server's latest registry entry in the gallery, ready to update."""
        config = self.bridge.store.servers.get(name) if self.bridge.store else None
        found = installed_from(config) if config is not None else None
        if found is None:
            return
        self.open_gallery()
        self.bridge.spawn(self._show_update(found.registry, found.name, found.package), f"Updating {name}")

    async def _show_update(self, registry: str, name: str, package: str) -> None:
        client = RegistryClient(registry)
        try:
            entry = await client.get(name)
        except RegistryError as exc:
            if self.dialog is not None:
                self.dialog.pane.clear(f"Cannot show the update: {exc}", error=True)
            return
        if self.session is not None and self.dialog is not None:
            self.dialog.list.clearSelection()
            self.session.show_entry(client, entry, self._icon_for(entry), package)

    # -- bundles ---------------------------------------------------------------------------

    def open_bundle(self, path: Path) -> BundleDialog:
        """A window for one `.mcpb` file: read and checked off the event loop, then its form."""
        dialog = BundleDialog(f"Install {path.name}", self._window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        session = InstallSession(dialog.pane, self.bridge, dialog)
        session.sig_installed.connect(dialog.installed)
        dialog.sig_closed.connect(session.withdraw)
        dialog.destroyed.connect(
            lambda _o=None: self.bundle_dialogs.remove(dialog) if dialog in self.bundle_dialogs else None
        )
        self.bundle_dialogs.append(dialog)
        dialog.show()
        if (refusal := self.managed.feature_refusal("bundles")) is not None:
            dialog.pane.clear(f"{path.name} cannot be installed: {refusal}.", error=True)
            return dialog
        self.bridge.spawn(self._read_bundle(path, dialog, session), f"Reading {path.name}")
        return dialog

    async def _read_bundle(self, path: Path, dialog: BundleDialog, session: InstallSession) -> None:
        try:
            bundle = await asyncio.to_thread(open_bundle_file, path)
        except BundleError as exc:
            dialog.pane.clear(f"{path.name} cannot be installed: {exc}", error=True)
            return
        icon = to_icon(icon_image(bundle_icon(bundle) or b"", 96), bundle.manifest.title, 96)
        session.show_bundle(bundle, icon, path.name)
