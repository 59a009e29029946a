"""The empty conversation's "Choose a model" card in the real window: a provider opens its settings, and a
model server found on this computer (a scripted one on a free 127.0.0.1 port) is used in one click."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import load_settings
from desktop_app.core.model.local_servers import LocalKind
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.paths import history_path
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.model_chooser import NONE_FOUND
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.local_http import free_port
from tests.ui.chat_window import run_fixture_window, until

pytestmark = LITELLM_WARNINGS


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")
def test_a_model_is_chosen_from_the_empty_conversation(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow) -> None:
        card = window.model_choice.card
        assert card is not None and card.isVisible(), "no model yet: the empty conversation offers the card"
        assert window.chat.store.path == history_path(tmp_path / "servers.json"), "this configuration's own history"
        await until(lambda: card.look_again.isEnabled(), what="the first look at this computer's ports")

        qtbot.mouseClick(card.providers["anthropic"], Qt.MouseButton.LeftButton)
        await until(lambda: window.findChildren(SettingsDialog), what="the settings")
        [dialog] = window.findChildren(SettingsDialog)
        assert dialog.preset().id == "anthropic" and dialog.focusWidget() is dialog.key, "its key is needed first"
        dialog.reject()

        window.model_choice.kinds = [LocalKind("vLLM", free_port(), "openai")]
        qtbot.mouseClick(card.look_again, Qt.MouseButton.LeftButton)
        await until(lambda: card.status.text() == NONE_FOUND, what="nothing running there")
        assert card.found == []

        window.model_choice.kinds = [LocalKind("Ollama", free_port(), "ollama"), LocalKind("vLLM", llm.port, "openai")]
        qtbot.mouseClick(card.look_again, Qt.MouseButton.LeftButton)
        await until(lambda: card.found, what="the scripted server found")
        [row] = card.found
        window.resize(1024, 640)
        window.grab().save(str(tmp_path / "model-chooser-1024x640.png"))  # looked at when the card changes
        assert row.server.address == f"127.0.0.1:{llm.port}"
        assert [row.models.itemText(i) for i in range(row.models.count())] == ["scripted", "scripted-large"]
        qtbot.mouseClick(row.use, Qt.MouseButton.LeftButton)  # the one click

        chosen = ModelSettings("openai/scripted", api_base=llm.url)
        assert window.chat.settings.model == chosen and window.chat.settings.provider == "compatible"
        assert load_settings(tmp_path / "settings.json").settings.model == chosen, "kept for the next start"
        assert window.status_meter.model_label.text() == "Model: openai/scripted"
        assert window.model_choice.card is None and not card.isVisible()
        assert window.focusWidget() is window.composer.editor

        llm.queue(text("Hello from this computer."))
        qtbot.keyClicks(window.composer.editor, "Hi")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await until(lambda: not window.chat.busy and llm.requests, what="the answer")
        answers = [b for b in window.conversation.findChildren(MessageBubble) if b.role == "assistant"]
        assert [b.text for b in answers] == ["Hello from this computer."]
        assert llm.requests[0].body["model"] == "scripted"

        window.menu_actions.new_chat.trigger()
        assert window.model_choice.card is None, "a model is chosen: a new chat offers no card"

    run_fixture_window(qapp, tmp_path, scenario)
