"""Shared bits of the viewers' toolbars."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QToolButton


def tool_button(text: str, tip: str, slot: Callable[..., object]) -> QToolButton:
    """A flat toolbar button with a tooltip, wired to `slot`."""
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.clicked.connect(slot)
    return button
