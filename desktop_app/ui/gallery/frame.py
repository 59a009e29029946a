"""The frame the gallery and the domain window share: rows on top, one status line, the servers
on the left and an `InstallPane` with the chosen one's details on the right. Also the close every
install window shares (the bundle window too): closing withdraws an open consent, which declines
it. Drawing only; the controllers fill it.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QIcon
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.theme import coloured, muted
from desktop_app.ui.gallery.install_pane import InstallPane

LIST_ICON = 32
_INDEX_ROLE = Qt.ItemDataRole.UserRole


class ClosingDialog(QDialog):
    """A non-modal install window: however it closes, `sig_closed` tells its session to withdraw."""

    sig_closed = Signal()
    """The window closed: an open consent card is withdrawn (which declines it)."""

    def closeEvent(self, event: QCloseEvent) -> None:
        self.sig_closed.emit()
        super().closeEvent(event)

    def done(self, result: int) -> None:
        self.sig_closed.emit()
        super().done(result)


class ListDetailsDialog(ClosingDialog):
    """`top` takes the window's own rows; `column` holds the list (more may go under it); `pages`
    shows the list and details, or another page the window adds in their place."""

    sig_selected = Signal(int)
    """A server was chosen (the index it was added with)."""

    def __init__(self, name: str, title: str, size: QSize, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}Dialog")
        self.setWindowTitle(title)
        free = self.screen().availableGeometry()  # on a small screen, room for the title bar and borders
        self.resize(min(size.width(), free.width() - 40), min(size.height(), free.height() - 60))
        self.top = QVBoxLayout()
        self.status = QLabel()
        self.status.setObjectName(f"{name}Status")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        muted(self.status)
        self.status.hide()
        self.list = QListWidget()
        self.list.setObjectName(f"{name}List")
        self.list.setIconSize(QSize(LIST_ICON, LIST_ICON))
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(2)
        self.pane = InstallPane()

        left = QWidget()
        self.column = QVBoxLayout(left)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.column.addWidget(self.list, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.pane)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([size.width() * 2 // 5, size.width() * 3 // 5])
        self.splitter.setChildrenCollapsible(False)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.splitter)
        layout = QVBoxLayout(self)
        layout.addLayout(self.top)
        self.status_row = QHBoxLayout()
        """The status line, and room beside it for a button (the gallery's Try again)."""
        self.status_row.addWidget(self.status, 1)
        layout.addLayout(self.status_row)
        layout.addWidget(self.pages, 1)
        self.list.currentItemChanged.connect(self._on_current)

    def _on_current(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None:
            self.sig_selected.emit(int(item.data(_INDEX_ROLE)))

    def set_status(self, text: str, *, tone: str = "") -> None:
        """The line under the top rows: what is going on, what was found, or why nothing was; empty hides it."""
        self.status.setText(printable(text))
        coloured(self.status, {"error": "danger", "caution": "caution"}.get(tone, "muted"))
        self.status.setToolTip("")
        self.status.setVisible(bool(text))

    def clear_rows(self) -> None:
        """Empty the list without announcing a selection."""
        self.list.blockSignals(True)
        self.list.clear()
        self.list.blockSignals(False)

    def add_row(self, index: int, icon: QIcon, text: str, tooltip: str) -> QListWidgetItem:
        """One server: `index` is what `sig_selected` carries when it is chosen."""
        item = QListWidgetItem(icon, printable(text))
        item.setData(_INDEX_ROLE, index)
        item.setToolTip(printable(tooltip))
        self.list.addItem(item)
        return item

    def update_row(self, index: int, *, text: str | None = None, icon: QIcon | None = None) -> None:
        """Change the text or icon of the server added with `index` (a badge, a fetched icon)."""
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(_INDEX_ROLE) == index:
                if text is not None:
                    item.setText(printable(text))
                if icon is not None:
                    item.setIcon(icon)
