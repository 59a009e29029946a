"""The resource browser widget: a filter box over the server → resource tree.

It only announces what the user wants (attach, open, fill in a template); it knows nothing of
the chat or the viewer, so any window can place it and wire the signals.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QMenu,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.bridge import CoreBridge
from desktop_app.core.resource_ref import ResourceRef
from resources_ui.filter_proxy import ResourceFilterProxy
from resources_ui.tree_delegate import ResourceRowDelegate
from resources_ui.tree_entries import Entry, refs_of
from resources_ui.tree_model import NAME_COLUMN, SIZE_COLUMN, TYPE_COLUMN, URI_COLUMN, ResourceTreeModel
from resources_ui.tree_sign_in_buttons import TreeSignInButtons

FILTER_DELAY_MS: Final = 40
"""Coalesces a burst of keystrokes into one filter pass; short enough to read as instant."""
PREVIEW_DELAY_MS: Final = 150
"""Arrowing through the tree previews only where the user pauses, not every row passed."""
_FETCH_MARGIN: Final = 50


class _Tree(QTreeView):
    """A tree view where Enter attaches and the copy shortcut copies URIs."""

    enter_pressed = Signal()
    copy_pressed = Signal()
    resized = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.state() != self.State.EditingState:
            self.enter_pressed.emit()
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_pressed.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.resized.emit()


class _FilterEdit(QLineEdit):
    """Down arrow hands focus to the tree, so filtering then picking needs no mouse."""

    down_pressed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Down:
            self.down_pressed.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class ResourceBrowser(QWidget):
    """Everything every server offers, filterable, draggable into the conversation."""

    attach_requested = Signal(list)
    """list[ResourceRef]: the user asked to attach these resources to the conversation."""
    open_requested = Signal(object)
    """ResourceRef: show this resource (selected, double-clicked or "Open")."""
    template_requested = Signal(object)
    """Entry: the user chose a resource template; show its form."""

    def __init__(self, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resourceBrowser")
        self.model = ResourceTreeModel(bridge, self)
        self.proxy = ResourceFilterProxy(self.model, self)
        self._expanded_once: set[str] = set()

        self.filter_edit = _FilterEdit()
        self.filter_edit.setObjectName("resourceFilter")
        self.filter_edit.setPlaceholderText("Filter by name, URI or description…")
        self.filter_edit.setClearButtonEnabled(True)
        self._filter_timer = QTimer(self, singleShot=True, interval=FILTER_DELAY_MS)
        self._filter_timer.timeout.connect(lambda: self.proxy.set_query(self.filter_edit.text()))
        self.filter_edit.textChanged.connect(self._filter_timer.start)
        self.filter_edit.returnPressed.connect(self._apply_filter_now)
        self.filter_edit.down_pressed.connect(self._focus_tree)

        self.view = _Tree()
        self.view.setObjectName("resourceTree")
        self.view.setModel(self.proxy)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.view.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._show_context_menu)
        self.view.enter_pressed.connect(self._on_enter)
        self.view.copy_pressed.connect(self.copy_uris)
        self.view.doubleClicked.connect(self._open_index)
        self.view.verticalScrollBar().valueChanged.connect(self._fetch_near_bottom)
        # One column, two lines a row (name, then URI · type · size): it reads in a narrow dock.
        self.view.setItemDelegate(ResourceRowDelegate(self.proxy, self.view))
        self.view.setHeaderHidden(True)
        for column in (URI_COLUMN, TYPE_COLUMN, SIZE_COLUMN):
            self.view.setColumnHidden(column, True)
        self.view.header().setStretchLastSection(True)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setIconSize(QSize(16, 16))

        self._preview_timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self._preview_current)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._preview_timer.start())
        self.proxy.layoutChanged.connect(self._expand_new_servers)
        self.proxy.rowsInserted.connect(self._servers_inserted)
        # More rows while the tree does not fill its height: with no scrollbar, nothing else would ask.
        self._fill_timer = QTimer(self, singleShot=True, interval=0)
        self._fill_timer.timeout.connect(self._fill_viewport)
        for signal in (self.proxy.layoutChanged, self.proxy.rowsInserted, self.proxy.rowsRemoved):
            signal.connect(self._fill_timer.start)
        for view_signal in (self.view.expanded, self.view.collapsed, self.view.resized):
            view_signal.connect(self._fill_timer.start)
        self._expand_new_servers()
        self.sign_in_buttons = TreeSignInButtons(self.view, self.proxy, self.model, bridge)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.view)

    # -- queries ----------------------------------------------------------------------------

    def selected_entries(self) -> list[Entry]:
        rows = self.view.selectionModel().selectedRows(NAME_COLUMN)
        entries = (self.proxy.entry(index) for index in sorted(rows, key=_tree_order))
        return [entry for entry in entries if entry is not None]

    def selected_refs(self) -> list[ResourceRef]:
        """The selected resources (templates and servers are not attachable)."""
        return refs_of(self.selected_entries())

    def index_of(self, server: str, uri: str) -> QModelIndex:
        """The visible row of a resource or template, or an invalid index when filtered out."""
        for row in range(self.proxy.rowCount()):
            parent = self.proxy.index(row, 0)
            if self.proxy.data(parent) != server:
                continue
            for child in range(self.proxy.rowCount(parent)):
                index = self.proxy.index(child, 0, parent)
                entry = self.proxy.entry(index)
                if entry is not None and entry.uri == uri:
                    return index
        return QModelIndex()

    # -- actions ----------------------------------------------------------------------------

    def attach_selected(self) -> None:
        refs = self.selected_refs()
        if refs:
            self.attach_requested.emit(refs)

    def copy_uris(self) -> None:
        uris = [entry.uri for entry in self.selected_entries()]
        if uris:
            QGuiApplication.clipboard().setText("\n".join(uris))

    def open_entry(self, entry: Entry) -> None:
        if entry.is_template:
            self.template_requested.emit(entry)
        else:
            self.open_requested.emit(entry.ref())

    def context_menu(self) -> QMenu:
        """The menu for the current selection; the caller shows it (`popup`, never a nested loop)."""
        menu = QMenu(self)
        entries = self.selected_entries()
        refs = refs_of(entries)
        attach = menu.addAction("Attach to conversation", self.attach_selected)
        attach.setShortcut(QKeySequence(Qt.Key.Key_Return))
        attach.setEnabled(bool(refs))
        single = entries[0] if len(entries) == 1 else None
        label = "Open"
        if single is not None and single.is_template:
            label = "Fill in template…"
        elif single is not None and single.skill is not None:
            label = "Preview skill"
        opener = menu.addAction(label, lambda: self._open_single(single))
        opener.setEnabled(single is not None)
        copy = menu.addAction("Copy URI" if len(entries) <= 1 else "Copy URIs", self.copy_uris)
        copy.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
        copy.setEnabled(bool(entries))
        return menu

    # -- slots ------------------------------------------------------------------------------

    def _open_single(self, entry: Entry | None) -> None:
        if entry is not None:
            self.open_entry(entry)

    def _apply_filter_now(self) -> None:
        self._filter_timer.stop()
        self.proxy.set_query(self.filter_edit.text())

    def _focus_tree(self) -> None:
        self._apply_filter_now()
        self.view.setFocus()
        if not self.view.currentIndex().isValid():
            first = self._first_entry()
            if first.isValid():
                self.view.setCurrentIndex(first)

    def _first_entry(self) -> QModelIndex:
        for row in range(self.proxy.rowCount()):
            parent = self.proxy.index(row, 0)
            if self.proxy.rowCount(parent):
                return self.proxy.index(0, 0, parent)
        return QModelIndex()

    def _on_enter(self) -> None:
        entries = self.selected_entries()
        if any(not entry.is_template for entry in entries):
            self.attach_selected()
        elif len(entries) == 1:
            self.open_entry(entries[0])
        else:
            current = self.view.currentIndex()
            if current.isValid() and not current.parent().isValid():
                self.view.setExpanded(current, not self.view.isExpanded(current))

    def _open_index(self, index: QModelIndex) -> None:
        self._preview_timer.stop()
        entry = self.proxy.entry(index)
        if entry is not None:
            self.open_entry(entry)

    def _preview_current(self) -> None:
        if len(self.view.selectionModel().selectedRows()) == 1:
            self._open_index(self.view.currentIndex())

    def _show_context_menu(self, position: QPoint) -> None:
        index = self.view.indexAt(position)
        if index.isValid() and not self.view.selectionModel().isRowSelected(index.row(), index.parent()):
            self.view.setCurrentIndex(index)
        if self.selected_entries():
            self.context_menu().popup(self.view.viewport().mapToGlobal(position))

    def _servers_inserted(self, parent: QModelIndex, *_: int) -> None:
        if not parent.isValid():  # more matches of a server scrolled in: nothing to expand
            self._expand_new_servers()

    def _expand_new_servers(self, *_: object) -> None:
        """Open each server the first time it lists something; after that the user decides."""
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            name = self.proxy.data(index)
            if name not in self._expanded_once and self.proxy.rowCount(index) > 0:
                self._expanded_once.add(name)
                self.view.expand(index)

    def _fetch_near_bottom(self) -> None:
        """Load more matches of the server being scrolled through, not only of the last server."""
        viewport = self.view.viewport()
        index = self.view.indexAt(QPoint(4, viewport.height() - 2))
        parent = index.parent()
        near_end = index.row() >= self.proxy.rowCount(parent) - _FETCH_MARGIN
        if index.isValid() and parent.isValid() and near_end and self.proxy.can_show_more(parent):
            self.proxy.show_more(parent)

    def _fill_viewport(self) -> None:
        """While the rows end above the tree's bottom edge, hand it the next chunk of the first open
        server with more matches (each chunk inserted schedules this again)."""
        viewport = self.view.viewport()
        if not self.view.isVisible() or self.view.indexAt(QPoint(4, viewport.height() - 2)).isValid():
            return
        for row in range(self.proxy.rowCount()):
            server = self.proxy.index(row, 0)
            if self.view.isExpanded(server) and self.proxy.can_show_more(server):
                self.proxy.show_more(server)
                return


def _tree_order(index: QModelIndex | QPersistentModelIndex) -> tuple[int, int]:
    parent = index.parent()
    return (parent.row(), index.row()) if parent.isValid() else (index.row(), -1)
