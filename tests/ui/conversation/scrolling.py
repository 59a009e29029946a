"""Scrolling a conversation as a user does (the mouse wheel over the messages), and what it shows."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.conversation_view import ConversationView


def texts(view: ConversationView) -> list[str]:
    return [b.text for b in view.messages()]


def wheel_up(view: ConversationView) -> None:
    """One notch of the mouse wheel up, over the messages."""
    centre = QPointF(view.viewport().rect().center())
    notch = QWheelEvent(
        centre,
        QPointF(view.viewport().mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), notch)


def scroll_to_the_very_top(qtbot: QtBot, view: ConversationView) -> int:
    """Wheel up until the chat's first message is drawn and at the top; the notches it took."""
    bar, notches = view.verticalScrollBar(), 0
    while bar.value() > 0 or view.older.folded_to > 0:
        wheel_up(view)
        notches += 1
        qtbot.waitUntil(lambda: not view.older.drawing, timeout=60_000)
        assert notches < 5_000
    return notches
