"""The source model of the resource browser: server → resources, templates and skills.

Every configured server is a top-level row carrying its live status; its children are the
entries it last listed (`server_rows`, `tree_entries`; a skill is one row, its `SKILL.md`). A catalog change
replaces a server's children with a single layout change that re-points persistent indexes by
URI, so views keep selection and expansion; a server that goes down keeps its last-known
children, greyed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NamedTuple, overload

from PySide6.QtCore import (
    QAbstractItemModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    SignalInstance,
)
from PySide6.QtGui import QFont, QGuiApplication, QIcon, QPalette

from desktop_app.bridge import CoreBridge
from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.qt_kit.drag_payload import RESOURCES_MIME, URI_LIST_MIME, encode_resources
from desktop_app.qt_kit.qt_compat import no_data
from desktop_app.qt_kit.server_icon_cache import RowIcons
from desktop_app.qt_kit.status_icons import state_icon
from resources_ui.listing_entries import ListingEntries, is_big
from resources_ui.server_rows import ServerRows
from resources_ui.tree_entries import Entry, EntryKey, entries_of, entry_tooltip, refs_of, size_text, type_text

Index = QModelIndex | QPersistentModelIndex

NAME_COLUMN, URI_COLUMN, TYPE_COLUMN, SIZE_COLUMN = range(4)
COLUMNS: Final = 4
HEADERS: Final = ("Name", "URI", "Type", "Size")

ENTRY_ROLE: Final = Qt.ItemDataRole.UserRole + 1
"""The `Entry` behind a child row (None on server rows)."""
SERVER_ROLE: Final = Qt.ItemDataRole.UserRole + 2
"""The server name, on server rows and their children."""

SERVER_FLAGS: Final = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
RESOURCE_FLAGS: Final = (
    Qt.ItemFlag.ItemIsEnabled
    | Qt.ItemFlag.ItemIsSelectable
    | Qt.ItemFlag.ItemIsDragEnabled
    | Qt.ItemFlag.ItemNeverHasChildren
)
TEMPLATE_FLAGS: Final = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
_NO_FLAGS: Final = Qt.ItemFlag.NoItemFlags
_RIGHT: Final = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LAYOUT_SIGNATURE: Final = "QList<QPersistentModelIndex>,QAbstractItemModel::LayoutChangeHint"
ROOT: Final = QModelIndex()
"""The invalid index naming the root; a shared default argument (indexes are values, never mutated)."""
_NO_HINT: Final = QAbstractItemModel.LayoutChangeHint.NoLayoutChangeHint


class RowLook(NamedTuple):
    """What one row of the tree shows, asked for in one call: painting a row through `data()`
    costs a call into Python per role and column, and the tree repaints on every keystroke."""

    name: str
    detail: str
    """The quieter second line: URI · type · size, or what a server offers."""
    icon: QIcon
    state: ServerState | None
    """A server row's state (drawn as a badge); None on resources and templates."""
    live: bool
    """False when the server is not connected (its last-known rows are greyed)."""


