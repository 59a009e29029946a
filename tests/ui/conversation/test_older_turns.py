"""A live chat of a hundred turns stays as light as one of twenty: its oldest turns are folded out while the
user follows, and drawn again from the stored chat when they scroll up, without what is on screen moving."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.events import TextDelta, ToolCallStarted, ToolResult, TurnFinished, event_to_dict
from desktop_app.ui.conversation import older_turns
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.older_turns import DRAWN_TURNS
from desktop_app.ui.conversation.tool_card import ToolCard
from tests.ui.conversation.scrolling import scroll_to_the_very_top, texts, wheel_up

TURNS = 100


def live_turn(view: ConversationView, chat: Conversation, number: int) -> None:
    """One turn as the chat controller and the engine run it: a question, a tool call, a streamed answer;
    the conversation keeps the messages and events as the engine does."""
    position = len(chat.messages)
    view.add_user_message(f"Question {number}", position=position)
    chat.append({"role": "user", "content": f"Question {number}"})
    call = {"id": f"c{number}", "function": {"name": "demo__get_time", "arguments": "{}"}}
    chat.append({"role": "assistant", "tool_calls": [call]})
    started = ToolCallStarted(f"c{number}", "demo__get_time", {}, "demo", "get_time")
    chat.record(event_to_dict(started))
    view.apply(started)
    result = ToolResult(f"c{number}", "demo__get_time", f"noon {number}")
    chat.record(event_to_dict(replace(result, text="")))
    view.apply(result)
    chat.append({"role": "tool", "tool_call_id": f"c{number}", "content": f"noon {number}"})
    for word in f"Answer {number}".split(" "):
        view.apply(TextDelta(word if word == "Answer" else f" {word}"))
    chat.append({"role": "assistant", "content": f"Answer {number}"})
    view.apply(TurnFinished("done", f"Answer {number}", 2))


def live_chat(qtbot: QtBot) -> tuple[ConversationView, Conversation]:
    """A conversation view on screen, drawing older turns from its chat as the chat controller has it."""
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(900, 640)
    view.show()
    qtbot.waitExposed(view)
    chat = Conversation.start()
    view.older.source = lambda: (chat.messages, chat.events)
    return view, chat


def test_a_long_live_chat_keeps_its_widgets_bounded_and_draws_every_turn_again_when_scrolled_up(
    qtbot: QtBot,
) -> None:
    view, chat = live_chat(qtbot)
    inner = view.widget()
    counts = {}
    for number in range(TURNS):
        live_turn(view, chat, number)
        qtbot.waitUntil(
            lambda: len(view.older.turns) <= DRAWN_TURNS, timeout=60_000
        )  # folded at once, the user following
        if number + 1 in (DRAWN_TURNS + 10, TURNS):
            qtbot.waitUntil(
                lambda: len(inner.findChildren(ToolCard)) == DRAWN_TURNS, timeout=60_000
            )  # deleted, not only hidden
            counts[number + 1] = len(inner.findChildren(QWidget))
    assert counts[TURNS] == counts[DRAWN_TURNS + 10]  # as many widgets at turn 100 as at turn 30
    assert texts(view)[-2:] == [f"Question {TURNS - 1}", f"Answer {TURNS - 1}"]
    assert view.older.folded_to == 4 * (TURNS - DRAWN_TURNS)
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum()

    # Edit on the last message works as before.
    edits: list[bool] = []
    view.offer_actions(len(chat.messages) - 4, edit=lambda: edits.append(True), again=lambda: None)
    last_question = view.messages()[-2]
    qtbot.mouseClick(last_question.action_buttons["Edit"], Qt.MouseButton.LeftButton)
    assert edits == [True]
    assert "Regenerate" in view.messages()[-1].action_buttons

    # Up to the top of what is drawn: the turns above come in, and the screen shows exactly what it did.
    bar.setValue(0)
    before = view.viewport().grab().toImage()
    top = inner.childAt(QPoint(20, 20))
    qtbot.waitUntil(lambda: view.older.folded_to < 4 * (TURNS - DRAWN_TURNS), timeout=60_000)
    # Slices are drawn until a screen of them is above what is read, each laid out between paints.
    screen = view.viewport().height()
    qtbot.waitUntil(lambda: bar.value() >= screen and not view.older.drawing, timeout=10_000)
    QApplication.processEvents()  # laid out
    assert inner.childAt(QPoint(20, bar.value() + 20)) is top
    after = view.viewport().grab().toImage()
    below_margin = before.rect().adjusted(0, 12, 0, 0)  # the column's top margin shows the turn drawn above
    assert after.copy(below_margin) == before.copy(below_margin)

    # On to the very first message with the wheel: the whole chat, in order, each answer under its call.
    scroll_to_the_very_top(qtbot, view)
    assert texts(view) == [t for n in range(TURNS) for t in (f"Question {n}", f"Answer {n}")]
    assert len(inner.findChildren(MessageBubble)) == 2 * TURNS
    cards = sorted(inner.findChildren(ToolCard), key=view._layout.indexOf)
    assert [c.call_id for c in cards] == [f"c{n}" for n in range(TURNS)]
    assert view.card("c0") is not None and view.card("c0").state.name == "DONE"
    first = view.messages()[0]
    assert first.text == "Question 0" and first.mapTo(view.viewport(), QPoint(0, 0)).y() >= 0

    # Back down and on with the chat: the turns scrolled to are folded out again once the user follows.
    bar.setValue(bar.maximum())
    live_turn(view, chat, TURNS)
    qtbot.waitUntil(lambda: len(inner.findChildren(ToolCard)) == DRAWN_TURNS, timeout=60_000)
    assert texts(view)[-2:] == [f"Question {TURNS}", f"Answer {TURNS}"]
    wheel_up(view)
    assert bar.value() < bar.maximum()


def test_a_fold_that_leaves_less_than_a_screen_is_not_undone_and_the_wheel_still_draws_the_turns_above(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folding out the oldest turns can leave a column shorter than the screen, at its top: that is not the user
    scrolling up, so the folded turns stay out (they came back at once, and the next fold went the same way)."""
    monkeypatch.setattr(older_turns, "DRAWN_TURNS", 2)
    view, chat = live_chat(qtbot)
    bar = view.verticalScrollBar()
    live_turn(view, chat, 0)
    view.add_message("info", "\n\n".join(f"Line {n}" for n in range(60)))  # a tall first turn
    for number in range(1, 4):
        live_turn(view, chat, number)
        QApplication.processEvents()
    qtbot.waitUntil(lambda: view.older.folded_to == 8, timeout=60_000)
    qtbot.waitUntil(lambda: bar.maximum() == 0, timeout=60_000)  # what is left fits the screen
    qtbot.wait(200)
    assert view.older.folded_to == 8 and texts(view)[0] == "Question 2"

    while (folded := view.older.folded_to) > 0:  # the user asks for what is above: a notch a slice
        wheel_up(view)
        qtbot.waitUntil(lambda: view.older.folded_to < folded, timeout=60_000)
    assert texts(view)[0] == "Question 0"
