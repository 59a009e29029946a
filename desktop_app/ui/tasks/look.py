"""How a task's status looks wherever it is shown: its colour and a few words, and how long it has run."""

from __future__ import annotations

from typing import Final

from desktop_app.core.tasks.model import TaskRecord, TaskStatus, elapsed_text
from desktop_app.ui.widgets.style import MUTED_COLOUR

COLOURS: Final = {
    TaskStatus.WORKING: "#4f6cf7",
    TaskStatus.INPUT_REQUIRED: "#d9a21b",
    TaskStatus.COMPLETED: "#2e9e5b",
    TaskStatus.FAILED: "#d64545",
    TaskStatus.CANCELLED: MUTED_COLOUR,
    TaskStatus.UNKNOWN: "#b7791f",
    TaskStatus.SILENT: "#b7791f",
    TaskStatus.WAITING: "#6b7a99",
}


def chip_style(status: TaskStatus) -> str:
    return f"background: {COLOURS[status]}; color: white; border-radius: 6px; padding: 1px 6px;"


def duration_text(record: TaskRecord) -> str:
    """How long a running task has run ("42 s"), or how long an ended one took ("took 42 s")."""
    elapsed = elapsed_text(record.elapsed())
    return elapsed if record.running else f"took {elapsed}"
