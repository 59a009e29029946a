"""How a task's status looks wherever it is shown: its colour and a few words, and how long it has run."""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QLabel

from desktop_app.core.tasks.model import TaskRecord, TaskStatus, elapsed_text
from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import SPACE, Palette

ROLES: Final = {
    TaskStatus.WORKING: "accent",
    TaskStatus.INPUT_REQUIRED: "caution",
    TaskStatus.COMPLETED: "success",
    TaskStatus.FAILED: "danger",
    TaskStatus.CANCELLED: "muted",
    TaskStatus.UNKNOWN: "caution",
    TaskStatus.SILENT: "caution",
    TaskStatus.WAITING: "muted",
}
"""Each status's colour, a token: the chip is filled with it and written in the theme's `on_accent`."""


def chip_sheet(status: TaskStatus, p: Palette) -> str:
    """A status chip's sheet in `p`'s colours (every text colour reads at 4.5:1 under `on_accent`)."""
    return (
        f"background: {getattr(p, ROLES[status])}; color: {p.on_accent}; border-radius: {SPACE.radius - 2}px;"
        f" padding: 1px {SPACE.m - 2}px;"
    )


def show_status(chip: QLabel, status: TaskStatus) -> None:
    """Colour `chip` for `status`, and again after a change of theme."""
    themed(chip, lambda p: chip_sheet(status, p))


def duration_text(record: TaskRecord) -> str:
    """How long a running task has run ("42 s"), or how long an ended one took ("took 42 s")."""
    elapsed = elapsed_text(record.elapsed())
    return elapsed if record.running else f"took {elapsed}"
