"""The Help menu's windows: the keyboard shortcuts, About (versions and licenses), and the README.

Versions come from the installed packages' metadata: nothing is imported to learn one (LiteLLM's
import alone takes seconds). The shortcuts are read from the window's own menus, so the list never
drifts from what the keys do; keys that belong to a pane are listed beside them.
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import PySide6
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop_app import __version__
from desktop_app.ui.shell.system_browser import ask_to_open

PANE_KEYS: Final = (
    ("Ctrl+Enter", "Send the message (in the composer)"),
    ("Esc", "Stop the running answer; while editing a message, stop editing"),
    ("Up", "Edit your last message (in an empty composer)"),
    ("/", "Command palette (at the start of an empty message)"),
    ("Ctrl+Enter", "Allow a tool call once (in its arguments)"),
    ("F2", "Rename the selected chat (History)"),
    ("Delete", "Delete the selected chat (History)"),
    ("Esc", "Clear the search (Find in history)"),
)
COMPONENTS: Final = (
    ("MCP SDK", "mcp"),
    ("LiteLLM", "litellm"),
    ("PyMuPDF", "pymupdf"),
    ("qasync", "qasync"),
)
README_MISSING: Final = "This installation carries no README. It is the README.md file of MCP Desk's source."


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").removesuffix("…")


def menu_shortcuts(window: QMainWindow) -> list[tuple[str, str]]:
    """(keys, what they do) for every menu entry of `window` that has a shortcut, in menu order."""
    found: list[tuple[str, str]] = []

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            if (sub := action.menu()) is not None and isinstance(sub, QMenu):
                walk(sub, f"{path} → {_plain(action.text())}")
            elif not action.shortcut().isEmpty():
                keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                found.append((keys, f"{path} → {_plain(action.text())}"))

    for top in window.menuBar().actions():
        if isinstance(menu := top.menu(), QMenu):
            walk(menu, _plain(top.text()))
    return found


def _table(rows: Sequence[tuple[str, ...]], headers: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
    table.setWordWrap(True)
    for row, values in enumerate(rows):
        for column, value in enumerate(values):
            table.setItem(row, column, QTableWidgetItem(value))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _dialog(parent: QWidget, title: str, name: str) -> tuple[QDialog, QVBoxLayout]:
    dialog = QDialog(parent)
    dialog.setObjectName(name)
    dialog.setWindowTitle(title)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return dialog, QVBoxLayout(dialog)


def _finish(dialog: QDialog, layout: QVBoxLayout, width: int, height: int) -> QDialog:
    """Close under the content, then the dialog shown at its size."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.resize(width, height)
    dialog.open()
    return dialog


def show_shortcuts(window: QMainWindow) -> QDialog:
    """The keyboard shortcuts: the menus' own, then the keys of the panes."""
    dialog, layout = _dialog(window, "Keyboard shortcuts", "shortcutsDialog")
    dialog.table = table = _table([*menu_shortcuts(window), *PANE_KEYS], ("Keys", "What they do"))  # type: ignore[attr-defined]
    layout.addWidget(table)
    return _finish(dialog, layout, 560, 520)


def _license(distribution: str) -> str:
    """A package's license as its metadata states it (the SPDX expression when it has one)."""
    try:
        meta = importlib.metadata.metadata(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
    fields = meta.json
    lines = str(fields.get("license", "")).strip().splitlines()
    stated = str(fields.get("license_expression", "")) or (lines[0] if lines else "")
    if not stated:
        classifiers = [str(c) for c in fields.get("classifier", [])]
        stated = ", ".join(c.rsplit(" :: ", 1)[-1] for c in classifiers if c.startswith("License"))
    return stated[:80] or "unknown"


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions() -> list[tuple[str, str, str]]:
    """(component, version, license) for MCP Desk and what it is built on, without importing any of them."""
    rows = [
        (
            "MCP Desk",
            __version__,
            _license("mcp-desk") if _version("mcp-desk") != "not installed" else "AGPL-3.0-or-later",
        ),
        ("Python", platform.python_version(), "PSF-2.0"),
        ("Qt", qVersion(), "LGPL-3.0-only"),
        ("PySide6", PySide6.__version__, _license("PySide6-Essentials")),
    ]
    rows += [(name, _version(distribution), _license(distribution)) for name, distribution in COMPONENTS]
    return rows


def show_about(window: QWidget) -> QDialog:
    """About MCP Desk: its version, the versions and licenses of what it is built on."""
    dialog, layout = _dialog(window, "About MCP Desk", "aboutDialog")
    title = QLabel(f"<b>MCP Desk {__version__}</b>")
    text = QLabel(
        "A desktop host for the Model Context Protocol: your servers, their resources and prompts, and a model"
        " whose every tool call waits for your approval. MCP Desk is free software under the GNU Affero General"
        " Public License, version 3 or later; the components below keep their own licenses."
    )
    text.setWordWrap(True)
    dialog.table = table = _table(versions(), ("Component", "Version", "License"))  # type: ignore[attr-defined]
    layout.addWidget(title)
    layout.addWidget(text)
    layout.addWidget(table)
    return _finish(dialog, layout, 620, 440)


def readme_text() -> str:
    """The README: the source tree's file, else the one the installed package carries; "" without one."""
    source = Path(__file__).resolve().parents[3] / "README.md"
    if source.is_file():
        return source.read_text(encoding="utf-8", errors="replace")
    try:
        return str(importlib.metadata.metadata("mcp-desk").get_payload() or "")  # type: ignore[attr-defined]
    except importlib.metadata.PackageNotFoundError:
        return ""


def show_readme(window: QWidget) -> QDialog:
    """The README, rendered; its web links open in the browser only after the usual question."""
    dialog, layout = _dialog(window, "MCP Desk README", "readmeDialog")
    dialog.setModal(False)
    browser = QTextBrowser()
    browser.setOpenLinks(False)
    text = readme_text()
    browser.setMarkdown(re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text) if text else README_MISSING)  # no pictures
    browser.anchorClicked.connect(lambda url: _follow(browser, window, url))
    dialog.browser = browser  # type: ignore[attr-defined]
    layout.addWidget(browser)
    return _finish(dialog, layout, 820, 680)


def _follow(browser: QTextBrowser, window: QWidget, url: QUrl) -> None:
    if url.scheme() in ("", "file") and url.hasFragment():
        browser.scrollToAnchor(url.fragment())  # a heading of the README itself
    elif url.scheme() in ("http", "https", "mailto"):
        ask_to_open(window, url.toString())
