"""The settings page: presets, the key into the secret store, local servers' models, rule revocation."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.chat.approval import AlwaysAllowRules
from desktop_app.core.model.providers import (
    PROVIDERS_BY_ID,
    compatible_models,
    key_secret_name,
    ollama_models,
    provider_for_model,
)
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.secret_store import open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.ui.settings.settings_dialog import SCREEN_SHARE, SettingsDialog
from tests.hosting import eventually
from tests.llm_server import ScriptedLLM
from tests.window_kit import run_in_qt


@pytest.fixture
def fake_ollama() -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 answering Ollama's model list."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"models": [{"name": "qwen3:8b"}, {"name": "llama3.2:3b"}]}).encode()
            self.send_response(200 if self.path == "/api/tags" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def shown(qtbot: QtBot, dialog: SettingsDialog) -> SettingsDialog:
    """The dialog on screen, as the window opens it."""
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def click_save(qtbot: QtBot, dialog: SettingsDialog) -> None:
    buttons = dialog.findChild(QDialogButtonBox)
    assert buttons is not None
    qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)


def test_key_goes_to_the_store_and_the_model_gets_its_prefix(qtbot: QtBot, tmp_path: Path) -> None:
    secrets = open_secret_store(tmp_path, prefer="plaintext-file")
    dialog = shown(qtbot, SettingsDialog(AppSettings(), secrets, None))
    dialog.provider.setCurrentIndex(dialog.provider.findData("anthropic"))
    dialog.model.setCurrentText("claude-sonnet-4-5")
    dialog.key.setText("sk-ant-secret")
    dialog.model_box.max_tokens.setValue(1024)
    dialog.pdf_text.setChecked(True)
    saved: list[AppSettings] = []
    dialog.saved.connect(saved.append)
    assert "NOT encrypted" in dialog.model_box.key_note.text()
    # With the long note shown, no row is squashed below its own height.
    for field in (dialog.provider, dialog.model, dialog.model_box.api_base, dialog.key, dialog.rules_list):
        assert field.height() >= field.minimumSizeHint().height()
    click_save(qtbot, dialog)
    [settings] = saved
    assert not dialog.isVisible(), "saved, the dialog closes"
    assert settings.model == ModelSettings(
        "anthropic/claude-sonnet-4-5", api_key_secret=key_secret_name(PROVIDERS_BY_ID["anthropic"]), max_tokens=1024
    )
    assert settings.chat.pdf_text and settings.provider == "anthropic"
    assert secrets.get("LLM_API_KEY_ANTHROPIC") == "sk-ant-secret"

    again = shown(qtbot, SettingsDialog(settings, secrets, None))
    assert again.model.currentText() == "claude-sonnet-4-5"
    assert again.key.text() == "" and "stored" in again.key.placeholderText()
    qtbot.mouseClick(again.model_box.clear_key, Qt.MouseButton.LeftButton)
    assert secrets.get("LLM_API_KEY_ANTHROPIC") is None
    assert not again.model_box.clear_key.isEnabled() and "stored" not in again.key.placeholderText()


def test_compatible_server_needs_a_base_url(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = shown(qtbot, SettingsDialog(AppSettings(), None, None))
    dialog.provider.setCurrentIndex(dialog.provider.findData("compatible"))
    dialog.model_box.api_base.clear()
    dialog.model.setCurrentText("my-model")
    click_save(qtbot, dialog)
    assert "base URL" in dialog.error.text() and dialog.isVisible()
    assert provider_for_model("hosted_vllm/x").id == "compatible"
    assert provider_for_model("gemini/gemini-2.5-pro").id == "gemini"


def test_sign_in_client_document_must_be_https_with_a_path(qtbot: QtBot) -> None:
    document = "https://desk.example/oauth/client.json"
    settings = AppSettings(ModelSettings("openai/gpt-4o-mini"), client_metadata_url=document)
    dialog = shown(qtbot, SettingsDialog(settings, None, None))
    assert dialog.client_document.text() == document
    dialog.client_document.setText("http://desk.example/")
    click_save(qtbot, dialog)
    assert "Sign-in client document" in dialog.error.text() and dialog.isVisible()
    dialog.client_document.setText(document + " ")
    assert dialog.build().client_metadata_url == document


def test_ollama_models_are_listed(qapp: QApplication, qtbot: QtBot, fake_ollama: str) -> None:
    async def scenario() -> None:
        assert await ollama_models(fake_ollama) == ["llama3.2:3b", "qwen3:8b"]
        assert await ollama_models("http://127.0.0.1:9") == []
        nobody = AppSettings(ModelSettings("ollama/gone", api_base="http://127.0.0.1:9"), provider="ollama")
        dialog = shown(qtbot, SettingsDialog(nobody, None, None))
        saved: list[AppSettings] = []
        dialog.saved.connect(saved.append)
        await eventually(dialog.model_box.models_note.isVisible, timeout=60, what="the note that nothing was listed")
        assert dialog.model_box.models_note.text().startswith("Ollama did not list any models at this address")
        dialog.model_box.api_base.clear()
        dialog.activateWindow()
        dialog.model_box.api_base.setFocus()
        qtbot.keyClicks(dialog.model_box.api_base, fake_ollama)
        qtbot.keyClick(dialog.model_box.api_base, Qt.Key.Key_Tab)  # the address is finished: its models are asked for

        def listed() -> list[str]:
            return [dialog.model.itemText(i) for i in range(dialog.model.count())]

        await eventually(
            lambda: listed() == ["llama3.2:3b", "qwen3:8b"],
            timeout=60,
            what="Ollama's models",
            seen=lambda: str(listed()),
        )
        assert not dialog.model_box.models_note.isVisible(), "the list filled: the note that it was empty is gone"
        assert "did not list" not in dialog.model_box.key_note.text()
        dialog.model.setCurrentIndex(0)
        click_save(qtbot, dialog)
        assert [s.model for s in saved] == [ModelSettings("ollama/llama3.2:3b", api_base=fake_ollama)]

    run_in_qt(qapp, scenario())


def test_an_openai_compatible_server_lists_its_models(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario(llm: ScriptedLLM) -> None:
        assert await compatible_models(llm.url) == ["scripted", "scripted-large"]
        assert await compatible_models("http://127.0.0.1:9/v1") == []
        settings = AppSettings(ModelSettings("openai/scripted-large", api_base=llm.url), provider="compatible")
        dialog = SettingsDialog(settings, None, None)
        await eventually(lambda: dialog.model.count() == 2, what="the server's models in the list")
        assert [dialog.model.itemText(i) for i in range(2)] == ["scripted", "scripted-large"]
        assert dialog.model.currentText() == "scripted-large", "the saved choice stays selected"

    with ScriptedLLM() as llm:
        run_in_qt(qapp, scenario(llm))


def test_every_rule_is_listed_and_revocable(qtbot: QtBot, tmp_path: Path) -> None:
    rules = AlwaysAllowRules(tmp_path / "approvals.json")
    rules.add("demo", "add_note")
    rules.add("fixture", "echo")
    servers = {
        "desk": ServerConfig("desk", TransportKind.STDIO, command="x", trusted=True, auto_approve_read_only=True),
        "old": ServerConfig("old", TransportKind.STDIO, command="x", auto_approve_read_only=True),
        "web": ServerConfig("web", TransportKind.STDIO, command="x", trusted=True),
    }
    dialog = shown(qtbot, SettingsDialog(AppSettings(), None, rules, servers=servers))
    rows = dialog.rules_list

    def click_row(row: int) -> None:
        rows.scrollToItem(rows.item(row))
        qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=rows.visualItemRect(rows.item(row)).center())

    listed = [dialog.rules_list.item(row).text() for row in range(dialog.rules_list.count())]
    assert listed == [
        "Always allow add_note on demo",
        "Always allow echo on fixture",
        "Run read-only tools of desk without asking",
        "Run read-only tools of old without asking (inactive: the server is not trusted)",
    ]
    assert not dialog.revoke.isEnabled()
    click_row(0)
    assert dialog.revoke.isEnabled()
    qtbot.mouseClick(dialog.revoke, Qt.MouseButton.LeftButton)
    assert rules.rules() == [("fixture", "echo")]
    assert AlwaysAllowRules(tmp_path / "approvals.json").rules() == [("fixture", "echo")]
    revoked: list[str] = []
    dialog.server_rule_revoked.connect(revoked.append)
    click_row(1)
    qtbot.mouseClick(dialog.revoke, Qt.MouseButton.LeftButton)
    assert revoked == ["desk"] and dialog.rules_list.count() == 2

    empty = SettingsDialog(AppSettings(), None, None)
    assert empty.rules_list.item(0).text() == "No rules yet: every tool call asks you."


def test_server_registry_is_a_setting(qtbot: QtBot) -> None:
    dialog = shown(qtbot, SettingsDialog(AppSettings(registry_url="https://registry.example.org"), None, None))
    assert dialog.registry.text() == "https://registry.example.org"
    dialog.model.setCurrentText("gpt-4o-mini")
    dialog.registry.setText("ftp://nope")
    click_save(qtbot, dialog)
    assert "Server registry: the registry URL must start with https://" in dialog.error.text()
    dialog.registry.setText("https://mcp.internal.example/v0.1/")
    assert dialog.build().registry_url == "https://mcp.internal.example"
    dialog.registry.clear()  # empty: the official registry
    assert dialog.build().registry_url == "https://registry.modelcontextprotocol.io"


def test_a_reason_on_top_leaves_every_row_its_height(qapp: QApplication) -> None:
    dialog = SettingsDialog(AppSettings(), None, None, reason="Choose a model to send your message to. " * 3)
    assert dialog.reason.isVisibleTo(dialog)
    assert dialog.height() >= dialog.sizeHint().height(), "squeezed rows overlap"


def test_the_dialog_fits_its_sections_up_to_a_share_of_the_screen_and_cuts_none(
    qtbot: QtBot, qapp: QApplication
) -> None:
    dialog = shown(qtbot, SettingsDialog(AppSettings(), None, None))
    qtbot.waitExposed(dialog)
    screen = dialog.screen().availableGeometry().height()
    assert dialog.height() <= screen * SCREEN_SHARE, "the window it belongs to stays in sight"
    whole = dialog.height() - dialog.scroller.height() + dialog.sections.sizeHint().height()
    assert dialog.height() >= min(whole, int(screen * SCREEN_SHARE)) - 1, "as tall as its sections, up to the share"
    assert dialog.scroller.viewport().width() >= dialog.sections.minimumSizeHint().width(), (
        "no section cut on the right"
    )
