"""The window's own commands, done as the user does them: menus, the settings' Save button, the tree's
double-click and Enter, and a server process that dies under the window and comes back."""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import load_settings
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.ui.servers.import_review import ImportReview
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.main_window import MainWindow
from resources_ui.browser import ResourceBrowser
from resources_ui.viewers.viewer_pane import ViewerKind
from tests.hosting import FIXTURE_SCRIPT, eventually, live_children
from tests.llm_server import LITELLM_WARNINGS
from tests.servers.fixture_server import ITEM_TEMPLATE, LONG_END_MARKER
from tests.ui.chat_window import run_fixture_window

pytestmark = LITELLM_WARNINGS
until = functools.partial(eventually, timeout=60.0)
FIXTURE = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}


def server_row(browser: ResourceBrowser, name: str) -> QModelIndex:
    proxy = browser.proxy
    return next(proxy.index(r, 0) for r in range(proxy.rowCount()) if proxy.data(proxy.index(r, 0)) == name)


def tree_status(browser: ResourceBrowser, name: str) -> str:
    """What the tree says of a server: its state column, and its counts (with "last known" when down)."""
    row = server_row(browser, name)
    proxy = browser.proxy
    return f"{proxy.data(row.siblingAtColumn(2))}: {proxy.data(row.siblingAtColumn(1))}"


def states_of(window: MainWindow, name: str) -> list[ServerState]:
    """Every state `name` goes through from now on, as the window hears of it."""
    seen: list[ServerState] = []

    def record(server: str, status: ServerStatus) -> None:
        if server == name:
            seen.append(status.state)

    window.bridge.server_state_changed.connect(record)
    return seen


def on_row(qtbot: QtBot, browser: ResourceBrowser, server: str, uri: str) -> QModelIndex:
    """Scroll to a row and click it, as the user picks it."""
    index = browser.index_of(server, uri)
    assert index.isValid(), f"{uri} is not in the tree"
    browser.view.scrollTo(index)
    qtbot.mouseClick(browser.view.viewport(), Qt.MouseButton.LeftButton, pos=browser.view.visualRect(index).center())
    return index


@pytest.mark.stdio
def test_settings_saved_from_the_dialog_apply_to_the_running_window(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    async def scenario(window: MainWindow) -> None:
        assert window.status_meter.model_label.text().startswith("Model: not chosen")
        [server_pid] = live_children()
        window.menu_actions.settings.trigger()  # File → Settings…
        await until(lambda: window.findChildren(SettingsDialog), what="the settings dialog")
        [dialog] = window.findChildren(SettingsDialog)
        dialog.provider.setCurrentIndex(dialog.provider.findData("openai"))
        dialog.model.lineEdit().clear()
        qtbot.keyClicks(dialog.model.lineEdit(), "gpt-4o-mini")
        dialog.max_iterations.setValue(7)
        buttons = dialog.findChild(QDialogButtonBox)
        assert buttons is not None
        qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)

        await until(lambda: window.status_meter.model_label.text() == "Model: openai/gpt-4o-mini", what="the model")
        settings = window.chat.settings
        assert settings.model is not None and settings.model.model == "openai/gpt-4o-mini"
        assert settings.chat.max_iterations == 7
        stored = load_settings(tmp_path / "settings.json").settings
        assert stored.model == settings.model and stored.chat.max_iterations == 7, "kept for the next start"
        # Applied in place: the servers were not restarted for it.
        assert live_children() == [server_pid] and window.bridge.host.ready_count() == 1

    run_fixture_window(qapp, tmp_path, scenario)


