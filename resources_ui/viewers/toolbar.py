"""Shared bits of the viewers' toolbars."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from desktop_app.qt_kit.action_icon import give_icon


def tool_button(text: str, tip: str, slot: Callable[..., object]) -> QToolButton:
    """A flat toolbar button with a tooltip, wired to `slot`."""
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.clicked.connect(slot)
    return button


def beside_icon(button: QToolButton, name: str) -> QToolButton:
    """Draw the action icon `name` before `button`'s text (a tool button shows only its icon otherwise)."""
    give_icon(button, name)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    return button
