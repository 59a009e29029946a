"""The filtering proxy over `ResourceTreeModel`: words in any order, prefix matches first.

`QSortFilterProxyModel` calls Python per row for filtering and per comparison for sorting, and
reports a filter change as one row removal per gap: with 10,000 resources a keystroke took
seconds. This proxy ranks in one Python pass (`filter_matching`), announces each change as a
single layout change (persistent indexes follow their URI), and hands the view matches in chunks
(`show_more`, which the browser calls as the user scrolls), so a keystroke costs a few
milliseconds however many resources a server lists. Not Qt's `fetchMore`: a tree view calls
that for every expanded server on each relayout, doubling the rows it then walks in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, overload

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractProxyModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from desktop_app.qt_kit.drag_payload import encode_resources
from desktop_app.qt_kit.qt_compat import no_data
from resources_ui.filter_matching import query_words, ranked_matches
from resources_ui.tree_entries import Entry, EntryKey, EntryKind, refs_of
from resources_ui.tree_model import (
    COLUMNS,
    ENTRY_ROLE,
    RESOURCE_FLAGS,
    ROOT,
    SERVER_FLAGS,
    SERVER_ROLE,
    TEMPLATE_FLAGS,
    URI_COLUMN,
    Index,
    ResourceTreeModel,
    RowLook,
    layout_signal,
)

CHUNK: Final = 50
"""Rows handed to the view at a time as the user scrolls through a server (`show_more`)."""
SCREENFUL: Final = 60
"""Rows first handed to the view, shared by the servers (at least `MIN_FIRST` each).

A tree view lays out every row it was handed, calling `index` and `flags` in Python for each,
whenever the filter changes: ten expanded servers of 500 rows each cost over 100 ms a keystroke.
A screenful is all the user sees before scrolling.
"""
MIN_FIRST: Final = 10
RECENT: Final = 16
"""Queries remembered per server, so erasing what was typed costs no new filter pass."""

_NO_HINT: Final = QAbstractItemModel.LayoutChangeHint.NoLayoutChangeHint
_TEXT_ROLES: Final = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole})
_ROLES: Final = frozenset(
    {
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.TextAlignmentRole,
        Qt.ItemDataRole.ForegroundRole,
        ENTRY_ROLE,
        SERVER_ROLE,
    }
)
"""The roles the source model answers (see `ResourceTreeModel.server_data` and `entry_data`)."""


@dataclass
class _View:
    """One server's matches: `order` ranked for display, `matched` in source order for narrowing."""

    order: Sequence[Entry]
    matched: Sequence[Entry]
    source: Sequence[Entry]
    """The server's entries this was built from (a new listing makes it stale)."""
    shown: int
    _position: dict[EntryKey, int] | None = None

    @property
    def total(self) -> int:
        return len(self.source)

    def reshown(self, first: int) -> _View:
        """The same matches, handed to the view from the first `first` rows again."""
        return _View(self.order, self.matched, self.source, min(first, len(self.order)), self._position)

    @property
    def position(self) -> dict[EntryKey, int]:
        """Row of each match by key; built on first use (most keystrokes never need it)."""
        if self._position is None:
            self._position = {entry.key: row for row, entry in enumerate(self.order)}
        return self._position

    def flags(self, row: int) -> Qt.ItemFlag:
        if row >= self.shown:
            return Qt.ItemFlag.NoItemFlags
        return TEMPLATE_FLAGS if self.order[row].kind is EntryKind.TEMPLATE else RESOURCE_FLAGS


