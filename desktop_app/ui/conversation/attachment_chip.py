"""A resource as a small chip: its kind's icon and name, the URI in the tooltip.

The same chip marks an attachment in the composer (removable) and in a sent "You" message;
clicking it opens the resource in the viewer.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.action_icon import MESSAGE_ICON, icon_only
from desktop_app.qt_kit.icons import kind_for, kind_icon
from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.plain_text import plain_label, set_plain_tooltip

MAX_NAME_WIDTH: Final = 240
"""Longer names are elided in the middle, so two similar names stay distinguishable."""


class AttachmentChip(QFrame):
    clicked = Signal(object)
    """ResourceRef: open this resource."""
    removed = Signal(object)
    """ResourceRef: the user pressed the remove button (its icon a cross) on a removable chip."""

    def __init__(self, ref: ResourceRef, *, removable: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ref = ref
        self.setObjectName("attachmentChip")
        themed(
            self,
            lambda p: (
                f"#attachmentChip {{ background: {p.raised}; border: 1px solid {p.border};"
                f" border-radius: {SPACE.radius + 2}px; }} QToolButton {{ border: none; padding: 0px; }}"
            ),
        )
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        set_plain_tooltip(
            self, f"{ref.name}\n{ref.uri} on {ref.server} ({ref.mime_type or 'unknown type'})\nClick to view"
        )
        icon = QLabel()
        icon.setPixmap(kind_icon(kind_for(ref.mime_type, ref.uri)).pixmap(16, 16))
        self.label = plain_label()
        self.label.setText(self.label.fontMetrics().elidedText(ref.name, Qt.TextElideMode.ElideMiddle, MAX_NAME_WIDTH))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 8 if not removable else 2, 2)
        layout.setSpacing(4)
        layout.addWidget(icon)
        layout.addWidget(self.label)
        self.remove_button: QToolButton | None = None
        if removable:
            self.remove_button = QToolButton()
            self.remove_button.setObjectName("chipRemove")
            icon_only(self.remove_button, "x", f"Remove {ref.name}", "Remove this attachment")
            self.remove_button.setIconSize(QSize(MESSAGE_ICON, MESSAGE_ICON))
            self.remove_button.setAutoRaise(True)  # the icon turns to the accent under the pointer
            self.remove_button.setCursor(Qt.CursorShape.ArrowCursor)
            self.remove_button.clicked.connect(lambda: self.removed.emit(self.ref))
            layout.addWidget(self.remove_button)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        event.accept()  # the release that follows is ours

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit(self.ref)
        event.accept()
