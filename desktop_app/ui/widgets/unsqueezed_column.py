"""A column of form sections that keeps every row at its full height (put it in a scroll area)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget


class UnsqueezedColumn(QWidget):
    """Sections stacked at their full height: a dialog too short for them scrolls rather than squeezing rows.

    Wrapped labels make Qt underestimate a column's minimum height, so the column holds it at its
    size hint itself.
    """

    def __init__(self, *sections: QWidget) -> None:
        super().__init__()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        for section in sections:
            column.addWidget(section)
        column.addStretch(1)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:
            self.setMinimumHeight(self.sizeHint().height())
        return handled
