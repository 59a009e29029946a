"""The filtering proxy over `ResourceTreeModel`: words in any order, prefix matches first.

`QSortFilterProxyModel` calls Python per row for filtering and per comparison for sorting, and
reports a filter change as one row removal per gap: with 10,000 resources a keystroke took
seconds. This proxy ranks in one Python pass, announces each change as a single layout change
(persistent indexes follow their URI), and hands the view matches in chunks through
`fetchMore`, so a keystroke costs a few milliseconds however many resources a server lists.
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

from resources_ui.drag_payload import encode_resources
from resources_ui.qt_compat import no_data
from resources_ui.tree_model import (
    COLUMNS,
    RESOURCE_FLAGS,
    ROOT,
    SERVER_FLAGS,
    TEMPLATE_FLAGS,
    URI_COLUMN,
    Entry,
    EntryKey,
    Index,
    ResourceTreeModel,
    layout_signal,
    refs_of,
)

CHUNK: Final = 500
"""Rows handed to the view at a time; more arrive through `fetchMore` as the user scrolls."""

_NO_HINT: Final = QAbstractItemModel.LayoutChangeHint.NoLayoutChangeHint
_TEXT_ROLES: Final = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole})


def query_words(query: str) -> tuple[str, ...]:
    return tuple(query.casefold().split())


def _at_word_start(text: str, word: str, start: int) -> bool:
    position = start
    while position >= 0:
        if position == 0 or not text[position - 1].isalnum():
            return True
        position = text.find(word, position + 1)
    return False


def match_rank(entry: Entry, words: Sequence[str]) -> int | None:
    """How well `entry` matches every word (lower is better), or None if one word is missing.

    Per word: 0 when the label starts with it, 1 when some word of the label, name, URI or
    description starts with it, 2 when it only occurs inside a word.
    """
    rank = 0
    for word in words:
        if entry.folded_label.startswith(word):
            continue
        position = entry.folded_text.find(word)
        if position < 0:
            return None
        rank += 1 if _at_word_start(entry.folded_text, word, position) else 2
    return rank


@dataclass
class _View:
    """One server's matches: `order` ranked for display, `matched` in source order for narrowing."""

    order: list[Entry]
    matched: Sequence[Entry]
    position: dict[EntryKey, int]
    total: int
    shown: int


class ResourceFilterProxy(QAbstractProxyModel):
    """Servers stay (with a match count while filtering); their children are filtered and ranked."""

    def __init__(self, source: ResourceTreeModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._words: tuple[str, ...] = ()
        self._query = ""
        self._views: dict[int, _View] = {}
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
            order = list(entries)
            matched: Sequence[Entry] = entries
        else:
            pool = previous.matched if previous is not None else entries
            # Plain int lists and a stable index sort: no per-row tuples for the collector to chase.
            ranks: list[int] = []
            found: list[Entry] = []
            for entry in pool:
                rank = match_rank(entry, self._words)
                if rank is not None:
                    ranks.append(rank)
                    found.append(entry)
            matched = found
            order = [found[i] for i in sorted(range(len(found)), key=ranks.__getitem__)]
        position = {entry.key: row for row, entry in enumerate(order)}
        return _View(order, matched, position, len(entries), min(CHUNK, len(order)))

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
        if not 0 <= column < COLUMNS or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row < self._source.server_count() else QModelIndex()
        if parent.internalId() != 0 or parent.column() != 0 or parent.row() >= self._source.server_count():
            return QModelIndex()
        server_id = self._source.server_id_at(parent.row())
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

    def canFetchMore(self, parent: Index) -> bool:
        if not parent.isValid() or parent.internalId() != 0 or parent.column() != 0:
            return False
        view = self._views.get(self._source.server_id_at(parent.row()))
        return view is not None and view.shown < len(view.order)

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        view = self._views[self._source.server_id_at(parent.row())]
        more = min(CHUNK, len(view.order) - view.shown)
        self.beginInsertRows(parent, view.shown, view.shown + more - 1)
        view.shown += more
        self.endInsertRows()

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.internalId() == 0:
            return SERVER_FLAGS
        entry = self.entry(index)
        if entry is None:
            return Qt.ItemFlag.NoItemFlags
        return TEMPLATE_FLAGS if entry.is_template else RESOURCE_FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return no_data()
        server_id = index.internalId()
        if server_id == 0:
            if self._words and index.column() == URI_COLUMN and role == Qt.ItemDataRole.DisplayRole:
                matches, total = self.match_count(index.row())
                return f"{matches:,} of {total:,} match"
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
