"""A message box that tells the user something without blocking the event loop."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def show_notice(parent: QWidget, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning) -> QMessageBox:
    """A non-modal box over `parent`, deleted once closed."""
    box = QMessageBox(icon, "MCP Desk", text, parent=parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setModal(False)
    box.show()
    return box
