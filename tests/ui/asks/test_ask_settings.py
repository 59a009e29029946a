"""Where the user sets what servers may ask: roots and log level per server, default roots and
standing sampling permissions in Settings, and the servers panel's log filter."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings
from desktop_app.core.asks.service import SamplingGrants
from desktop_app.core.events import LogEntry, LogLine
from desktop_app.core.host import ServerHost
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.secret_store import open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.ui.asks.roots_editor import RootsEditor
from desktop_app.ui.servers.server_editor import ServerEditor
from desktop_app.ui.servers.servers_panel import ServersPanel
from desktop_app.ui.settings.settings_dialog import SettingsDialog


def test_the_roots_editor_reads_back_entries_and_flags_bad_ones(qapp: QApplication) -> None:
    editor = RootsEditor(("~/notes",))
    assert editor.entries() == ("~/notes",)
    assert editor.list.item(0).toolTip() == f"Servers see: {(Path.home() / 'notes').as_uri()}"
    bad = editor.add("https://example.com")
    editor.add("  ")
    assert editor.entries() == ("~/notes", "https://example.com")
    assert editor.first_problem() == "The root 'https://example.com' must be a folder path or a file:// URI."
    assert bad.foreground().color() == QColor("red") and not editor.problem.isHidden()
    editor.list.setCurrentItem(bad)
    bad.setSelected(True)
    editor.remove.click()
    assert editor.entries() == ("~/notes",) and editor.problem.isHidden()


def test_the_server_editor_keeps_roots_and_the_log_level(qapp: QApplication, tmp_path: Path) -> None:
    secrets = open_secret_store(tmp_path / "secrets", prefer="plaintext-file")
    config = ServerConfig(name="fs", transport=TransportKind.STDIO, command="fs-server")
    editor = ServerEditor(secrets, config)
    assert editor.default_roots.isChecked() and not editor.roots.isEnabled()
    assert editor.build() == config  # untouched: the defaults and no log level of its own
    editor.default_roots.setChecked(False)
    editor.roots.add("~/work")
    editor.roots.add("file:///srv/data")
    editor.log_level.setCurrentIndex(editor.log_level.findData("debug"))
    built = editor.build()
    assert built.roots == ("~/work", "file:///srv/data") and built.log_level == "debug"
    assert ServerEditor(secrets, built).roots.entries() == ("~/work", "file:///srv/data")
    editor.roots.add("http://nope")
    editor._save()
    assert "must be a folder path or a file:// URI" in editor.error.text()
    editor.default_roots.setChecked(True)
    assert editor.build().roots is None


def test_settings_default_roots_and_sampling_permissions(qapp: QApplication, tmp_path: Path) -> None:
    grants = SamplingGrants(tmp_path / "sampling.json")
    grants.allow_always("asking")
    settings = AppSettings(ModelSettings("openai/gpt-4.1"), provider="openai", roots=("~/projects",))
    dialog = SettingsDialog(settings, None, None, grants=grants)
    assert dialog.roots.entries() == ("~/projects",)
    dialog.roots.add("/srv/shared")
    assert dialog.build().roots == ("~/projects", "/srv/shared")
    [item] = [dialog.rules_list.item(row) for row in range(dialog.rules_list.count())]
    assert item.text() == "Let asking use your model (sampling) without asking"
    dialog.rules_list.setCurrentItem(item)
    dialog.revoke.click()
    assert grants.always() == []
    assert [dialog.rules_list.item(row).text() for row in range(dialog.rules_list.count())] == [
        "No rules yet: every tool call asks you."
    ]


def test_the_log_view_filters_by_level(qapp: QApplication) -> None:
    host = ServerHost()
    bridge = CoreBridge(host)
    host._add(ServerConfig(name="fx", transport=TransportKind.STDIO, command="unused"))
    panel = ServersPanel(bridge)
    for level, text in (("debug", "chatty"), ("info", "hello"), ("error", "boom")):
        entry = LogEntry(time.time(), "server", level, text)
        host.connection("fx").log.append(entry)
        host.bus.publish(LogLine("fx", entry))
    shown = panel._log.toPlainText()
    assert "hello" in shown and "boom" in shown and "chatty" not in shown  # info and above by default
    panel._level.setCurrentIndex(panel._level.findData("error"))
    assert "boom" in panel._log.toPlainText() and "hello" not in panel._log.toPlainText()
    panel._level.setCurrentIndex(panel._level.findData("debug"))
    assert "chatty" in panel._log.toPlainText()
