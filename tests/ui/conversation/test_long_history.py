"""A long chat reopened: its last screen at once, scrolled to the end; older turns drawn above as it is scrolled up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import Replaced, ToolCallStarted, ToolResult, event_to_dict
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.older_turns import DRAWN_TURNS, LAST_SCREEN, OLDER_SLICE
from desktop_app.ui.conversation.tool_card import ToolCard
from tests.ui.conversation.scrolling import scroll_to_the_very_top, texts
from tests.window_kit import on_screen

TURNS = 150


def long_chat() -> tuple[list[dict[str, Any]], list[tuple[int, dict[str, Any]]]]:
    """TURNS turns of a question, a tool call and its answer; an answer replaced before turn 3."""
    messages: list[dict[str, Any]] = []
    events: list[tuple[int, dict[str, Any]]] = []
    for turn in range(TURNS):
        call = {"id": f"c{turn}", "function": {"name": "demo__get_time", "arguments": "{}"}}
        start = len(messages)
        if turn == 3:
            replaced = Replaced("regenerate", ({"role": "assistant", "content": "The first answer to 3"},))
            events.append((start, event_to_dict(replaced)))
        messages += [
            {"role": "user", "content": f"Question {turn}"},
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": f"noon {turn}"},
            {"role": "assistant", "content": f"Answer {turn}"},
        ]
        events.append((start + 2, event_to_dict(ToolCallStarted(f"c{turn}", "demo__get_time", {}, "demo", "get_time"))))
        events.append((start + 3, event_to_dict(ToolResult(f"c{turn}", "demo__get_time", ""))))
    return messages, events


class PaintProbe(QObject):
    """Calls `seen` at `widget`'s paints."""

    def __init__(self, widget: QWidget, seen: Callable[[], object]) -> None:
        super().__init__(widget)
        self._seen = seen
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self._seen()
        return False


def expected_texts() -> list[str]:
    expected = []
    for turn in range(TURNS):
        expected += [*(["The first answer to 3"] if turn == 3 else []), f"Question {turn}", f"Answer {turn}"]
    return expected


def row_at_top(column: QWidget, y: int) -> QWidget:
    """The conversation's row (a message, a card) at the top of the screen `y`, or the first below it when `y`
    falls in the spacing between two rows: the one whose place on screen is kept while turns come in above."""
    for below in range(y, y + 200):
        if (widget := column.childAt(QPoint(40, below))) is not None:
            while widget.parentWidget() is not column:
                widget = widget.parentWidget()
            return widget
    raise AssertionError(f"no row within 200 px below y={y}")


def test_a_long_chat_shows_its_last_screen_first_then_draws_older_turns_as_it_is_scrolled_up(qtbot: QtBot) -> None:
    view = on_screen(qtbot, ConversationView(), 800, 600)
    messages, events = long_chat()
    drawn: list[bool] = []
    view.history_drawn.connect(lambda: drawn.append(True))
    bar = view.verticalScrollBar()
    first_paint: list[tuple[int, int]] = []
    PaintProbe(view.widget(), lambda: first_paint.append((bar.value(), bar.maximum())))
    view.show_history(messages, events)
    # At once: the last turns, in order, scrolled to the end; not the whole chat.
    shown = texts(view)
    assert shown[-2:] == [f"Question {TURNS - 1}", f"Answer {TURNS - 1}"]
    assert LAST_SCREEN // 2 <= len(shown) < LAST_SCREEN
    qtbot.waitUntil(lambda: bool(first_paint), timeout=60_000)
    assert first_paint[0][1] > 0 and first_paint[0][0] == first_paint[0][1]  # its first paint is at the end

    # Between paints, older turns come in above, up to the turns a chat keeps drawn; the user, scrolled up a
    # little meanwhile, keeps reading the same lines.
    bar.setValue(bar.maximum() - 200)
    QApplication.processEvents()  # laid out at that place
    reading = row_at_top(view.widget(), bar.value())  # what the user reads at the top
    reading_at = reading.mapTo(view.viewport(), QPoint(0, 0))
    qtbot.waitUntil(lambda: bool(drawn), timeout=60_000)
    drawn_turns = len(view.older.turns)
    assert DRAWN_TURNS <= drawn_turns < DRAWN_TURNS + OLDER_SLICE and view.older.folded_to > 0
    qtbot.waitUntil(lambda: reading.mapTo(view.viewport(), QPoint(0, 0)) == reading_at, timeout=60_000)  # laid out
    assert len(view.findChildren(ToolCard)) == drawn_turns  # not the whole chat's widgets

    # Wheeling up draws the rest, a span at a time, until the chat's first message is at the top.
    scroll_to_the_very_top(qtbot, view)
    assert texts(view) == expected_texts()
    assert len(view.findChildren(MessageBubble)) == len(expected_texts())
    layout = view._layout
    order = [layout.indexOf(b) for b in view.messages()]
    assert order == sorted(order)
    cards = {c.call_id: layout.indexOf(c) for c in view.findChildren(ToolCard)}
    assert len(cards) == TURNS
    questions = {b.text: layout.indexOf(b) for b in view.messages() if b.role == "user"}
    assert all(questions[f"Question {t}"] < cards[f"c{t}"] for t in range(TURNS))
    # The replaced answer in an early turn is greyed where it was, with its note.
    [note] = [w for w in view.findChildren(QLabel) if w.objectName() == "replacedNote"]
    first_answer = next(b for b in view.messages() if b.text == "The first answer to 3")
    assert layout.indexOf(note) + 1 == layout.indexOf(first_answer) < questions["Question 3"]