# The template's field may open its completion list, which offscreen cannot raise or grab for.
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")
def test_the_tree_opens_a_resource_in_the_viewer_dock_and_a_template_on_enter(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    async def scenario(window: MainWindow) -> None:
        browser, viewer, form = window.resources.browser, window.resources.viewer, window.resources.template_form
        assert window.viewer_dock.isAncestorOf(viewer) and window.viewer_dock.isAncestorOf(form)
        await until(lambda: browser.index_of("fx", "fixture://long").isValid(), what="the fixture's resources")
        shown: list[ViewerKind] = []
        viewer.content_shown.connect(shown.append)

        index = browser.index_of("fx", "fixture://long")
        browser.view.scrollTo(index)
        qtbot.mouseDClick(
            browser.view.viewport(), Qt.MouseButton.LeftButton, pos=browser.view.visualRect(index).center()
        )
        await until(lambda: ViewerKind.TEXT in shown, what="the resource in the viewer")
        assert viewer.current_ref is not None and viewer.current_ref.uri == "fixture://long"
        assert viewer.text_viewer.toPlainText().endswith(LONG_END_MARKER) and viewer.isVisible()

        # Enter on a resource attaches it to the message; on a template it opens the template's form.
        on_row(qtbot, browser, "fx", "fixture://data.json")
        qtbot.keyClick(browser.view, Qt.Key.Key_Return)
        assert [ref.uri for ref in window.composer.attachments] == ["fixture://data.json"]
        on_row(qtbot, browser, "fx", ITEM_TEMPLATE)
        qtbot.keyClick(browser.view, Qt.Key.Key_Return)
        await until(lambda: form.isVisible(), what="the template's form in the viewer dock")
        assert form.entry is not None and form.entry.uri == ITEM_TEMPLATE

    run_fixture_window(qapp, tmp_path, scenario)


@pytest.mark.stdio
def test_servers_are_imported_from_claude_desktop_through_the_menu(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    claude = home / ".config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    claude.write_text(json.dumps({"mcpServers": {"imported": FIXTURE, "fx": FIXTURE}}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))

    async def scenario(window: MainWindow) -> None:
        entries = {action.text(): action for action in window.menu_actions.import_from.actions()}
        claude_entry = entries[f"Claude Desktop ({claude})"]
        assert claude_entry.isEnabled() and window.menu_actions.import_from.isEnabled()
        claude_entry.trigger()  # Servers → Import from → Claude Desktop
        [review] = [w for w in window.findChildren(ImportReview) if w.isVisible()]
        assert "imported" not in json.loads((tmp_path / "servers.json").read_text())["mcpServers"]  # not before Import
        review.import_button.click()
        boxes = [w for w in window.findChildren(QMessageBox) if w.isVisible()]
        assert [box.text() for box in boxes] == ["From Claude Desktop: added 1 (imported); 1 already present (fx)."]
        boxes[0].close()
        assert set(json.loads((tmp_path / "servers.json").read_text())["mcpServers"]) == {"fx", "imported"}
        browser = window.resources.browser
        await until(lambda: browser.index_of("imported", "fixture://long").isValid(), what="the imported tree")
        assert tree_status(browser, "imported").startswith("ready: ")
        assert window.bridge.host.ready_count() == 2 and len(live_children()) == 2

    run_fixture_window(qapp, tmp_path, scenario)


@pytest.mark.stdio
def test_reconnect_all_starts_each_server_again_and_the_tree_fills_again(qapp: QApplication, tmp_path: Path) -> None:
    async def scenario(window: MainWindow) -> None:
        browser = window.resources.browser
        await until(lambda: browser.index_of("fx", "fixture://long").isValid(), what="the fixture's resources")
        [before] = live_children()
        states = states_of(window, "fx")
        window.menu_actions.reconnect_all.trigger()  # Servers → Reconnect all
        await until(lambda: ServerState.READY in states, what="fx ready again", seen=lambda: str(states))
        assert states[0] is not ServerState.READY, "it went down before it came back"
        assert live_children() != [before], "a new server process"
        await until(lambda: browser.index_of("fx", "fixture://long").isValid(), what="the tree filled again")
        assert tree_status(browser, "fx") == "ready: 6 resources · 1 template"

    run_fixture_window(qapp, tmp_path, scenario)


@pytest.mark.stdio
def test_a_killed_server_is_started_again_and_the_tree_fills_again(qapp: QApplication, tmp_path: Path) -> None:
    async def scenario(window: MainWindow) -> None:
        browser = window.resources.browser
        await until(lambda: browser.index_of("fx", "fixture://long").isValid(), what="the fixture's resources")
        [killed] = live_children()
        states = states_of(window, "fx")
        os.kill(killed, signal.SIGKILL)
        await until(lambda: ServerState.RESTARTING in states, what="fx seen to die", seen=lambda: str(states))
        assert window.bridge.host.connection("fx").status.reason == "the server was ended by SIGKILL"
        await until(lambda: ServerState.READY in states, what="fx started again", seen=lambda: str(states))
        assert killed not in live_children() and len(live_children()) == 1
        await until(lambda: tree_status(browser, "fx") == "ready: 6 resources · 1 template", what="the tree again")
        long_row = browser.index_of("fx", "fixture://long")
        assert browser.proxy.data(long_row, Qt.ItemDataRole.ForegroundRole) is None, "no longer greyed"

    run_fixture_window(qapp, tmp_path, scenario)
