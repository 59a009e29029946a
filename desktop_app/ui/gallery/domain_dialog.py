"""Servers → Add from a domain…: type a domain, see the servers its Server Cards describe, install one.

Drawing only; `DomainController` fills it. The domain row and a status line on top, the domain's
servers on the left (a card that cannot be used stays listed with why), an `InstallPane` on the
right with the chosen card's details, addresses, form, consent and, once connected, how the server
compares with its card. Everything a domain wrote is shown as plain text with control and bidi
characters written out. Non-modal, like the gallery.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
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

from desktop_app.core.discovery.discover import FoundServer
from desktop_app.core.terminal_text import printable
from desktop_app.ui.asks.card import MUTED
from desktop_app.ui.gallery.gallery_dialog import CAUTION_STYLE, LIST_ICON
from desktop_app.ui.gallery.install_pane import InstallPane
from desktop_app.ui.style import ERROR_STYLE

_INDEX_ROLE = Qt.ItemDataRole.UserRole
PROMPT = "Type a domain, such as example.com, to see the MCP servers it describes."


def found_text(found: FoundServer, badge: str | None = None) -> str:
    """Two lines for the list: name and version (plus a badge), then the description (the details say
    why a card cannot be used)."""
    card = found.card
    if card is None:
        return printable(f"{found.display_name}\nIts card cannot be used")
    extra = f" · {badge}" if badge else ""
    return printable(f"{card.display_name}  {card.version}{extra}\n{' '.join(card.description.split())}")


class DomainDialog(QDialog):
    """Domain field, status and list of servers; an `InstallPane` beside them."""

    sig_look_up = Signal(str)
    """The user asked to look up the typed domain (button or Enter)."""
    sig_selected = Signal(int)
    """A server was chosen (its index in the listing)."""
    sig_closed = Signal()
    """The window closed: an open consent card is withdrawn (which declines it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("domainDialog")
        self.setWindowTitle("Add servers from a domain")
        self.resize(1000, 620)
        self.domain = QLineEdit()
        self.domain.setObjectName("domainField")
        self.domain.setPlaceholderText("example.com or https://example.com/mcp")
        self.domain.setClearButtonEnabled(True)
        self.look_up = QPushButton("Look up")
        self.look_up.setObjectName("domainLookUp")
        self.look_up.setDefault(True)
        self.status = QLabel(PROMPT)
        self.status.setObjectName("domainStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setStyleSheet(MUTED)
        self.list = QListWidget()
        self.list.setObjectName("domainList")
        self.list.setIconSize(QSize(LIST_ICON, LIST_ICON))
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(2)
        self.pane = InstallPane()
        self.pane.clear("Servers the domain describes appear here; pick one to see how to connect to it.")

        row = QHBoxLayout()
        row.addWidget(QLabel("Domain"))
        row.addWidget(self.domain, 1)
        row.addWidget(self.look_up)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.list, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.pane)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([360, 620])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(splitter, 1)

        self.look_up.clicked.connect(self._look_up)
        self.domain.returnPressed.connect(self._look_up)
        self.list.currentItemChanged.connect(self._on_current)

    def _look_up(self) -> None:
        self.sig_look_up.emit(self.domain.text().strip())

    def _on_current(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None:
            self.sig_selected.emit(int(item.data(_INDEX_ROLE)))

    # -- filling ---------------------------------------------------------------------------

    def set_status(self, text: str, *, tone: str = "") -> None:
        """One line under the domain: looking up, what was found, or why nothing was."""
        self.status.setText(printable(text))
        self.status.setStyleSheet({"error": ERROR_STYLE, "caution": CAUTION_STYLE}.get(tone, MUTED))

    def set_servers(self, rows: list[tuple[FoundServer, QIcon, str | None]]) -> None:
        """The domain's servers, in the catalog's order: (server, icon, badge) each."""
        self.list.blockSignals(True)
        self.list.clear()
        for index, (found, icon, badge) in enumerate(rows):
            item = QListWidgetItem(icon, found_text(found, badge))
            item.setData(_INDEX_ROLE, index)
            item.setToolTip(printable(found.card.name if found.card else found.identifier))
            if found.card is None:
                item.setForeground(Qt.GlobalColor.gray)
            self.list.addItem(item)
        self.list.blockSignals(False)
        if rows:
            self.list.setCurrentRow(0)
        else:
            self.pane.clear("Servers the domain describes appear here; pick one to see how to connect to it.")

    def set_badge(self, index: int, found: FoundServer, badge: str | None) -> None:
        item = self.list.item(index)
        if item is not None:
            item.setText(found_text(found, badge))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.sig_closed.emit()
        super().closeEvent(event)

    def done(self, result: int) -> None:
        self.sig_closed.emit()
        super().done(result)