class ResourceFilterProxy(QAbstractProxyModel):
    """Servers stay (with a match count while filtering); their children are filtered and ranked."""

    def __init__(self, source: ResourceTreeModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._words: tuple[str, ...] = ()
        self._query = ""
        self._views: dict[int, _View] = {}
        self._recent: dict[tuple[int, tuple[str, ...]], _View] = {}
        self.setSourceModel(source)
        for server_id in source.server_ids():
            self._views[server_id] = self._build(server_id)
        source.rowsAboutToBeInserted.connect(self._servers_about_to_be_inserted)
        source.rowsInserted.connect(self._servers_inserted)
        source.rowsAboutToBeRemoved.connect(self._servers_about_to_be_removed)
        source.rowsRemoved.connect(self._servers_removed)
        layout_signal(source.layoutChanged).connect(self._source_layout_changed)
        source.dataChanged.connect(self._source_data_changed)
        source.modelAboutToBeReset.connect(self.beginResetModel)
        source.modelReset.connect(self._source_reset)

    @property
    def query(self) -> str:
        return self._query

    def set_query(self, query: str) -> None:
        """Filter by `query`'s words; typing more only searches the previous matches."""
        words = query_words(query)
        narrowing = bool(self._query.strip()) and query.casefold().startswith(self._query.casefold())
        self._query = query
        if words == self._words:
            return
        self._words = words
        self._refilter(self._source.server_ids(), narrowing=narrowing)

    def match_count(self, server_row: int) -> tuple[int, int]:
        """(matches, total) for the server at `server_row`."""
        view = self._views[self._source.server_id_at(server_row)]
        return len(view.order), view.total

    # -- building ---------------------------------------------------------------------------

    def _build(self, server_id: int, previous: _View | None = None) -> _View:
        entries = self._source.entries(server_id)
        if not self._words:
            return _View(entries, entries, entries, min(self._first_rows(), len(entries)))
        key = (server_id, self._words)
        recent = self._recent.pop(key, None)
        if recent is None or recent.source is not entries:
            recent = self._filter(entries, previous if previous is not None and previous.source is entries else None)
        self._recent[key] = recent
        if len(self._recent) > RECENT * max(1, self._source.server_count()):
            del self._recent[next(iter(self._recent))]  # the least recently used
        return recent.reshown(self._first_rows())

    def _first_rows(self) -> int:
        return max(MIN_FIRST, SCREENFUL // max(1, self._source.server_count()))

    def _filter(self, entries: Sequence[Entry], previous: _View | None) -> _View:
        order, matched = ranked_matches(previous.matched if previous is not None else entries, self._words)
        return _View(order, matched, entries, 0)

    def _refilter(self, server_ids: Sequence[int], *, narrowing: bool = False) -> None:
        """Rebuild some servers' children as one layout change, re-pointing persistent indexes."""
        wanted = set(server_ids)
        parents = [QPersistentModelIndex(self.index(self._source.server_row(i), 0)) for i in server_ids]
        layout_signal(self.layoutAboutToBeChanged).emit(parents, _NO_HINT)
        saved: list[tuple[QModelIndex, int, EntryKey]] = []
        for index in self.persistentIndexList():
            server_id = index.internalId()
            view = self._views.get(server_id)
            if server_id in wanted and view is not None and index.row() < len(view.order):
                saved.append((index, server_id, view.order[index.row()].key))
        for server_id in server_ids:
            self._views[server_id] = self._build(server_id, self._views.get(server_id) if narrowing else None)
        moved_to: list[QModelIndex] = []
        for index, server_id, key in saved:
            view = self._views[server_id]
            row = view.position.get(key)
            if row is not None and row < view.shown:
                moved_to.append(self.createIndex(row, index.column(), server_id))
            else:
                moved_to.append(QModelIndex())
        self.changePersistentIndexList([index for index, _, _ in saved], moved_to)
        layout_signal(self.layoutChanged).emit(parents, _NO_HINT)

    # -- source signals ---------------------------------------------------------------------

    def _servers_about_to_be_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            self.beginInsertRows(QModelIndex(), first, last)

    def _servers_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            for row in range(first, last + 1):
                server_id = self._source.server_id_at(row)
                self._views[server_id] = self._build(server_id)
            self.endInsertRows()

    def _servers_about_to_be_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            self.beginRemoveRows(QModelIndex(), first, last)

    def _servers_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            present = set(self._source.server_ids())
            self._views = {i: view for i, view in self._views.items() if i in present}
            self.endRemoveRows()

    def _source_layout_changed(self, parents: list[QPersistentModelIndex], hint: Any = None) -> None:
        rows = [p.row() for p in parents if p.isValid() and not p.parent().isValid()]
        ids = [self._source.server_id_at(r) for r in rows] if parents else self._source.server_ids()
        if ids:
            self._refilter(ids)

    def _source_data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: list[int]) -> None:
        if not top_left.parent().isValid():
            first, last = self.index(top_left.row(), 0), self.index(bottom_right.row(), COLUMNS - 1)
            self.dataChanged.emit(first, last, roles)
            return
        server_id = top_left.internalId()
        if not roles or _TEXT_ROLES.intersection(roles):
            self._refilter([server_id])
            return
        shown = self._views[server_id].shown
        if shown:
            parent = self.index(self._source.server_row(server_id), 0)
            self.dataChanged.emit(self.index(0, 0, parent), self.index(shown - 1, COLUMNS - 1, parent), roles)

    def _source_reset(self) -> None:
        self._views = {i: self._build(i) for i in self._source.server_ids()}
        self.endResetModel()

    # -- mapping ----------------------------------------------------------------------------

    def entry(self, index: Index) -> Entry | None:
        """The entry behind a proxy child index (None for servers and invalid indexes)."""
        if not index.isValid() or index.internalId() == 0:
            return None
        view = self._views.get(index.internalId())
        return view.order[index.row()] if view is not None and index.row() < view.shown else None

    def row_look(self, index: Index) -> RowLook | None:
        """What the row at `index` shows (see `RowLook`); None for an invalid index."""
        server_id = index.internalId()
        if server_id == 0:
            return self._source.server_look(index.row(), self._offers(index.row())) if index.isValid() else None
        entry = self.entry(index)
        return None if entry is None else self._source.entry_look(server_id, entry)

    def _offers(self, server_row: int) -> str | None:
        if not self._words:
            return None
        matches, total = self.match_count(server_row)
        return f"{matches:,} of {total:,} match"

    def mapToSource(self, proxy_index: Index) -> QModelIndex:
        if not proxy_index.isValid():
            return QModelIndex()
        server_id = proxy_index.internalId()
        if server_id == 0:
            return self._source.index(proxy_index.row(), proxy_index.column())
        entry = self.entry(proxy_index)
        row = self._source.row_of(server_id, entry.key) if entry is not None else None
        return QModelIndex() if row is None else self._source.child_index(server_id, row, proxy_index.column())

    def mapFromSource(self, source_index: Index) -> QModelIndex:
        if not source_index.isValid():
            return QModelIndex()
        server_id = source_index.internalId()
        if server_id == 0:
            return self.createIndex(source_index.row(), source_index.column(), 0)
        entry = self._source.entry(source_index)
        view = self._views.get(server_id)
        row = view.position.get(entry.key) if entry is not None and view is not None else None
        if row is None or view is None or row >= view.shown:
            return QModelIndex()
        return self.createIndex(row, source_index.column(), server_id)

    # -- QAbstractItemModel ----------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = ROOT) -> QModelIndex:
        # Called for every row on each relayout: as few Python steps as possible.
        if row < 0 or not 0 <= column < COLUMNS:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row < self._source.server_count() else QModelIndex()
        parent_row = parent.row()
        if parent.internalId() or parent.column() or parent_row >= self._source.server_count():
            return QModelIndex()
        server_id = self._source.server_id_at(parent_row)
        view = self._views.get(server_id)
        return self.createIndex(row, column, server_id) if view is not None and row < view.shown else QModelIndex()

    @overload
    def parent(self) -> QObject | None: ...
    @overload
    def parent(self, child: Index) -> QModelIndex: ...
    def parent(self, child: Index | None = None) -> QObject | QModelIndex | None:
        if child is None:
            return super().parent()
        if not child.isValid() or child.internalId() == 0:
            return QModelIndex()
        return self.createIndex(self._source.server_row(child.internalId()), 0, 0)

    def sibling(self, row: int, column: int, index: Index) -> QModelIndex:
        return self.index(row, column, self.parent(index))

    def rowCount(self, parent: Index = ROOT) -> int:
        if not parent.isValid():
            return self._source.server_count()
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        view = self._views.get(self._source.server_id_at(parent.row()))
        return view.shown if view is not None else 0

    def columnCount(self, parent: Index = ROOT) -> int:
        return COLUMNS

    def hasChildren(self, parent: Index = ROOT) -> bool:
        return self.rowCount(parent) > 0

    def can_show_more(self, parent: Index) -> bool:
        if not parent.isValid() or parent.internalId() != 0 or parent.column() != 0:
            return False
        view = self._views.get(self._source.server_id_at(parent.row()))
        return view is not None and view.shown < len(view.order)

    def show_more(self, parent: Index) -> None:
        """Hand the view the next chunk of this server's matches."""
        if not self.can_show_more(parent):
            return
        view = self._views[self._source.server_id_at(parent.row())]
        more = min(CHUNK, len(view.order) - view.shown)
        self.beginInsertRows(parent, view.shown, view.shown + more - 1)
        view.shown += more
        self.endInsertRows()

    def flags(self, index: Index) -> Qt.ItemFlag:
        # Called for every row on each relayout: as few Python steps as possible.
        server_id = index.internalId()
        if not server_id:
            return SERVER_FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags
        view = self._views.get(server_id)
        return Qt.ItemFlag.NoItemFlags if view is None else view.flags(index.row())

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ROLES or not index.isValid():  # painting asks for roles no row sets
            return no_data()
        server_id = index.internalId()
        if server_id == 0:
            if self._words and index.column() == URI_COLUMN and role == Qt.ItemDataRole.DisplayRole:
                return self._offers(index.row())
            return self._source.server_data(index.row(), index.column(), role)
        entry = self.entry(index)
        return no_data() if entry is None else self._source.entry_data(server_id, entry, index.column(), role)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return self._source.headerData(section, orientation, role)

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        return encode_resources(refs_of(self.entry(index) for index in indexes))

    def mimeTypes(self) -> list[str]:
        return self._source.mimeTypes()

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction
