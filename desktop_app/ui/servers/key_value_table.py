"""A table of name, value and a "secret" tick, for a server's environment or headers.

A stored secret's value is never shown again (the row keeps its name and an empty value). Names
that change which program runs or what it loads (`launch_env`) can be painted red with a tooltip.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from desktop_app.core.launch_env import changes_launch
from desktop_app.qt_kit.theme import tokens

_SECRET_REF = re.compile(r"^\$\{secret:([^}]+)\}$")
_CHANGES_LAUNCH = "Changes which program runs or what it loads"


class KeyValueTable(QTableWidget):
    """Rows of name, value and a 'secret' tick; a secret's value is never shown once stored."""

    def __init__(
        self, key_label: str, stored_where: str = "in the secret store", parent: QWidget | None = None
    ) -> None:
        """`stored_where` says where a secret goes, for a sentence: "in a plaintext file, not encrypted"."""
        super().__init__(0, 3, parent)
        self._keep = f"Stored {stored_where}; leave empty to keep it"
        self.setHorizontalHeaderLabels([key_label, "Value", "Secret"])
        tick_header = self.horizontalHeaderItem(2)
        if tick_header is not None:
            tick_header.setToolTip(f"Ticked: the value is stored {stored_where}; the entry keeps ${{secret:NAME}}")
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setVisible(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setMinimumHeight(110)

    def add_row(self, key: str = "", value: str = "", secret: bool = False) -> None:
        row = self.rowCount()
        self.insertRow(row)
        self.setItem(row, 0, QTableWidgetItem(key))
        stored = _SECRET_REF.match(value)
        value_item = QTableWidgetItem("" if stored else value)
        if stored:
            value_item.setData(Qt.ItemDataRole.UserRole, stored.group(1))
            value_item.setToolTip(self._keep)
        self.setItem(row, 1, value_item)
        tick = QTableWidgetItem()
        tick.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
        tick.setCheckState(Qt.CheckState.Checked if secret or stored else Qt.CheckState.Unchecked)
        self.setItem(row, 2, tick)

    def remove_selected(self) -> None:
        for row in sorted({index.row() for index in self.selectedIndexes()}, reverse=True):
            self.removeRow(row)

    def rows(self) -> list[tuple[str, str, bool, str | None]]:
        """(key, typed value, secret ticked, name of an already-stored secret) per non-empty row."""
        result = []
        for row in range(self.rowCount()):
            key_item, value_item, tick = self.item(row, 0), self.item(row, 1), self.item(row, 2)
            key = key_item.text().strip() if key_item else ""
            if not key:
                continue
            value = value_item.text() if value_item else ""
            stored = value_item.data(Qt.ItemDataRole.UserRole) if value_item else None
            secret = tick is not None and tick.checkState() == Qt.CheckState.Checked
            result.append((key, value, secret, stored))
        return result

    def flag_names(self) -> list[str]:
        """Paint the names that change what runs in red, with a tooltip; return them, sorted."""
        flagged = []
        blocker = QSignalBlocker(self)  # painting an item is a change too: do not report it as an edit
        for row in range(self.rowCount()):
            item = self.item(row, 0)
            if item is None:
                continue
            name = item.text().strip()
            launch = bool(name) and changes_launch(name)
            item.setForeground(QBrush(QColor(tokens(self).danger)) if launch else QBrush())
            item.setToolTip(_CHANGES_LAUNCH if launch else "")
            if launch:
                flagged.append(name)
        blocker.unblock()
        return sorted(flagged)
