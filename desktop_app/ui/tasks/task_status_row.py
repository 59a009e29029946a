"""A running task in its tool card: where it stands, what the server says, for how long, and Cancel.

The row belongs to one tool call and stays hidden until that call becomes a task. The server's
status message is its own words: shown as plain text under the status, cut past a few lines (the
whole in the tooltip).
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.tasks.model import TaskRecord, TaskStatus
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.tasks.feed import TaskFeed
from desktop_app.ui.tasks.look import duration_text, show_status
from desktop_app.ui.widgets.plain_text import plain_label, set_plain_tooltip

MESSAGE_CHARS: Final = 160
"""Longer status messages are cut in the row (the whole text is in the tooltip); shorter ones wrap."""
LATE_NOTE: Final = "The turn ended; the task goes on, and its result will come back to this chat."


class TaskStatusRow(QWidget):
    """The task a tool call became, live: status, message, activity, elapsed time, Cancel."""

    def __init__(self, call_id: str, feed: TaskFeed, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.call_id = call_id
        self.record: TaskRecord | None = None
        self._feed = feed
        self.status = QLabel()
        self.message = plain_label()
        self.message.setWordWrap(True)
        muted(self.message)
        self.elapsed = QLabel()
        muted(self.elapsed)
        self.cancel = QPushButton("Cancel task")
        self.cancel.setToolTip("Ask the server to stop this task")
        self.cancel.clicked.connect(self._cancel)
        self.activity = QProgressBar()
        self.activity.setRange(0, 0)  # busy: tasks report a status, not a fraction
        self.activity.setTextVisible(False)
        self.activity.setFixedHeight(4)
        self.note = plain_label(LATE_NOTE)
        self.note.setWordWrap(True)
        muted(self.note)
        self.note.hide()
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.status, 0, Qt.AlignmentFlag.AlignVCenter)
        line.addWidget(self.elapsed, 1)
        line.addWidget(self.cancel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(4)
        layout.addLayout(line)
        layout.addWidget(self.message)
        layout.addWidget(self.activity)
        layout.addWidget(self.note)
        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self._tick)
        feed.sig_task_changed.connect(self._on_changed)
        current = feed.board.task_for_call(call_id)
        self.setVisible(current is not None)
        if current is not None:
            self.show_record(current)

    def show_record(self, record: TaskRecord) -> None:
        self.record = record
        self.setVisible(True)
        running = record.running
        self.status.setText(f" task · {record.status.label.lower()} ")
        show_status(self.status, record.status)
        text = record.message
        self.message.setText(text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + "…")
        set_plain_tooltip(self.message, text if len(text) > MESSAGE_CHARS else "")
        self.message.setVisible(bool(text))
        # Busy only while the server works: not while it waits for the user, nor for its server's return.
        self.activity.setVisible(running and record.status not in (TaskStatus.WAITING, TaskStatus.INPUT_REQUIRED))
        self.cancel.setVisible(running)
        if running and self.cancel.text() != "Cancelling…":
            self.cancel.setEnabled(True)
        self.note.setVisible(running and record.late)
        self._tick()
        if running:
            self._clock.start()
        else:
            self._clock.stop()

    def _on_changed(self, record: TaskRecord) -> None:
        if record.call_id == self.call_id and (self.record is None or record.started >= self.record.started):
            self.show_record(record)

    def _tick(self) -> None:
        if self.record is not None:
            self.elapsed.setText(duration_text(self.record))

    def _cancel(self) -> None:
        if self.record is None:
            return
        self.cancel.setEnabled(False)
        self.cancel.setText("Cancelling…")
        self._feed.cancel(self.record)
