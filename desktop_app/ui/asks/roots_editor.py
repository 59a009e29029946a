"""An editable list of roots (folders servers may work in), for the server editor and Settings.

Folders are picked with the system's folder dialog, or typed as a path or `file://` URI; each row
shows what the server will see (its `file://` URI) and says plainly when an entry cannot be a root.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.root_paths import root_problem, root_uri
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.widgets.style import error_label

ROWS_SHOWN = 3


class RootsEditor(QWidget):
    """Rows of root entries with Add folder… / Add path / Remove; `entries()` reads them back."""

    def __init__(self, entries: tuple[str, ...] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setObjectName("rootsList")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.list.itemChanged.connect(self._describe)
        self.add_folder = QPushButton("Add folder…")
        self.add_folder.clicked.connect(self._pick_folder)
        self.add_path = QPushButton("Add path")
        self.add_path.setToolTip("Type a path (~ and $VARS allowed) or a file:// URI")
        self.add_path.clicked.connect(self._new_row)
        self.remove = QPushButton("Remove")
        self.remove.clicked.connect(self._remove_selected)
        self.problem = error_label()
        self.problem.hide()
        buttons = QHBoxLayout()
        for button in (self.add_folder, self.add_path, self.remove):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        layout.addWidget(self.problem)
        self.set_entries(entries)
        row = self.list.fontMetrics().height() + 6  # known before any row exists
        self.list.setFixedHeight(row * ROWS_SHOWN + 2 * self.list.frameWidth() + 4)

    def set_entries(self, entries: tuple[str, ...]) -> None:
        self.list.clear()
        for entry in entries:
            self.add(entry)

    def add(self, entry: str) -> QListWidgetItem:
        item = QListWidgetItem(entry)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        self.list.addItem(item)
        self._describe(item)
        return item

    def entries(self) -> tuple[str, ...]:
        """The non-empty entries, in order."""
        texts = (self.list.item(row).text().strip() for row in range(self.list.count()))
        return tuple(text for text in texts if text)

    def first_problem(self) -> str | None:
        """A sentence about the first entry that cannot be a root, or None."""
        for entry in self.entries():
            if (problem := root_problem(entry)) is not None:
                return f"The root '{entry}' {problem}."
        return None

    def _describe(self, item: QListWidgetItem) -> None:
        text = item.text().strip()
        problem = root_problem(text) if text else None
        item.setToolTip(f"Servers see: {root_uri(text)}" if text and problem is None else problem or "")
        item.setForeground(self.palette().text() if problem is None else Qt.GlobalColor.red)
        self.problem.setText(self.first_problem() or "")
        self.problem.setVisible(bool(self.problem.text()))

    def _pick_folder(self) -> None:
        dialog = QFileDialog(self, "Choose a folder servers may work in", str(Path.home()))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(lambda path: self.add(path) if path else None)
        dialog.open()

    def _new_row(self) -> None:
        item = self.add("")
        self.list.setCurrentItem(item)
        self.list.editItem(item)

    def _remove_selected(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self.problem.setText(self.first_problem() or "")
        self.problem.setVisible(bool(self.problem.text()))


def roots_hint() -> QLabel:
    """The line that says what roots are, under a roots editor."""
    label = QLabel(
        "Roots tell servers which folders they may work in (servers that support roots; they are not a sandbox)."
    )
    label.setWordWrap(True)
    muted(label)
    return label
