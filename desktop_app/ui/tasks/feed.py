"""The task board as Qt signals, for the tool cards' rows and the Tasks view.

The board reports on the event loop's thread, which is Qt's (qasync), so its events are re-emitted
as they come. Cancel clicks and delivered late results go back to the board through here.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from desktop_app.core.tasks.board import TaskBoard
from desktop_app.core.tasks.events import LateResult, TaskChanged, TaskEvent
from desktop_app.core.tasks.model import TaskRecord


class TaskFeed(QObject):
    """Re-emits the board's events; one per window, shared by every task widget."""

    sig_task_changed = Signal(object)
    """TaskRecord: a task started, reported or ended."""
    sig_late_result = Signal(object)
    """LateResult: a task's result arrived after its turn ended."""

    def __init__(self, board: TaskBoard, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.board = board
        unsubscribe = board.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: unsubscribe())

    def tasks(self) -> list[TaskRecord]:
        return self.board.tasks()

    def late_results(self) -> list[LateResult]:
        return self.board.late_results()

    def cancel(self, record: TaskRecord) -> None:
        self.board.cancel(record.key)

    def delivered(self, late: LateResult) -> None:
        """The late result is in its conversation's draft: the board lets it go, and the views drop it."""
        self.board.delivered(late)
        self.sig_task_changed.emit(late.record)

    def _on_event(self, event: TaskEvent) -> None:
        if isinstance(event, TaskChanged):
            self.sig_task_changed.emit(event.record)
        else:
            self.sig_late_result.emit(event)
