"""Stored conversations: click to resume, F2 or the menu to rename, Delete to remove."""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, Qt, Signal
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


def _when(stamp: float) -> str:
    age = time.time() - stamp
    if age < 86_400:
        return time.strftime("%H:%M", time.localtime(stamp))
    return time.strftime("%d %b", time.localtime(stamp))


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
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemActivated.connect(lambda item: self.resume_requested.emit(item.data(_ID)))
        self.list.itemClicked.connect(lambda item: self.resume_requested.emit(item.data(_ID)))
        self.list.itemChanged.connect(self._renamed)
        new = QPushButton("New chat")
        new.clicked.connect(self.new_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(new)
        layout.addWidget(self.list)
        self.refresh()

    def set_current(self, conversation_id: str) -> None:
        self._current = conversation_id
        self.refresh()

    def refresh(self) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for info in self._store.list():
            if info.message_count == 0 and info.id != self._current:
                continue  # empty drafts are not history
            item = QListWidgetItem(info.title)
            item.setData(_ID, info.id)
            item.setToolTip(f"{info.title}\n{info.message_count} messages, last {_when(info.updated)}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            self.list.addItem(item)
            if info.id == self._current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)

    def _renamed(self, item: QListWidgetItem) -> None:
        title = item.text().strip()
        if title:
            self.rename_requested.emit(item.data(_ID), title)
        else:
            self.refresh()

    def _menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None:
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
