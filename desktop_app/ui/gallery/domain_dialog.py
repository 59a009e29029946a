"""Servers → Add from a domain…: type a domain, see the servers its Server Cards describe, install one.

Drawing only; `DomainController` fills it. The domain row and a status line on top, the domain's
servers on the left (a card that cannot be used stays listed with why), an `InstallPane` on the
right with the chosen card's details, addresses, form, consent and, once connected, how the server
compares with its card. Everything a domain wrote is shown as plain text with control and bidi
characters written out. Non-modal, like the gallery.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from desktop_app.core.discovery.discover import FoundServer
from desktop_app.ui.gallery.frame import ListDetailsDialog

PROMPT = "Type a domain, such as example.com, to see the MCP servers it describes."
NOTHING_FOUND = "Servers the domain describes appear here; pick one to see how to connect to it."


def found_text(found: FoundServer, badge: str | None = None) -> str:
    """Two lines for the list: name and version (plus a badge), then the description (the details say
    why a card cannot be used)."""
    card = found.card
    if card is None:
        return f"{found.display_name}\nIts card cannot be used"
    extra = f" · {badge}" if badge else ""
    return f"{card.display_name}  {card.version}{extra}\n{' '.join(card.description.split())}"


class DomainDialog(ListDetailsDialog):
    """Domain field and Look up on top; the domain's servers and an `InstallPane` beside them."""

    sig_look_up = Signal(str)
    """The user asked to look up the typed domain (button or Enter)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("domain", "Add servers from a domain", QSize(1000, 620), parent)
        self.domain = QLineEdit()
        self.domain.setObjectName("domainField")
        self.domain.setPlaceholderText("example.com or https://example.com/mcp")
        self.domain.setClearButtonEnabled(True)
        self.look_up = QPushButton("Look up")
        self.look_up.setObjectName("domainLookUp")
        self.look_up.setDefault(True)
        self.pane.clear(NOTHING_FOUND)
        self.set_status(PROMPT)

        row = QHBoxLayout()
        row.addWidget(QLabel("Domain"))
        row.addWidget(self.domain, 1)
        row.addWidget(self.look_up)
        self.top.addLayout(row)

        self.look_up.clicked.connect(self._look_up)
        self.domain.returnPressed.connect(self._look_up)

    def _look_up(self) -> None:
        self.sig_look_up.emit(self.domain.text().strip())

    # -- filling ---------------------------------------------------------------------------

    def set_servers(self, rows: list[tuple[FoundServer, QIcon, str | None]]) -> None:
        """The domain's servers, in the catalog's order: (server, icon, badge) each."""
        self.clear_rows()
        for index, (found, icon, badge) in enumerate(rows):
            item = self.add_row(
                index, icon, found_text(found, badge), found.card.name if found.card else found.identifier
            )
            if found.card is None:
                item.setForeground(Qt.GlobalColor.gray)
        if rows:
            self.list.setCurrentRow(0)
        else:
            self.pane.clear(NOTHING_FOUND)

    def set_badge(self, index: int, found: FoundServer, badge: str | None) -> None:
        self.update_row(index, text=found_text(found, badge))
