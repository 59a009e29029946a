"""The Tasks view: every server's running and recent tasks, with Cancel, and late results to send on.

Under each server's name, one entry per task, the newest first: the tool, its status, when it
started and for how long it has run (or ran), and the server's last message. A running task has
Cancel; a task whose result arrived after its turn ended has "Send to chat", which puts the result
in its conversation's draft for the user to send on to the model. The view fits a narrow dock:
each entry wraps instead of scrolling sideways.
"""

from __future__ import annotations

import time
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from desktop_app.core.tasks.events import LateResult
from desktop_app.core.tasks.model import TaskRecord
from desktop_app.qt_kit.theme import muted, themed
from desktop_app.ui.tasks.feed import TaskFeed
from desktop_app.ui.tasks.look import duration_text, show_status
from desktop_app.ui.widgets.empty_state import TASKS_EMPTY as EMPTY
from desktop_app.ui.widgets.empty_state import empty_note
from desktop_app.ui.widgets.plain_text import plain_label, set_plain_tooltip

MESSAGE_CHARS: Final = 300
MAX_ENTRIES: Final = 100
"""Entries kept in the view; past this, ended tasks the board no longer lists leave it."""


def started_text(stamp: float, now: float | None = None) -> str:
    """A start time: the clock time today, with the day before that."""
    moment, today = time.localtime(stamp), time.localtime(now)
    if moment[:3] == today[:3]:
        return time.strftime("%H:%M:%S", moment)
    return time.strftime("%d %b %H:%M", moment)


class TaskEntry(QFrame):
    """One task: tool and action on top, then status, start and elapsed time, then the server's message."""

    def __init__(self, record: TaskRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taskEntry")
        themed(self, lambda p: f"#taskEntry {{ border-bottom: 1px solid {p.border}; }}")
        self.record = record
        self.tool = plain_label(record.tool)
        font = self.tool.font()
        font.setBold(True)
        self.tool.setFont(font)
        self.status = QLabel()
        self.when = QLabel()
        muted(self.when)
        self.message = plain_label()
        self.message.setWordWrap(True)
        muted(self.message)
        self.action: QPushButton | None = None
        self._top = QHBoxLayout()
        self._top.setContentsMargins(0, 0, 0, 0)
        self._top.addWidget(self.tool, 1)
        middle = QHBoxLayout()
        middle.setContentsMargins(0, 0, 0, 0)
        middle.addWidget(self.status)
        middle.addWidget(self.when, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(3)
        layout.addLayout(self._top)
        layout.addLayout(middle)
        layout.addWidget(self.message)
        self.show_record(record)

    def show_record(self, record: TaskRecord) -> None:
        self.record = record
        self.status.setText(f" {record.status.label} ")
        show_status(self.status, record.status)
        self.tick()
        text = " ".join(record.message.split())
        self.message.setText(text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + "…")
        set_plain_tooltip(self.message, record.message if len(text) > MESSAGE_CHARS else "")
        self.message.setVisible(bool(text))

    def tick(self) -> None:
        record = self.record
        self.when.setText(f"started {started_text(record.started)} · {duration_text(record)}")

    def set_action(self, button: QPushButton | None) -> None:
        if self.action is not None:
            self.action.deleteLater()
        self.action = button
        if button is not None:
            self._top.addWidget(button)


class TasksPanel(QWidget):
    """Running and recent tasks per server; Cancel and "Send to chat" act on one task."""

    sig_send_to_chat = Signal(object)
    """LateResult: put this result in its conversation's draft (the receiver then marks it delivered)."""

    def __init__(self, feed: TaskFeed, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._feed = feed
        self._entries: dict[tuple[str, str], TaskEntry] = {}
        self._servers: dict[str, QVBoxLayout] = {}
        self._late: dict[tuple[str, str], LateResult] = {late.record.key: late for late in feed.late_results()}
        self._list = QWidget()
        self._list.setObjectName("tasksList")
        self._rows = QVBoxLayout(self._list)
        self._rows.setContentsMargins(0, 0, 0, 0)
        self._rows.setSpacing(8)
        self._rows.addStretch(1)
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.area.setWidget(self._list)
        self.empty = empty_note(EMPTY, "tasksEmpty")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.empty)
        layout.addWidget(self.area, 1)
        for record in reversed(feed.tasks()):
            self.show_record(record)
        for late in self._late.values():
            self.show_record(late.record)
        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self._tick)
        self._clock.start()
        feed.sig_task_changed.connect(self.show_record)
        feed.sig_late_result.connect(self._on_late)
        self._sync_empty()

    def entry(self, record: TaskRecord) -> TaskEntry | None:
        return self._entries.get(record.key)

    def show_record(self, record: TaskRecord) -> None:
        if record.key in self._late and record.key not in {late.record.key for late in self._feed.late_results()}:
            del self._late[record.key]  # delivered meanwhile
        entry = self._entries.get(record.key)
        if entry is None:
            entry = self._entries[record.key] = TaskEntry(record)
            self._server(record.server).insertWidget(1, entry)  # the newest first, under the server's name
            if len(self._entries) > MAX_ENTRIES:
                self._prune()
        else:
            entry.show_record(record)
        entry.set_action(self._action(record))
        self._sync_empty()

    def _prune(self) -> None:
        listed = {record.key for record in self._feed.tasks()}
        for key, entry in list(self._entries.items()):
            if key not in listed and key not in self._late and not entry.record.running:
                del self._entries[key]
                entry.deleteLater()

    def _server(self, server: str) -> QVBoxLayout:
        group = self._servers.get(server)
        if group is None:
            box = QWidget()
            group = self._servers[server] = QVBoxLayout(box)
            group.setContentsMargins(0, 0, 0, 0)
            group.setSpacing(0)
            name = plain_label(server)
            font = name.font()
            font.setBold(True)
            font.setPointSizeF(font.pointSizeF() * 1.1)
            name.setFont(font)
            group.addWidget(name)
            self._rows.insertWidget(self._rows.count() - 1, box)
        return group

    def _action(self, record: TaskRecord) -> QPushButton | None:
        late = self._late.get(record.key)
        if record.running:
            button = QPushButton("Cancel")
            set_plain_tooltip(button, f"Ask {record.server} to stop this task")
            button.clicked.connect(lambda: self._cancel(button, record.key))
            return button
        if late is not None:
            button = QPushButton("Send to chat")
            button.setToolTip("Put this result in its conversation's message box, to send on to the model")
            button.clicked.connect(lambda: self.sig_send_to_chat.emit(late))
            return button
        return None

    def _cancel(self, button: QPushButton, key: tuple[str, str]) -> None:
        record = self._feed.board.task(key)
        if record is None:
            return
        button.setEnabled(False)
        button.setText("Cancelling…")
        self._feed.cancel(record)

    def _on_late(self, late: LateResult) -> None:
        self._late[late.record.key] = late
        self.show_record(late.record)

    def _tick(self) -> None:
        for entry in self._entries.values():
            if entry.record.running:
                entry.tick()

    def _sync_empty(self) -> None:
        self.empty.setVisible(not self._entries)
        self.area.setVisible(bool(self._entries))
