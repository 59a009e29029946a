"""One label column for the forms of a page: several group boxes, each with its own form, read as one form
when their fields start at the same x (each form alone sizes its label column to its own longest label)."""

from __future__ import annotations

from typing import cast

from PySide6.QtWidgets import QFormLayout, QWidget

from desktop_app.qt_kit.layout_widgets import placed_widgets


def align_form_labels(page: QWidget) -> int:
    """Give every form label under `page` the width of the widest; that width."""
    labels = [
        widget
        for form in page.findChildren(QFormLayout)
        for _, widget in placed_widgets(form)
        if _role(form, widget) == QFormLayout.ItemRole.LabelRole
    ]
    widest = max((label.sizeHint().width() for label in labels), default=0)
    for label in labels:
        label.setMinimumWidth(widest)
    return widest


def _role(form: QFormLayout, widget: QWidget) -> QFormLayout.ItemRole:
    """Where `widget` sits in its row of `form` (PySide types the (row, role) pair as a plain object)."""
    return cast("tuple[int, QFormLayout.ItemRole]", form.getWidgetPosition(widget))[1]
