"""One label column for the forms of a page: several group boxes, each with its own form, read as one form
when their fields start at the same x (each form alone sizes its label column to its own longest label)."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QWidget


def align_form_labels(page: QWidget) -> int:
    """Give every form label under `page` the width of the widest; that width."""
    labels = [
        label
        for form in page.findChildren(QFormLayout)
        for row in range(form.rowCount())
        if (item := form.itemAt(row, QFormLayout.ItemRole.LabelRole)) is not None
        and (label := item.widget()) is not None
    ]
    widest = max((label.sizeHint().width() for label in labels), default=0)
    for label in labels:
        label.setMinimumWidth(widest)
    return widest
