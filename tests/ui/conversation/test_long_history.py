"""A long chat reopened: its last screen at once, scrolled to the end; the older turns drawn above in slices."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import Replaced, ToolCallStarted, ToolResult, event_to_dict
from desktop_app.ui.conversation.conversation_view import LAST_SCREEN, ConversationView
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.tool_card import ToolCard

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


def texts(view: ConversationView) -> list[str]:
    return [b.text for b in view.messages()]


def test_a_long_chat_shows_its_last_screen_first_then_draws_the_older_turns_above(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    qtbot.waitExposed(view)
    messages, events = long_chat()
    drawn: list[bool] = []
    view.history_drawn.connect(lambda: drawn.append(True))
    bar = view.verticalScrollBar()
    first_paint: list[tuple[int, int]] = []
    PaintProbe(view.widget(), lambda: first_paint.append((bar.value(), bar.maximum())))
    view.show_history(messages, events)
    view._older_timer.start(60_000)  # older turns held back while the last screen is checked
    # At once: the last turns, in order, scrolled to the end; not the whole chat.
    shown = texts(view)
    assert shown[-2:] == [f"Question {TURNS - 1}", f"Answer {TURNS - 1}"]
    assert LAST_SCREEN // 2 <= len(shown) < LAST_SCREEN
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bool(first_paint))
    assert first_paint[0][1] > 0 and first_paint[0][0] == first_paint[0][1]  # its first paint is at the end

    # The user scrolls up a little while older turns come in above: what they read stays put.
    QApplication.processEvents()  # the view is painted and idle: the older turns still held back
    assert len(texts(view)) == len(shown) and not drawn
    bar.setValue(bar.maximum() - 200)
    height = bar.maximum()
    view._older_timer.start(1)
    qtbot.waitUntil(lambda: bool(drawn), timeout=60_000)
    assert bar.maximum() > height and bar.maximum() - bar.value() == 200
    # Then the whole chat, in its order: each turn's question, its call's card, its answer.
    expected = []
    for turn in range(TURNS):
        expected += [*(["The first answer to 3"] if turn == 3 else []), f"Question {turn}", f"Answer {turn}"]
    assert texts(view) == expected
    assert len(view.findChildren(MessageBubble)) == len(expected)
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
