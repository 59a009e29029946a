"""Questions that never block the event loop: the box opens and the answer arrives as a call."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def confirm(parent: QWidget, title: str, text: str, on_yes: Callable[[], object]) -> QMessageBox:
    """Ask Yes/Cancel with `open()` (no nested loop); `on_yes` runs only on Yes."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.accepted.connect(on_yes)
    box.open()
    return box
