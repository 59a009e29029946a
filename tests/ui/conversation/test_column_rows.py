"""A row added or grown at the end of a long chat leaves the rows above it where they are."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.conversation_view import ConversationView
from tests.window_kit import on_screen

ANSWER = "An answer that wraps over a few lines of the column, as most answers do. " * 6


class Moves(QObject):
    """Counts the moves and resizes of the rows it watches."""

    def __init__(self, rows: Sequence[QWidget]) -> None:
        super().__init__()
        self.count = 0
        for row in rows:
            row.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        self.count += event.type() in (QEvent.Type.Move, QEvent.Type.Resize)
        return False


def settled(qtbot: QtBot, view: ConversationView) -> None:
    """Wait until the rows stop moving (a loaded machine lays them out later)."""
    shapes: list[list[tuple[int, int]]] = []

    def still() -> bool:
        shapes.append([(row.y(), row.height()) for row in view.messages()])
        return len(shapes) > 1 and shapes[-1] == shapes[-2]

    qtbot.wait(20)
    qtbot.waitUntil(still, timeout=10_000)


def test_rows_above_stay_put_when_one_is_added_or_grows(qtbot: QtBot) -> None:
    view = on_screen(qtbot, ConversationView(), 700, 500)
    for turn in range(8):
        view.add_message("user", f"Question {turn}")
        view.add_message("assistant", ANSWER)
        qtbot.wait(5)
    qtbot.waitUntil(lambda: view.verticalScrollBar().isVisible())
    view.add_message("user", "A question that settles the column's width")
    settled(qtbot, view)
    earlier = [bubble for bubble in view.messages() if bubble.isVisible()]
    assert len(earlier) == 17
    tops = [bubble.y() for bubble in earlier]
    moves = Moves(earlier)

    view.add_message("user", "One more question")
    QApplication.processEvents()
    answer = view.add_message("assistant", "A short start")
    QApplication.processEvents()
    answer.append(" " + ANSWER)  # a streamed answer grows a few lines at once
    answer.flush()
    QApplication.processEvents()

    assert answer.isVisible() and answer.height() > 60
    assert moves.count == 0, "rows above were squeezed and stretched back"
    assert [bubble.y() for bubble in earlier] == tops
