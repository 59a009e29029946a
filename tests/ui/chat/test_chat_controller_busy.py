"""The chat is busy until the window has shown a turn's end. The engine's task ends as soon as it has told
its last event, before the window has taken it: busy then would let a new message start while the old
turn's end is still to come, and leave a moment with no Retry, Regenerate or Edit."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import ChatEvent, TurnFinished
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.ui.chat_window import run_app, until

pytestmark = LITELLM_WARNINGS


def test_the_chat_is_busy_until_the_turns_end_is_shown_and_its_offers_are_there_when_it_says_so(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(text("Four."))
        at_the_end: list[tuple[bool, bool]] = []
        apply = window.conversation.apply

        def watching(event: ChatEvent) -> None:
            if isinstance(event, TurnFinished):
                turn = window.chat.turn
                at_the_end.append((turn is not None and turn.done, window.chat.busy))
            apply(event)

        window.conversation.apply = watching  # type: ignore[method-assign]
        told: list[tuple[bool, bool, list[str]]] = []

        def busy_told(busy: bool) -> None:
            answers = [b for b in window.conversation.messages() if b.role == "assistant"]
            told.append((busy, window.chat.busy, list(answers[-1].action_buttons) if answers else []))

        window.chat.busy_changed.connect(busy_told)
        qtbot.keyClicks(window.composer.editor, "What is 2+2?")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await until(lambda: told and not told[-1][0], what="the turn's end told")
        assert at_the_end == [(True, True)], "the engine's task was done; the chat busy while its end was shown"
        assert told == [(True, True, []), (False, False, ["Regenerate"])]

    run_app(qapp, tmp_path, llm, scenario)
