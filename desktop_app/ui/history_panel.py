"""Stored conversations under day headings (Today, Yesterday, a date): click to resume, F2 or the
menu to rename, Delete to remove. Only conversations with a message are stored, so only they show."""

from __future__ import annotations

import time
from datetime import date, datetime

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.ui.confirm import confirm

_ID = Qt.ItemDataRole.UserRole


def day_label(stamp: float, today: date | None = None) -> str:
    """The heading a conversation last updated at `stamp` goes under."""
    day = datetime.fromtimestamp(stamp).date()
    today = today or date.today()
    age = (today - day).days
    if age <= 0:
        return "Today"
    if age == 1:
        return "Yesterday"
    if age < 7:
        return f"{day:%A}"
    return f"{day.day} {day:%B}" if day.year == today.year else f"{day.day} {day:%B %Y}"


def _when(stamp: float) -> str:
    return time.strftime("%H:%M", time.localtime(stamp))


class HistoryPanel(QWidget):
    resume_requested = Signal(str)
    rename_requested = Signal(str, str)
    delete_requested = Signal(str)
    new_requested = Signal()

    def __init__(self, store: ConversationStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._current: str | None = None
        self.list = QListWidget()
        self.list.setObjectName("historyList")
        self.list.setStyleSheet("#historyList::item { padding: 3px 2px; }")
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemActivated.connect(lambda item: self._resume(item))
        self.list.itemClicked.connect(lambda item: self._resume(item))
        self.list.itemChanged.connect(self._renamed)
        new = QPushButton("New chat")
        new.clicked.connect(self.new_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(new)
        layout.addWidget(self.list)
        self.refresh()

    def _resume(self, item: QListWidgetItem) -> None:
        if item.data(_ID) is not None:  # not a day heading
            self.resume_requested.emit(item.data(_ID))

    def set_current(self, conversation_id: str) -> None:
        self._current = conversation_id
        self.refresh()

    def refresh(self) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        heading = ""
        for info in self._store.list():
            if not info.message_count:
                continue
            if (day := day_label(info.updated)) != heading:
                heading = day
                self.list.addItem(self._heading(day))
            item = QListWidgetItem(info.title)
            item.setData(_ID, info.id)
            item.setToolTip(f"{info.title}\n{info.message_count} messages, last at {_when(info.updated)}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            self.list.addItem(item)
            if info.id == self._current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)

    def _heading(self, text: str) -> QListWidgetItem:
        """A day heading: not selectable, not editable, a little apart from the day before."""
        item = QListWidgetItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        item.setForeground(self.list.palette().color(QPalette.ColorRole.PlaceholderText))
        font = QFont(self.list.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 0.9)
        item.setFont(font)
        metrics = QFontMetrics(font)
        item.setSizeHint(QSize(metrics.horizontalAdvance(text) + 12, metrics.height() + 12))
        item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
        return item

    def _renamed(self, item: QListWidgetItem) -> None:
        title = item.text().strip()
        if title:
            self.rename_requested.emit(item.data(_ID), title)
        else:
            self.refresh()

    def _menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None or item.data(_ID) is None:
            return
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.resume_requested.emit(item.data(_ID)))
        menu.addAction("Rename", lambda: self.list.editItem(item))
        menu.addAction("Delete…", lambda: self._confirm_delete(item))
        menu.popup(self.list.viewport().mapToGlobal(position))

    def _confirm_delete(self, item: QListWidgetItem) -> None:
        conversation_id = item.data(_ID)
        confirm(
            self,
            "Delete conversation",
            f"Delete “{item.text()}”? This cannot be undone.",
            lambda: self.delete_requested.emit(conversation_id),
        )
