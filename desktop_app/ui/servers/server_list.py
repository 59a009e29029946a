"""The servers panel's list: one row per server, named by its data (its text carries state and badges),
as tall as its rows up to `LIST_ROWS`."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from desktop_app.ui.widgets.plain_tooltips import PlainToolTips

NAME_ROLE: Final = Qt.ItemDataRole.UserRole
LIST_ROWS: Final = 8
"""The server list grows to this many rows; with more it scrolls."""


class ServerList(QListWidget):
    """Rows found by server name; the first row added is selected (servers usually arrive after the panel)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverList")
        PlainToolTips(self)  # a row's tooltip quotes the server (why it failed)

    def names(self) -> list[str]:
        return [str(self.item(row).data(NAME_ROLE)) for row in range(self.count())]

    def selected(self) -> str | None:
        item = self.currentItem()
        return None if item is None else str(item.data(NAME_ROLE))

    def row_of(self, name: str) -> tuple[QListWidgetItem, bool]:
        """`name`'s row, and whether it was added now."""
        for row in range(self.count()):
            if (item := self.item(row)).data(NAME_ROLE) == name:
                return item, False
        item = QListWidgetItem(name)
        item.setData(NAME_ROLE, name)
        self.addItem(item)
        if self.currentItem() is None:
            self.setCurrentItem(item)
        return item, True

    def keep_only(self, names: set[str]) -> None:
        """Drop the rows of servers not in `names` (removed or renamed)."""
        for row in reversed(range(self.count())):
            if self.item(row).data(NAME_ROLE) not in names:
                self.takeItem(row)

    def rows_height(self) -> int:
        """The height its rows need: one at least, `LIST_ROWS` at most (then it scrolls)."""
        row = self.sizeHintForRow(0) if self.count() else self.fontMetrics().height() + 8
        rows = min(max(self.count(), 1), LIST_ROWS)
        return row * rows + 2 * self.frameWidth() + 2 * self.spacing() + 4
