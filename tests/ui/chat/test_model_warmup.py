"""The model library made ready off the user's path in the real window: the tokenizer held only while a
message is written, the SDK prepared once things settle, and the status line while the library loads."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.chat import tokens
from desktop_app.ui.chat import model_warmup
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.turn_status import LOADING_LIBRARY, WAITING_FOR_PROVIDER
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.ui.chat_window import bubbles, run_app, until

pytestmark = LITELLM_WARNINGS


def test_the_tokenizer_is_held_only_while_a_message_is_written(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        meter = window.status_meter.context_label
        await until(
            lambda: meter.text().startswith("Context: catalog ") and not tokens._tokenizer.running,
            what="the tokenizer given back once the catalog is counted",
        )
        window.composer.editor.insertPlainText("H")
        await until(lambda: tokens._tokenizer.running, what="the tokenizer loaded as the user types")
        window.chat.warmup.idle_ms = 500
        measured: list[bool] = []
        window.chat.meter.context_changed.connect(lambda _prompt: measured.append(window.chat.busy))
        llm.queue(text("Hi.", delay=0.3))
        window.composer.send()
        window.chat.meter.refresh()  # a catalog changed as the turn builds its request: counted after it
        await until(lambda: window.chat.meter.put_off, what="the meter's count put off")
        await until(lambda: not window.chat.busy, what="the answer")
        assert bubbles(window, "assistant")[-1].text == "Hi."
        await until(lambda: bool(measured), what="the meter counted once the turn ended")
        assert measured == [False]
        assert tokens._tokenizer.running, "kept while the answer is read: a message typed soon after needs it"
        await until(
            lambda: not tokens._tokenizer.running, what="the tokenizer given back after a while with nothing typed"
        )

    run_app(qapp, tmp_path, llm, scenario)


def test_the_openai_sdk_is_prepared_once_the_catalog_settles_and_not_once_typing_began(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the preload itself imports is tested in a fresh interpreter (tests/core/chat/test_llm.py);
    # here, when the window asks for it.
    prepared: list[bool] = []

    def prepare() -> Coroutine[Any, Any, None]:
        prepared.append(window_typed[0])  # when asked for, not when the preparing task gets to run
        return asyncio.sleep(0)

    window_typed = [False]
    monkeypatch.setattr(model_warmup, "preload_openai_sdk", prepare)

    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        await until(lambda: prepared, what="the SDK prepared once the catalog was counted and settled")
        assert prepared == [False]
        window_typed[0] = True
        window.composer.editor.insertPlainText("H")  # typing loads the whole library instead
        await until(lambda: window.chat.warmup.requested, what="the library requested")
        window.chat.warmup.quiet_timer.timeout.emit()
        assert prepared == [False], "the SDK is asked for once, by the quiet timer before typing"

    run_app(qapp, tmp_path, llm, scenario)


def test_send_shows_at_once_what_the_first_turn_waits_for(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = asyncio.Event()

    async def loading() -> Any:  # the model library's first import, held until the test lets it end
        await library.wait()

    monkeypatch.setattr(model_warmup, "load_litellm", loading)

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


def test_the_library_begins_loading_on_the_first_key_itself(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message typed and sent in one burst (pasted, or sent the moment the window is on screen) gives the
    event loop no turn before the send: the import begins on the key, not on the loop's next turn after it."""
    begun = threading.Event()

    def ready() -> None:  # the library is loaded already in the tests: noted, not loaded again
        begun.set()

    monkeypatch.setattr(model_warmup, "ready_litellm", ready)

    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        window.composer.editor.insertPlainText("H")
        # No await since the key: the event loop has not turned, yet the import's thread has begun.
        assert window.chat.warmup.requested
        assert begun.wait(60), "the import's thread ran without the event loop turning"

    run_app(qapp, tmp_path, llm, scenario)
