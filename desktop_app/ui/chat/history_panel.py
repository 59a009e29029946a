"""Stored conversations under day headings (Today, Yesterday, a date): click to resume, F2 or the
menu to rename, Delete to remove. Only conversations with a message are stored, so only they show.

Find in history narrows the list to the chats whose title or messages contain what is typed, each
with the bit of text that matched; the search runs in a worker while the window goes on, and the
list is narrowed in place (rows hidden and shown), not built again, at each key.
"""

from __future__ import annotations

import asyncio
import time
from datetime import date, datetime
from typing import Final

from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.chat.conversations import ConversationInfo, ConversationStore, SearchHit
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.confirm import confirm
from desktop_app.ui.widgets.empty_state import HISTORY_EMPTY, note_in_place_of

_ID = Qt.ItemDataRole.UserRole
FIND_DELAY_MS: Final = 150
"""Typing pauses this long before the history is searched."""


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
        self._hits: list[SearchHit] | None = None
        """What the find field matched (None while it is empty)."""
        self._rows: dict[str, tuple[ConversationInfo, QListWidgetItem]] = {}
        """Every stored chat's row, by its id."""
        self._none: QListWidgetItem | None = None
        """The row saying that nothing matched, while shown."""
        self._menu_open = False
        self._confirming = False
        self._search: asyncio.Task[list[SearchHit]] | None = None
        self.find_field = QLineEdit()
        self.find_field.setObjectName("historyFind")
        self.find_field.setPlaceholderText("Find in history (titles and messages)")
        self.find_field.setClearButtonEnabled(True)
        self.find_field.installEventFilter(self)
        self._find_timer = QTimer(self, singleShot=True, interval=FIND_DELAY_MS)
        self._find_timer.timeout.connect(self._run_search)
        self.find_field.textChanged.connect(lambda _text: self._find_timer.start())
        self.list = QListWidget()
        self.list.setObjectName("historyList")
        self.list.setStyleSheet(f"#historyList::item {{ padding: {SPACE.s}px {SPACE.xs}px; }}")
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemActivated.connect(lambda item: self._resume(item))
        self.list.itemClicked.connect(lambda item: self._resume(item))
        self.list.itemChanged.connect(self._renamed)
        self.list.installEventFilter(self)  # Delete asks to delete the selected chat
        new = QPushButton("New chat")
        new.clicked.connect(self.new_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(new)
        layout.addWidget(self.find_field)
        layout.addWidget(self.list)
        self.refresh()
        self.empty = note_in_place_of(self.list, HISTORY_EMPTY, "historyEmpty")

    def focus_find(self) -> None:
        """Put the cursor in the find field, its text selected (Find in history)."""
        self.find_field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.find_field.selectAll()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.list and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            item = self.list.currentItem()
            if event.key() == Qt.Key.Key_Delete and item is not None and item.data(_ID) is not None:
                self._confirm_delete(item)
                return True
        if watched is self.find_field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Escape and self.find_field.text():
                self.find_field.clear()
                return True
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._find_timer.stop()
                self._run_search()
                self.list.setFocus()
                rows = (self.list.item(i) for i in range(self.list.count()))
                first = next((row for row in rows if row.data(_ID) and not row.isHidden()), None)
                if first is not None:
                    self.list.setCurrentItem(first)
                return True
        return super().eventFilter(watched, event)

    def _run_search(self) -> None:
        query = self.find_field.text().strip()
        if self._search is not None:
            self._search.cancel()
            self._search = None
        if not query:
            self._hits = None
            self._narrow()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a bare panel): search here
            self._show_hits(query, self._store.search(query))
            return
        self._search = loop.create_task(asyncio.to_thread(self._store.search, query))
        self._search.add_done_callback(lambda task: self._searched(task, query))

    def _searched(self, task: asyncio.Task[list[SearchHit]], query: str) -> None:
        if task.cancelled() or query != self.find_field.text().strip():
            return
        if task.exception() is None:
            self._show_hits(query, task.result())

    def _show_hits(self, query: str, hits: list[SearchHit]) -> None:
        self._hits = hits
        if any(hit.info.id not in self._rows for hit in hits):
            self.refresh()  # a chat stored since the list was built
        else:
            self._narrow()
        if not hits:
            self._none = QListWidgetItem(f"No chat contains “{query}”.")
            self._none.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(self._none)

    def _resume(self, item: QListWidgetItem) -> None:
        if item.data(_ID) is not None:  # not a day heading
            self.resume_requested.emit(item.data(_ID))

    def set_current(self, conversation_id: str) -> None:
        self._current = conversation_id
        if self._hits is not None:
            self._run_search()  # a chat changed: what it matches may have too
        else:
            self.refresh()

    def refresh(self) -> None:
        """Build the list of every stored chat again (then narrowed to what the find field matched)."""
        self.list.blockSignals(True)
        self.list.clear()
        self._rows.clear()
        self._none = None
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
            self._rows[info.id] = (info, item)
            if info.id == self._current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        if self._hits is not None:
            self._narrow()

    def _narrow(self) -> None:
        """Show only the rows of the chats found (each with what matched) and their days' headings; all
        of them once the find field is empty. Rows are hidden and shown, none is made again."""
        snippets: dict[str, str] | None = None if self._hits is None else {h.info.id: h.snippet for h in self._hits}
        self.list.blockSignals(True)
        self.list.setUpdatesEnabled(False)
        if self._none is not None:
            self.list.takeItem(self.list.row(self._none))
            self._none = None
        heading: QListWidgetItem | None = None
        for index in range(self.list.count()):
            item = self.list.item(index)
            conversation_id = item.data(_ID)
            if conversation_id is None:  # a day heading: shown when a row under it is
                heading = item
                item.setHidden(snippets is not None)
                continue
            info = self._rows[conversation_id][0]
            found = snippets is None or conversation_id in snippets
            item.setHidden(not found)
            if found and heading is not None:
                heading.setHidden(False)
            snippet = snippets.get(conversation_id) if snippets is not None else None
            text = f"{info.title}\n    {snippet}" if snippet else info.title
            if item.text() != text:
                item.setText(text)
                flags = item.flags() | Qt.ItemFlag.ItemIsEditable  # a row showing what matched is renamed
                item.setFlags(flags & ~Qt.ItemFlag.ItemIsEditable if snippet else flags)  # from the full list
        self.list.setUpdatesEnabled(True)
        self.list.blockSignals(False)

    def _select_current(self) -> None:
        """Highlight the open chat again (after a menu acted on another row)."""
        if self._menu_open or self._confirming or self.list.state() is QAbstractItemView.State.EditingState:
            return
        rows = (self.list.item(i) for i in range(self.list.count()))
        current = next((item for item in rows if item.data(_ID) == self._current), None)
        if current is not None:
            self.list.setCurrentItem(current)
        else:
            self.list.clearSelection()

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
        self.list.setCurrentItem(item)  # the row the menu acts on is the one highlighted
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.resume_requested.emit(item.data(_ID)))
        if item.flags() & Qt.ItemFlag.ItemIsEditable:
            menu.addAction("Rename", lambda: self.list.editItem(item))
        menu.addAction("Delete…", lambda: self._confirm_delete(item))
        self._menu_open = True
        menu.aboutToHide.connect(self._menu_closed)
        menu.popup(self.list.viewport().mapToGlobal(position))

    def _menu_closed(self) -> None:
        self._menu_open = False
        QTimer.singleShot(0, self, self._select_current)  # once its action (if any) has begun

    def _confirm_delete(self, item: QListWidgetItem) -> None:
        conversation_id = item.data(_ID)
        title = item.text().split("\n", 1)[0]
        self._confirming = True
        box = confirm(
            self,
            "Delete conversation",
            f"Delete “{title}”? This cannot be undone.",
            lambda: self.delete_requested.emit(conversation_id),
        )
        box.finished.connect(self._confirmed)

    def _confirmed(self) -> None:
        self._confirming = False
        self._select_current()
