"""Secrets in the window: unlocking an encrypted file at start-up, and encrypting a plaintext one."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import ENCRYPTED_FILENAME, PLAINTEXT_FILENAME, open_secret_store
from desktop_app.core.server_status import ServerState
from desktop_app.ui.settings.password_dialog import PasswordDialog
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FIXTURE_SCRIPT, eventually
from tests.window_kit import run_window_scenario

TOKEN = "tok-0123456789-never-shown"


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A secrets file of this test's own, so no other test ever meets its password prompt."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


until = functools.partial(eventually, timeout=20.0)


def test_encrypted_secrets_are_unlocked_before_servers_connect(qapp: QApplication, tmp_path: Path) -> None:
    open_secret_store(data_dir(), prefer="encrypted-file", password="right").set("TOKEN", TOKEN)
    server = {
        "command": sys.executable,
        "args": [str(FIXTURE_SCRIPT), "--secret-echo"],
        "env": {"FIXTURE_TOKEN": "${secret:TOKEN}"},
    }

    async def steps(window: MainWindow) -> None:
        def window_dialogs() -> list[PasswordDialog]:
            return [d for d in window.findChildren(PasswordDialog) if d.isVisible()]

        await until(window_dialogs)
        assert window.bridge.host.connections == {}, "no server starts before the secrets are unlocked"
        dialog = window_dialogs()[0]
        dialog.password.setText("wrong")
        dialog.buttons.accepted.emit()
        assert "does not open" in dialog.error.text()
        dialog.password.setText("right")
        dialog.buttons.accepted.emit()
        await until(lambda: window.bridge.host.ready_count() == 1)
        connection = window.bridge.host.connection("fx")
        await until(lambda: any(line.startswith("FIXTURE_TOKEN=") for line in connection.stderr))
        assert "FIXTURE_TOKEN=***" in connection.stderr, "the secret reached the server and was redacted"
        assert connection.status.state is ServerState.READY
        assert window.status_meter.secrets_label.text() == "Secrets: encrypted file"

    run_window_scenario(qapp, tmp_path, steps, servers={"fx": server})


def test_plaintext_secrets_can_be_encrypted_from_settings(qapp: QApplication, tmp_path: Path) -> None:
    plain = open_secret_store(data_dir(), prefer="plaintext-file")
    plain.set("LLM_API_KEY_OPENAI", TOKEN)

    async def steps(window: MainWindow) -> None:
        # The store opens just after the window shows, off the event loop.
        await until(lambda: window.status_meter.secrets_label.text() == "Secrets: plaintext file, not encrypted")
        window.settings_actions.open_settings()
        settings = window.findChildren(SettingsDialog)[0]
        assert not settings.encrypt.isHidden()
        settings.encrypt.click()
        await until(lambda: [d for d in window.findChildren(PasswordDialog) if d.isVisible()])
        dialog = next(d for d in window.findChildren(PasswordDialog) if d.isVisible())
        dialog.password.setText("new password")
        dialog.repeat.setText("typo")
        dialog.buttons.accepted.emit()
        assert "differ" in dialog.error.text()
        dialog.repeat.setText("new password")
        dialog.buttons.accepted.emit()
        await until(lambda: window.bridge.secrets is not None and window.bridge.secrets.backend.encrypted)
        assert window.status_meter.secrets_label.text() == "Secrets: encrypted file"
        assert settings.encrypt.isHidden()
        assert not (data_dir() / PLAINTEXT_FILENAME).exists() and (data_dir() / ENCRYPTED_FILENAME).exists()
        assert open_secret_store(data_dir(), password="new password").get("LLM_API_KEY_OPENAI") == TOKEN
        settings.reject()

    run_window_scenario(qapp, tmp_path, steps, servers={})
