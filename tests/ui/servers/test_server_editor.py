"""The add/edit server dialog and the servers panel, against a real host and a real file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_file import load_config
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.core.policy.document import read_policy
from desktop_app.core.policy.in_force import PolicyInForce
from desktop_app.core.sandbox.probe import INSTALL_HINT, SandboxSupport, system_support
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.secret_store import SecretStore, encryption_advice, open_secret_store
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.qt_kit.theme import tokens
from desktop_app.ui.servers.sandbox_section import support_text
from desktop_app.ui.servers.server_editor import ServerEditor
from desktop_app.ui.servers.servers_panel import ServersPanel
from tests.hosting import FAST_RESTARTS, FIXTURE_SCRIPT, eventually
from tests.window_kit import run_in_qt


def _secrets(tmp_path: Path) -> SecretStore:
    return open_secret_store(tmp_path / "secrets", prefer="plaintext-file")


def test_secret_fields_go_to_the_store_not_the_config(qapp: QApplication, tmp_path: Path) -> None:
    secrets = _secrets(tmp_path)
    editor = ServerEditor(secrets)
    editor.name.setText("github")
    editor.transport.setCurrentIndex(editor.transport.findData(TransportKind.HTTP.value))
    editor.url.setText("https://example.com/mcp")
    editor.headers.add_row("Authorization", "Bearer ghp-very-secret", secret=True)
    editor.headers.add_row("X-Team", "core")
    config = editor.build()
    assert config.headers == {"Authorization": "${secret:GITHUB_AUTHORIZATION}", "X-Team": "core"}
    assert secrets.get("GITHUB_AUTHORIZATION") == "Bearer ghp-very-secret"

    # Editing again shows no value; leaving it empty keeps the stored secret.
    again = ServerEditor(secrets, config)
    assert again.headers.item(0, 1).text() == ""
    # Where it is kept is said as it is: a plaintext file, in red, with how to encrypt it.
    assert again.headers.item(0, 1).toolTip() == "Stored in a plaintext file, not encrypted; leave empty to keep it"
    assert again.store_note.text().startswith("Values ticked secret are kept in a plaintext file, not encrypted")
    assert "Protect secrets with a password" in again.store_note.text()
    assert again.store_note.toolTip() == encryption_advice(secrets.backend)
    assert again.headers.item(0, 2).checkState() == Qt.CheckState.Checked
    assert again.build().headers["Authorization"] == "${secret:GITHUB_AUTHORIZATION}"


def test_editing_keeps_the_sign_in_settings(qapp: QApplication, tmp_path: Path) -> None:
    signed = ServerConfig(
        name="tracker",
        transport=TransportKind.HTTP,
        url="https://tracker.example/mcp",
        oauth=OAuthSettings(client_id="desk", client_secret="${secret:TRACKER_SECRET}", scopes=("read",)),
    )
    editor = ServerEditor(_secrets(tmp_path), signed)
    editor.timeout.setValue(45)
    assert editor.build().oauth == signed.oauth


def test_editing_keeps_the_sandbox(qapp: QApplication, tmp_path: Path) -> None:
    confined = ServerConfig(
        name="files",
        transport=TransportKind.STDIO,
        command="/usr/bin/python3",
        sandbox_enabled=True,
        sandbox=SandboxSettings(allow_write=("~/notes",), deny_read=("~/private",)),
    )
    editor = ServerEditor(_secrets(tmp_path), confined)
    editor.args.setText("-m server")
    edited = editor.build()
    assert (edited.sandbox_enabled, edited.sandbox, edited.args) == (True, confined.sandbox, ("-m", "server"))


def test_stdio_form_and_paste(qapp: QApplication, tmp_path: Path) -> None:
    editor = ServerEditor(_secrets(tmp_path))
    editor.paste.setPlainText(
        '{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-fs", "/my files"], "env": {"A": "1"}}}}'
    )
    editor._fill_from_json()
    config = editor.build()
    assert config == ServerConfig(
        name="files",
        transport=TransportKind.STDIO,
        command="npx",
        args=("-y", "server-fs", "/my files"),
        env={"A": "1"},
    )
    assert editor.args.text() == "-y server-fs '/my files'"
    editor.command.clear()
    editor._save()
    assert "needs a command" in editor.error.text()
    editor.paste.setPlainText("{not json")
    editor._fill_from_json()
    assert "line 1" in editor.error.text()


def test_trust_is_off_by_default_and_read_only_needs_it(qapp: QApplication, tmp_path: Path) -> None:
    editor = ServerEditor(_secrets(tmp_path))
    editor.name.setText("files")
    editor.command.setText("npx")
    assert not editor.trusted.isChecked() and not editor.auto_read_only.isEnabled()
    assert editor.build().trusted is False
    editor.trusted.setChecked(True)
    assert editor.auto_read_only.isEnabled()
    editor.auto_read_only.setChecked(True)
    built = editor.build()
    assert built.trusted and built.auto_approve_read_only
    again = ServerEditor(_secrets(tmp_path), built)
    assert again.trusted.isChecked() and again.auto_read_only.isChecked()
    again.trusted.setChecked(False)  # no longer trusted: its read-only tools ask again
    assert not again.auto_read_only.isEnabled()
    assert (again.build().trusted, again.build().auto_approve_read_only) == (False, False)


@pytest.mark.stdio
def test_panel_adds_edits_and_removes_servers(qapp: QApplication, tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    store = ConfigStore(path)
    demo = ServerConfig(
        name="demo-fallback", transport=TransportKind.STDIO, command=sys.executable, args=(str(FIXTURE_SCRIPT),)
    )
    host = ServerHost(policy=FAST_RESTARTS)
    bridge = CoreBridge(host, _secrets(tmp_path), store, fallback=[demo])

    async def scenario() -> None:
        host.start(bridge.configured_servers())
        panel = ServersPanel(bridge)
        await eventually(lambda: host.ready_count() == 1, what=f"fallback ready: {host.connections}")
        assert not panel.details.edit.isEnabled()  # the fallback is not in the user's file

        editor = panel.open_editor(None)
        editor.name.setText("fx")
        editor.command.setText(sys.executable)
        editor.args.setText(str(FIXTURE_SCRIPT))
        editor._save()
        await eventually(lambda: "fx" in host.connections and host.ready_count() == 1)
        assert list(host.connections) == ["fx"], "the fallback leaves once the user has a server"
        assert set(load_config(path).servers) == {"fx"}
        assert panel._list.count() == 1

        panel._list.setCurrentRow(0)
        duplicate = panel.open_editor(None)
        duplicate.name.setText("fx")
        duplicate.command.setText("x")
        duplicate._save()
        assert "already exists" in duplicate.error.text()
        duplicate.reject()

        edit = panel.open_editor("fx")
        edit.timeout.setValue(12)
        edit._save()
        await eventually(lambda: host.connection("fx").config.timeout == 12)
        assert json.loads(path.read_text())["mcpServers"]["fx"]["timeout"] == 12

        bridge.remove_server("fx")
        await eventually(lambda: list(host.connections) == ["demo-fallback"])
        await eventually(lambda: host.connection("demo-fallback").status.state is ServerState.READY)
        assert load_config(path).servers == {}
        await host.stop_all()

    run_in_qt(qapp, scenario())


def test_panel_built_before_servers_start_shows_the_first(qapp: QApplication, tmp_path: Path) -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    bridge = CoreBridge(host, None, ConfigStore(tmp_path / "servers.json"))

    async def scenario() -> None:
        panel = ServersPanel(bridge)
        assert panel.selected() is None and not panel.details.restart.isEnabled()
        assert panel.details.title.text() == "No server selected"
        host.start(
            [
                ServerConfig(
                    name="fx", transport=TransportKind.STDIO, command=sys.executable, args=(str(FIXTURE_SCRIPT),)
                )
            ]
        )
        await eventually(lambda: host.ready_count() == 1)
        assert panel.selected() == "fx" and panel.details.title.text().startswith("fx")
        assert panel.details.restart.isEnabled()
        await host.stop_all()

    run_in_qt(qapp, scenario())


def test_environment_that_changes_what_runs_is_flagged_not_refused(qapp: QApplication, tmp_path: Path) -> None:
    hand_written = ServerConfig(
        name="tool",
        transport=TransportKind.STDIO,
        command="python3",
        args=("server.py",),
        env={"PATH": "/tmp/evil/bin:/usr/bin", "API_REGION": "eu", "LD_PRELOAD": "/tmp/evil/hook.so"},
    )
    editor = ServerEditor(_secrets(tmp_path), hand_written)
    editor.show()
    red = QColor(tokens(editor).danger)

    def colour(row: int) -> QColor:
        return editor.env.item(row, 0).foreground().color()

    assert [editor.env.item(r, 0).text() for r in range(3)] == ["PATH", "API_REGION", "LD_PRELOAD"]
    assert colour(0) == red and colour(2) == red and colour(1) != red
    assert editor.env.item(0, 0).toolTip() == "Changes which program runs or what it loads"
    assert editor.env_warning.isVisible()
    assert editor.env_warning.text().startswith("⚠ LD_PRELOAD, PATH change which program runs or what it loads")
    assert editor.build().env == hand_written.env  # the user wrote them: flagged, kept

    editor.env.item(2, 0).setText("HOOK_FILE")  # renamed by hand: no longer flagged
    assert colour(2) != red and editor.env_warning.text().startswith("⚠ PATH changes which program runs")
    editor.env.selectRow(0)
    editor.env.remove_selected()
    assert not editor.env_warning.isVisible()
    editor.env.add_row("node_options", "--require /tmp/x.js")  # any case: npm and Windows ignore it
    assert colour(2) == red and editor.env_warning.isVisible()
    editor.close()


def test_an_entry_the_policy_would_block_is_saved_only_when_saved_again(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"servers": {"allow": [{"command": "npx", "args": ["-y", "@acme/tool"]}]}}))
    managed = PolicyInForce(read_policy(policy), source=policy)
    editor = ServerEditor(None, managed=managed)
    qtbot.addWidget(editor)
    editor.show()
    saved: list[ServerConfig] = []
    editor.saved.connect(lambda config, _previous: saved.append(config))
    qtbot.keyClicks(editor.name, "other")
    qtbot.keyClicks(editor.command, "uvx")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert saved == [] and editor.isVisible()
    assert editor.error.text().startswith("Your organisation's policy would block this server: ")
    assert "(rule servers.allow, line 1)" in editor.error.text()
    assert editor.save_button.text() == "Save anyway"
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert [config.name for config in saved] == ["other"], "told which rule, the user keeps it anyway"

    allowed = ServerEditor(None, managed=managed)
    qtbot.addWidget(allowed)
    allowed.show()
    allowed.saved.connect(lambda config, _previous: saved.append(config))
    qtbot.keyClicks(allowed.name, "acme")
    qtbot.keyClicks(allowed.command, "npx")
    qtbot.keyClicks(allowed.args, "-y @acme/tool")
    qtbot.mouseClick(allowed.save_button, Qt.MouseButton.LeftButton)
    assert [config.name for config in saved] == ["other", "acme"] and allowed.error.text() == ""


def _confined() -> ServerConfig:
    return ServerConfig(
        name="files",
        transport=TransportKind.STDIO,
        command="/usr/bin/python3",
        sandbox_enabled=True,
        sandbox=SandboxSettings(
            allow_write=("~/notes",), deny_read=("~/private",), allowed_domains=("api.example.com",)
        ),
    )


def test_the_sandbox_section_edits_the_entrys_keys(qapp: QApplication, tmp_path: Path) -> None:
    editor = ServerEditor(_secrets(tmp_path), _confined())
    section = editor.sandbox
    assert section.enabled.isChecked()
    assert section.lists["allowWrite"].toPlainText() == "~/notes"
    assert section.lists["allowedDomains"].toPlainText() == "api.example.com"
    section.lists["allowWrite"].setPlainText("~/notes\n\n/var/tmp/out\n")
    section.lists["denyWrite"].setPlainText("~/notes/archive")
    section.lists["allowedDomains"].setPlainText("api.example.com\n*.Example.org")
    section.lists["deniedDomains"].setPlainText("ads.example.org")
    built = editor.build()
    assert built.sandbox_enabled
    assert built.sandbox == SandboxSettings(
        allow_write=("~/notes", "/var/tmp/out"),
        deny_read=("~/private",),
        deny_write=("~/notes/archive",),
        allowed_domains=("api.example.com", "*.example.org"),
        denied_domains=("ads.example.org",),
    )


def test_the_sandbox_section_refuses_what_the_loader_refuses(qapp: QApplication, tmp_path: Path) -> None:
    editor = ServerEditor(_secrets(tmp_path), _confined())
    editor.sandbox.lists["allowWrite"].setPlainText("~/notes\nnotes/relative")
    editor._save()
    assert editor.error.text().startswith("Sandbox → May write to (allowWrite), line 2:")
    assert "must be an absolute path" in editor.error.text()
    editor.sandbox.lists["allowWrite"].setPlainText("~/notes")
    editor.sandbox.lists["allowedDomains"].setPlainText("https://x")
    editor._save()
    assert editor.error.text().startswith("Sandbox → May reach hosts (allowedDomains), line 1:")
    assert "without a scheme" in editor.error.text()


def test_ticking_the_sandbox_on_saves_the_entry_sandboxed(qapp: QApplication, tmp_path: Path) -> None:
    plain = ServerConfig(name="files", transport=TransportKind.STDIO, command="/usr/bin/python3")
    editor = ServerEditor(_secrets(tmp_path), plain)
    assert not editor.sandbox.enabled.isChecked()
    assert editor.build() == plain  # untouched: nothing added to the entry
    saved: list[ServerConfig] = []
    editor.saved.connect(lambda config, _previous: saved.append(config))
    editor.sandbox.enabled.setChecked(True)
    editor._save()
    assert saved and saved[0].sandbox_enabled and saved[0].sandbox is None


def test_the_sandbox_section_says_when_bubblewrap_is_missing(qapp: QApplication, tmp_path: Path) -> None:
    missing = SandboxSupport(None, problem=f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}")
    editor = ServerEditor(_secrets(tmp_path), _confined(), support=missing)
    assert "will not start until" in editor.sandbox.support.text()
    assert "apt install bubblewrap" in editor.sandbox.support.text()
    editor.transport.setCurrentIndex(editor.transport.findData(TransportKind.HTTP.value))
    assert editor.sandbox.isHidden()  # a remote server is not confined here


def test_the_sandbox_section_learns_this_systems_support_without_blocking(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    editor = ServerEditor(_secrets(tmp_path), _confined())
    expected = support_text(system_support())[0]
    qtbot.waitUntil(lambda: editor.sandbox.support.text() == expected, timeout=15000)
    assert expected.startswith(("This system confines it with", "A sandboxed server will not start"))
