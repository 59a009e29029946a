"""The Help menu: F1 lists the keyboard shortcuts read from the menus, About gives the versions and licenses
(without importing LiteLLM to learn its version), and the README opens from the window."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QTableWidget
from pytestqt.qtbot import QtBot

from desktop_app import __version__
from desktop_app.qt_kit.layout_widgets import widgets_in
from desktop_app.ui.shell.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[3]


def rows(dialog: QDialog) -> list[tuple[str, ...]]:
    table = dialog.findChild(QTableWidget)
    assert table is not None
    return [tuple(table.item(r, c).text() for c in range(table.columnCount())) for r in range(table.rowCount())]


def opened(window: MainWindow, name: str) -> QDialog:
    [dialog] = [d for d in window.findChildren(QDialog) if d.objectName() == name and d.isVisible()]
    return dialog


def test_help_menu_shortcuts_about_and_readme(qapp: QApplication, qtbot: QtBot) -> None:
    window = MainWindow()  # the frame alone: Help needs none of the panes
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=60_000)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = opened(window, "shortcutsDialog")
    layout = dialog.layout()
    assert layout is not None and isinstance(widgets_in(layout)[-1], QDialogButtonBox)  # Close under the table
    shortcuts = rows(dialog)
    assert ("F1", "Help → Keyboard shortcuts") in shortcuts
    assert ("Ctrl+N", "File → New chat") in shortcuts
    assert ("Ctrl+Shift+H", "File → Find in history") in shortcuts
    assert ("Up", "Edit your last message (in an empty composer)") in shortcuts
    opened(window, "shortcutsDialog").reject()

    entries = {action.text(): action for action in window.menuBar().actions()}
    help_menu = entries["&Help"].menu()
    assert help_menu is not None
    about_entry = next(a for a in help_menu.actions() if a.text() == "&About MCP Desk")
    assert about_entry.isEnabled(), "Help works before the panes are in"
    about_entry.trigger()
    about = {component: (version, license_) for component, version, license_ in rows(opened(window, "aboutDialog"))}
    assert about["MCP Desk"] == (__version__, "AGPL-3.0-or-later")
    assert about["MCP SDK"] == (importlib.metadata.version("mcp"), "MIT")
    assert about["LiteLLM"] == (importlib.metadata.version("litellm"), "MIT")
    assert about["Qt"][0] and about["PySide6"][0] and about["Python"][0]
    assert about["PyMuPDF"][1].startswith("Dual Licensed - GNU AFFERO GPL 3.0")

    next(a for a in help_menu.actions() if a.text() == "&README").trigger()
    readme = opened(window, "readmeDialog")
    assert "MCP Desk" in readme.browser.toPlainText()  # type: ignore[attr-defined]


def test_about_reads_versions_without_importing_the_model_library() -> None:
    probe = (
        "import sys; from desktop_app.ui.shell.help_dialogs import versions;"
        " found = dict((c, v) for c, v, _ in versions());"
        " assert found['LiteLLM'] != 'not installed', found;"
        " assert 'litellm' not in sys.modules"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
