"""Puts each task's status row inside the tool card of the call it belongs to, once that call is a task.

Cards come and go with the conversation shown (a new chat clears them, reopening one brings them
back, and a row goes with its card), so the row is placed at the task's next report whenever its
card is on screen without one.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from desktop_app.core.tasks.model import TaskRecord
from desktop_app.ui.tasks.feed import TaskFeed
from desktop_app.ui.tasks.task_status_row import TaskStatusRow


class TaskCard(Protocol):
    """A tool card, as far as task rows need it."""

    def show_task(self, row: QWidget) -> None: ...


class CardsView(Protocol):
    """The conversation view, as far as task rows need it."""

    def card(self, call_id: str) -> TaskCard | None: ...


class TaskRows(QObject):
    """One `TaskStatusRow` per tool card whose call became a task."""

    def __init__(self, feed: TaskFeed, view: CardsView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._feed = feed
        self._view = view
        self._rows: dict[str, TaskStatusRow] = {}
        feed.sig_task_changed.connect(self.place)

    def row(self, call_id: str) -> TaskStatusRow | None:
        return self._rows.get(call_id)

    def place(self, record: TaskRecord) -> None:
        call_id = record.call_id
        card = self._view.card(call_id) if call_id is not None else None
        if call_id is None or card is None or call_id in self._rows:
            return
        row = TaskStatusRow(call_id, self._feed)
        self._rows[call_id] = row
        row.destroyed.connect(lambda *_: self._rows.pop(call_id, None))
        card.show_task(row)
