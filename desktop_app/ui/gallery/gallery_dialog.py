"""The gallery window: search the registry on the left, a server's details and install on the right.

Drawing only; `GalleryController` fills it. Non-modal, so servers and chats keep running while
the user browses. Typing searches after a short pause; the list says when it is the cached one.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QIcon
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.registry.model import ServerEntry
from desktop_app.ui.asks.card import MUTED
from desktop_app.ui.gallery.install_pane import InstallPane
from desktop_app.ui.style import ERROR_STYLE

SEARCH_PAUSE_MS = 300
LIST_ICON = 32
_INDEX_ROLE = Qt.ItemDataRole.UserRole
CAUTION_STYLE = "color: #b7791f;"


def entry_text(entry: ServerEntry, badge: str | None = None) -> str:
    """Two lines for the list: title and version (plus a badge), then the one-line description."""
    server = entry.server
    status = f" · {entry.official.status}" if entry.official.status != "active" else ""
    extra = f" · {badge}" if badge else ""
    description = " ".join(server.description.split())
    return f"{server.display_name}  {server.version}{status}{extra}\n{description}"


class GalleryDialog(QDialog):
    """Search field, registry line, result list; an `InstallPane` beside them."""

    sig_search = Signal(str)
    """The search text settled (after a pause, or Enter)."""
    sig_more = Signal()
    """The user wants the next page of results."""
    sig_selected = Signal(int)
    """A result was chosen (its index in the list as filled by `add_entries`)."""
    sig_change_registry = Signal()
    """The user wants to point the gallery at another registry (opens Settings)."""
    sig_closed = Signal()
    """The window closed: open consent cards are withdrawn (which declines them)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("galleryDialog")
        self.setWindowTitle("Find servers")
        self.resize(1060, 700)
        self.search = QLineEdit()
        self.search.setObjectName("gallerySearch")
        self.search.setPlaceholderText("Search servers by name")
        self.search.setClearButtonEnabled(True)
        self.registry = QLabel()
        self.registry.setStyleSheet(MUTED)
        self.registry.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.change = QPushButton("Change…")
        self.change.setToolTip("Use another registry (Settings → Server registry)")
        self.status = QLabel()
        self.status.setObjectName("galleryStatus")
        self.status.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("galleryList")
        self.list.setIconSize(QSize(LIST_ICON, LIST_ICON))
        self.list.setWordWrap(False)
        self.list.setUniformItemSizes(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setSpacing(2)
        self.more = QPushButton("More results")
        self.more.setObjectName("galleryMore")
        self.more.hide()
        self.pane = InstallPane()

        registry_row = QHBoxLayout()
        registry_row.addWidget(self.registry, 1)
        registry_row.addWidget(self.change)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.search)
        left_layout.addLayout(registry_row)
        left_layout.addWidget(self.status)
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.more)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.pane)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([400, 660])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(SEARCH_PAUSE_MS)
        self._pause.timeout.connect(lambda: self.sig_search.emit(self.search.text().strip()))
        self.search.textChanged.connect(lambda _t: self._pause.start())
        self.search.returnPressed.connect(self._search_now)
        self.more.clicked.connect(self.sig_more)
        self.change.clicked.connect(self.sig_change_registry)
        self.list.currentItemChanged.connect(self._on_current)

    def _search_now(self) -> None:
        self._pause.stop()
        self.sig_search.emit(self.search.text().strip())

    def _on_current(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None:
            self.sig_selected.emit(int(item.data(_INDEX_ROLE)))

    # -- filling ---------------------------------------------------------------------------

    def set_registry(self, url: str) -> None:
        self.registry.setText(f"Registry: {url}")
        self.registry.setToolTip(url)

    def set_status(self, text: str, *, tone: str = "") -> None:
        """One line above the list: loading, offline (cached), or an error; empty hides it."""
        self.status.setText(text)
        self.status.setStyleSheet({"error": ERROR_STYLE, "caution": CAUTION_STYLE}.get(tone, MUTED))
        self.status.setVisible(bool(text))

    def clear_entries(self) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        self.list.blockSignals(False)
        self.more.hide()

    def add_entries(self, rows: list[tuple[int, ServerEntry, QIcon, str | None]], *, more: bool) -> None:
        """Append results: (index, entry, icon, badge) each."""
        for index, entry, icon, badge in rows:
            item = QListWidgetItem(icon, entry_text(entry, badge))
            item.setData(_INDEX_ROLE, index)
            item.setToolTip(f"{entry.server.name}\n{entry.server.description}")
            self.list.addItem(item)
        self.more.setVisible(more)

    def set_entry_icon(self, index: int, icon: QIcon) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(_INDEX_ROLE) == index:
                item.setIcon(icon)

    def set_entry_badge(self, index: int, entry: ServerEntry, badge: str | None) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(_INDEX_ROLE) == index:
                item.setText(entry_text(entry, badge))

    def select_first(self) -> None:
        if self.list.count() and self.list.currentItem() is None:
            self.list.setCurrentRow(0)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.sig_closed.emit()
        super().closeEvent(event)

    def done(self, result: int) -> None:
        self.sig_closed.emit()
        super().done(result)
