"""A sign of life the moment Send is pressed: the conversation says what the turn waits for (the model
library, the provider, a tool) and, past a second, for how long. Real clicks and keys in the real window."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.ui import chat_controller
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.turn_status import LOADING_LIBRARY, WAITING_FOR_PROVIDER, TurnStatus
from desktop_app.ui.main_window import MainWindow
from tests.llm_server import ScriptedLLM, ToolCall, calls, text
from tests.ui.test_main_window import run_app, until


def test_the_line_names_each_wait_and_counts_seconds_past_one(qtbot: QtBot) -> None:
    now = [100.0]
    status = TurnStatus(clock=lambda: now[0])
    qtbot.addWidget(status)
    status.wait_for(WAITING_FOR_PROVIDER)
    assert status.isVisibleTo(status.parentWidget() or status) and status.text() == WAITING_FOR_PROVIDER
    now[0] += 2.4
    status._show()
    assert status.text() == "Waiting for the provider… 2 s"


def test_send_shows_at_once_what_the_first_turn_waits_for(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = asyncio.Event()

    async def loading() -> Any:  # the model library's first import, held until the test lets it end
        await library.wait()

    monkeypatch.setattr(chat_controller, "load_litellm", loading)

    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        status = window.conversation.turn_status
        llm.queue(text("never", hang_after=0), calls(ToolCall("fx__slow", {"seconds": 3600}, id="call-1")))
        qtbot.keyClicks(window.composer.editor, "Hello")  # typing starts loading the library
        qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        assert status.isVisible() and status.text() == LOADING_LIBRARY, "shown by the click itself"
        library.set()
        await until(lambda: status.text() == WAITING_FOR_PROVIDER, what="the library loaded")
        await until(lambda: re.fullmatch(r"Waiting for the provider… \d+ s", status.text()), what="its seconds")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)
        await until(lambda: not window.chat.busy, what="the stop")
        assert not status.isVisible()

        qtbot.keyClicks(window.composer.editor, "Take your time")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        assert status.isVisible() and status.text() == WAITING_FOR_PROVIDER
        await until(lambda: window.asker.pending and window.asker.pending[0].isVisible(), what="the call's approval")
        await until(lambda: not status.isVisible(), what="the card asks: no other line competes with it")
        [approval] = window.asker.pending
        assert isinstance(approval, ApprovalPanel)
        qtbot.mouseClick(approval.allow_once, Qt.MouseButton.LeftButton)
        await until(lambda: status.isVisible() and status.text().startswith("Calling slow on fx…"), what="the call")
        window.grab().save(str(tmp_path / "calling-a-tool.png"))
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)
        await until(lambda: not window.chat.busy, what="the stop")
        assert not status.isVisible()

    run_app(qapp, tmp_path, llm, scenario)
