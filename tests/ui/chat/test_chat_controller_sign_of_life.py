"""The turn's status line follows the engine's own events: it names the provider when the engine asks
the model (first, and again after the round's tool results), a tool while it runs, and gives way to an
approval card. Real clicks in the real window, a scripted provider and the fixture server."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import ModelCallStarted, ToolResult
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.turn_status import LOADING_LIBRARY, WAITING_FOR_PROVIDER
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.ui.chat_window import run_app, until

pytestmark = LITELLM_WARNINGS


def test_the_line_says_the_provider_exactly_when_the_engine_asks_the_model(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        status = window.conversation.turn_status
        llm.queue(calls(ToolCall("fx__echo", {"text": "hi"}, id="call-echo")), text("never", hang_after=0))
        qtbot.keyClicks(window.composer.editor, "Echo hi")
        qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        assert status.isVisible() and status.text() in (LOADING_LIBRARY, WAITING_FOR_PROVIDER), "shown at once"
        await until(lambda: window.asker.pending and window.asker.pending[0].isVisible(), what="the approval")
        await until(lambda: not status.isVisible(), what="the card asks: the line gives way")
        [approval] = window.asker.pending
        assert isinstance(approval, ApprovalPanel)
        qtbot.mouseClick(approval.allow_once, Qt.MouseButton.LeftButton)

        turn = window.chat.turn
        assert turn is not None
        await until(lambda: [e for e in turn.events if isinstance(e, ModelCallStarted)][1:], what="the second request")
        await until(lambda: status.isVisible() and status.text().startswith(WAITING_FOR_PROVIDER), what="the line")
        results = [i for i, e in enumerate(turn.events) if isinstance(e, ToolResult)]
        asks = [i for i, e in enumerate(turn.events) if isinstance(e, ModelCallStarted)]
        assert len(results) == 1 and asks == [asks[0], results[0] + 1], "asked again right after the round's result"
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)
        await until(lambda: not window.chat.busy, what="the stop")
        assert not status.isVisible()

    run_app(qapp, tmp_path, llm, scenario)
