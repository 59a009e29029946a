"""Sending a message goes to the end of the conversation and follows the turn, wherever the user was."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.conversation_view import ConversationView


def test_following_again_after_reading_further_up(qapp: QApplication, qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    for number in range(30):
        view.add_user_message(f"Question {number}")
        view.add_message("assistant", f"Answer {number}.\n\n" + "A line of the answer. " * 20)
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(0)  # the user scrolls up to read
    assert not view.following
    view.add_message("assistant", "More streamed text while they read.")
    qapp.processEvents()
    assert bar.value() == 0, "what they read stays put"
    view.follow()  # they send a message
    view.add_user_message("And now?")
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    assert view.following
    view.add_message("assistant", "The new answer, followed as it grows. " * 30)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())


def test_the_scroll_bar_comes_when_needed_then_stays_until_a_new_chat(qapp: QApplication, qtbot: QtBot) -> None:
    """Once there, the bar stays: the column keeps one width, and a turn's end lays out the drawn turns once."""
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    bar = view.verticalScrollBar()
    view.add_user_message("A short question")
    qapp.processEvents()
    assert not bar.isVisible()  # an empty or short chat has no bar
    view.add_message("assistant", "A line of the answer. " * 200)
    qtbot.waitUntil(bar.isVisible)
    width = view.viewport().width()
    view.clear_actions()
    for bubble in view.messages()[1:]:
        bubble.hide()  # what is drawn fits the screen again
    qtbot.waitUntil(lambda: bar.maximum() == 0)
    assert bar.isVisible() and view.viewport().width() == width
    view.clear()  # a new chat
    qtbot.waitUntil(lambda: not bar.isVisible())
