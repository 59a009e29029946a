"""Retry after a provider error, Regenerate an answer, Edit the last message and send it again, in the real
window with real clicks and keys: the model reads only the new turn, and the history keeps what was sent
before, marked replaced (also once the chat is reopened)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.conversations import Conversation
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.turn_offers import REPLACED
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import ScriptedLLM, failure, text
from tests.ui.chat_window import run_app, shown, until


def bubbles(window: MainWindow) -> list[tuple[str, str, bool]]:
    """(role, text, still current) of each message on screen, in order."""
    inner = window.conversation.widget()
    found = sorted(shown(window, MessageBubble), key=lambda b: b.mapTo(inner, b.rect().topLeft()).y())
    return [(b.role, b.text, b.isEnabled()) for b in found]


def sent(llm: ScriptedLLM) -> list[str]:
    """What the model read in the last request, after the system prompt."""
    return [str(m["content"]) for m in llm.requests[-1].body["messages"][1:]]


def button(window: MainWindow, role: str, label: str) -> object:
    [bubble] = [b for b in shown(window, MessageBubble) if b.role == role and label in b.action_buttons]
    return bubble.action_buttons[label]


@pytest.mark.stdio
def test_retry_regenerate_and_edit_keep_the_transcript_honest(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        # The provider is overloaded (the SDK's own retries get the same answer).
        llm.queue(*(failure(503, "overloaded") for _ in range(3)), text("It is 4."))
        qtbot.keyClicks(window.composer.editor, "What is 2+2?")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await until(lambda: not window.chat.busy, what="the failed turn")
        [(_, error, _)] = [b for b in bubbles(window) if b[0] == "notice"]
        assert "HTTP 503" in error
        qtbot.mouseClick(button(window, "notice", "Retry"), Qt.MouseButton.LeftButton)
        await until(lambda: not window.chat.busy and ("assistant", "It is 4.", True) in bubbles(window), what="retry")
        assert sent(llm) == ["What is 2+2?"], "the question once: the failed try is not read again"
        assert bubbles(window) == [
            ("user", "What is 2+2?", False),
            ("notice", error, False),
            ("user", "What is 2+2?", True),
            ("assistant", "It is 4.", True),
        ]
        notes = [w.text() for w in shown(window, QLabel) if w.objectName() == "replacedNote"]
        assert notes == [REPLACED["retry"]]

        llm.queue(text("Four."))
        qtbot.mouseClick(button(window, "assistant", "Regenerate"), Qt.MouseButton.LeftButton)
        await until(lambda: not window.chat.busy and ("assistant", "Four.", True) in bubbles(window), what="again")
        assert sent(llm) == ["What is 2+2?"], "the model does not read the answer it replaces"
        assert ("assistant", "It is 4.", False) in bubbles(window)

        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Up)  # edit the last message
        assert window.composer.editing and window.composer.editor.toPlainText() == "What is 2+2?"
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)
        assert not window.composer.editing and window.composer.editor.toPlainText() == "", "Esc stops editing"
        qtbot.mouseClick(button(window, "user", "Edit"), Qt.MouseButton.LeftButton)
        assert window.composer.editing
        window.composer.editor.selectAll()
        qtbot.keyClicks(window.composer.editor, "What is 3+3?")
        llm.queue(text("It is 6."))
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await until(lambda: not window.chat.busy and ("assistant", "It is 6.", True) in bubbles(window), what="edit")
        assert sent(llm) == ["What is 3+3?"]
        current = [(role, body) for role, body, live in bubbles(window) if live]
        assert current == [("user", "What is 3+3?"), ("assistant", "It is 6.")]
        window.grab().save(str(tmp_path / "replaced.png"))

        stored = Conversation.resume(window.chat.store, window.chat.conversation.id)
        assert [m["content"] for m in stored.messages] == ["What is 3+3?", "It is 6."]
        assert [e["reason"] for _, e in stored.events if e["type"] == "Replaced"] == ["retry", "regenerate", "edit"]

        chat_id = window.chat.conversation.id
        on_screen = bubbles(window)
        window.menu_actions.new_chat.trigger()
        rows = window.history.list
        [row] = [rows.item(i) for i in range(rows.count()) if rows.item(i).data(Qt.ItemDataRole.UserRole) == chat_id]
        qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=rows.visualItemRect(row).center())
        await until(lambda: bubbles(window) == on_screen, what="reopened, what was replaced shows as it was")
        assert "Regenerate" in [b for b in shown(window, MessageBubble) if b.isEnabled()][-1].action_buttons

        # Find in history: the key, then what was written, even what was replaced.
        window.activateWindow()
        await until(lambda: QApplication.activeWindow() is window, what="the window active")
        modifiers = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_H, modifiers)
        assert window.history_dock.isVisible() and window.focusWidget() is window.history.find_field
        qtbot.keyClicks(window.history.find_field, "2+2")

        def found() -> list[str]:
            return [rows.item(i).text() for i in range(rows.count()) if rows.item(i).data(Qt.ItemDataRole.UserRole)]

        await until(lambda: found() == ["What is 2+2?"], what="the chat found by its title", seen=lambda: str(found()))
        window.history.find_field.selectAll()
        qtbot.keyClicks(window.history.find_field, "3+3")
        by_text = ["What is 2+2?\n    What is 3+3?"]
        await until(lambda: found() == by_text, what="the chat found by its text", seen=lambda: str(found()))

    run_app(qapp, tmp_path, llm, scenario)