class ResourceTreeModel(QAbstractItemModel):
    """Servers and what they offer; fed by the bridge (or directly, through the `set_*` methods)."""

    def __init__(self, bridge: CoreBridge | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._servers: list[ServerRows] = []
        self._by_id: dict[int, ServerRows] = {}
        self._next_id = 1
        self._bold = QFont()
        self._bold.setBold(True)
        self._listings = ListingEntries(self)
        self._listings.built.connect(self.set_catalog)
        if bridge is not None:
            self._bind(bridge)

    def _bind(self, bridge: CoreBridge) -> None:
        host = bridge.host

        def on_state(name: str, status: ServerStatus) -> None:
            if name in host.connections:
                self.set_status(name, status)
            else:
                self.remove_server(name)

        def on_catalog(name: str, catalog: ServerCatalog | None) -> None:
            if catalog is None and name not in host.connections:
                self.remove_server(name)
            elif catalog is not None and is_big(catalog):
                self._listings.build(name, catalog)  # its rows come back through `set_catalog`
            else:
                self.set_catalog(name, catalog)

        for name, connection in host.connections.items():
            self.set_status(name, connection.status)
            if connection.catalog is not None:
                on_catalog(name, connection.catalog)
        bridge.server_state_changed.connect(on_state)
        bridge.catalog_changed.connect(on_catalog)
        bridge.server_removed.connect(self.remove_server)

    # -- feeding ---------------------------------------------------------------------------

    def set_status(self, name: str, status: ServerStatus) -> None:
        server = self._server_named(name) or self._add_server(name, status)
        was_live = server.live
        server.status = status
        row = self._servers.index(server)
        self.dataChanged.emit(self.index(row, 0), self.index(row, COLUMNS - 1))
        if was_live != server.live and server.entries:
            parent = self.index(row, 0)
            self.dataChanged.emit(
                self.index(0, 0, parent),
                self.index(len(server.entries) - 1, COLUMNS - 1, parent),
                [Qt.ItemDataRole.ForegroundRole],
            )

    def set_catalog(self, name: str, catalog: ServerCatalog | None, entries: list[Entry] | None = None) -> None:
        """Show a server's new listing; None keeps the last one, marked as no longer live. `entries`:
        the listing's rows when already built (`listing_entries`)."""
        if entries is None:
            self._listings.forget(name)  # a big listing built meanwhile is older than this one
        server = self._server_named(name) or self._add_server(name, ServerStatus(ServerState.STARTING))
        row = self._servers.index(server)
        if catalog is None:
            server.listed = False
        else:
            server.listed = True
            server.icons = RowIcons(catalog)
            listing = (catalog.resources, catalog.templates, catalog.skills)
            if any(new is not old for new, old in zip(listing, server.listing, strict=True)):
                server.listing = listing
                entries = entries_of(catalog) if entries is None else entries
                if entries != server.entries:
                    self._replace_entries(server, entries)
        self.dataChanged.emit(self.index(row, 0), self.index(row, COLUMNS - 1))

    def remove_server(self, name: str) -> None:
        self._listings.forget(name)
        server = self._server_named(name)
        if server is None:
            return
        row = self._servers.index(server)
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._servers[row]
        del self._by_id[server.id]
        self.endRemoveRows()

    def _add_server(self, name: str, status: ServerStatus) -> ServerRows:
        server = ServerRows(self._next_id, name, status)
        self._next_id += 1
        row = len(self._servers)
        self.beginInsertRows(QModelIndex(), row, row)
        self._servers.append(server)
        self._by_id[server.id] = server
        self.endInsertRows()
        return server

    def _replace_entries(self, server: ServerRows, entries: list[Entry]) -> None:
        """Swap the children in one layout change; persistent indexes follow their URI or die."""
        parent = QPersistentModelIndex(self.index(self._servers.index(server), 0))
        layout_signal(self.layoutAboutToBeChanged).emit([parent], _NO_HINT)
        old = server.set_entries(entries)
        moved_from: list[QModelIndex] = []
        moved_to: list[QModelIndex] = []
        for index in self.persistentIndexList():
            if index.internalId() != server.id:
                continue
            new_row = server.rows.get(old[index.row()].key) if index.row() < len(old) else None
            moved_from.append(index)
            moved_to.append(QModelIndex() if new_row is None else self.createIndex(new_row, index.column(), server.id))
        self.changePersistentIndexList(moved_from, moved_to)
        layout_signal(self.layoutChanged).emit([parent], _NO_HINT)

    # -- lookups used by the filter proxy and the browser -----------------------------------

    def _server_named(self, name: str) -> ServerRows | None:
        return next((s for s in self._servers if s.name == name), None)

    def server_count(self) -> int:
        return len(self._servers)

    def server_id_at(self, row: int) -> int:
        return self._servers[row].id

    def server_row(self, server_id: int) -> int:
        return self._servers.index(self._by_id[server_id])

    def server_ids(self) -> list[int]:
        return [server.id for server in self._servers]

    def server_name(self, server_id: int) -> str:
        return self._by_id[server_id].name

    def server_status(self, name: str) -> ServerStatus | None:
        server = self._server_named(name)
        return server.status if server is not None else None

    def entries(self, server_id: int) -> Sequence[Entry]:
        server = self._by_id.get(server_id)
        return server.entries if server is not None else ()

    def row_of(self, server_id: int, key: EntryKey) -> int | None:
        server = self._by_id.get(server_id)
        return server.rows.get(key) if server is not None else None

    def child_index(self, server_id: int, row: int, column: int) -> QModelIndex:
        return self.createIndex(row, column, server_id)

    def entry(self, index: Index) -> Entry | None:
        if not index.isValid() or index.internalId() == 0:
            return None
        entries = self.entries(index.internalId())
        return entries[index.row()] if index.row() < len(entries) else None

    def server_look(self, row: int, offers: str | None = None) -> RowLook:
        """A server row; `offers` replaces its counts (the filter's "n of m match")."""
        server = self._servers[row]
        state = server.status.state
        icon = server.icons.server() or state_icon(state)
        return RowLook(server.name, offers or server.counts(), icon, state, server.live)

    def entry_look(self, server_id: int, entry: Entry) -> RowLook:
        detail = " · ".join(part for part in (entry.uri, type_text(entry), size_text(entry)) if part)
        server = self._by_id[server_id]
        return RowLook(entry.label, detail, server.entry_icon(entry), None, server.live)

    def row_look(self, index: Index) -> RowLook | None:
        if not index.isValid():
            return None
        if index.internalId() == 0:
            return self.server_look(index.row())
        entry = self.entry(index)
        return None if entry is None else self.entry_look(index.internalId(), entry)

    def server_data(self, row: int, column: int, role: int) -> Any:
        server = self._servers[row]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == NAME_COLUMN:
                return server.name
            if column == URI_COLUMN:
                return server.counts()
            if column == TYPE_COLUMN:
                return server.status.state.value
            return no_data()
        if role == Qt.ItemDataRole.DecorationRole and column == NAME_COLUMN:
            return server.icons.server() or state_icon(server.status.state)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{server.name}: {server.status.summary}"
        if role == Qt.ItemDataRole.FontRole and column == NAME_COLUMN:
            return self._bold
        if role == Qt.ItemDataRole.ForegroundRole and not server.live:
            return _disabled_text()
        if role == SERVER_ROLE:
            return server.name
        return no_data()

    def entry_data(self, server_id: int, entry: Entry, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == NAME_COLUMN:
                return entry.label
            if column == URI_COLUMN:
                return entry.uri
            if column == TYPE_COLUMN:
                return type_text(entry)
            return size_text(entry)
        if role == Qt.ItemDataRole.DecorationRole and column == NAME_COLUMN:
            return self._by_id[server_id].entry_icon(entry)
        if role == Qt.ItemDataRole.ToolTipRole:
            return entry_tooltip(entry)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == SIZE_COLUMN:
            return _RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and not self._by_id[server_id].live:
            return _disabled_text()
        if role == ENTRY_ROLE:
            return entry
        if role == SERVER_ROLE:
            return entry.server
        return no_data()

    # -- QAbstractItemModel ----------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = ROOT) -> QModelIndex:
        if not 0 <= column < COLUMNS or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row < len(self._servers) else QModelIndex()
        if parent.internalId() != 0 or parent.column() != 0 or parent.row() >= len(self._servers):
            return QModelIndex()
        server = self._servers[parent.row()]
        return self.createIndex(row, column, server.id) if row < len(server.entries) else QModelIndex()

    @overload
    def parent(self) -> QObject | None: ...
    @overload
    def parent(self, child: Index) -> QModelIndex: ...
    def parent(self, child: Index | None = None) -> QObject | QModelIndex | None:
        if child is None:
            return super().parent()
        if not child.isValid() or child.internalId() == 0:
            return QModelIndex()
        return self.createIndex(self.server_row(child.internalId()), 0, 0)

    def rowCount(self, parent: Index = ROOT) -> int:
        if not parent.isValid():
            return len(self._servers)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        return len(self._servers[parent.row()].entries)

    def columnCount(self, parent: Index = ROOT) -> int:
        return COLUMNS

    def hasChildren(self, parent: Index = ROOT) -> bool:
        return self.rowCount(parent) > 0

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return _NO_FLAGS
        entry = self.entry(index)
        if entry is None:
            return SERVER_FLAGS
        return TEMPLATE_FLAGS if entry.is_template else RESOURCE_FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return no_data()
        if index.internalId() == 0:
            return self.server_data(index.row(), index.column(), role)
        entry = self.entry(index)
        return no_data() if entry is None else self.entry_data(index.internalId(), entry, index.column(), role)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and section < COLUMNS:
            return HEADERS[section]
        return no_data()

    def mimeTypes(self) -> list[str]:
        return [RESOURCES_MIME, URI_LIST_MIME, "text/plain"]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        return encode_resources(refs_of(self.entry(index) for index in indexes))

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction


def layout_signal(signal: SignalInstance) -> SignalInstance:
    """The overload of a layout signal that carries the changed parents (PySide also exposes none-arg ones)."""
    overload_: SignalInstance = signal[_LAYOUT_SIGNATURE]  # type: ignore[index]
    return overload_


def _disabled_text() -> Any:
    return QGuiApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
