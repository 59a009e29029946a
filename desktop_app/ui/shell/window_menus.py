"""The main window's menu bar: built with its docks right after the window's first paint (see main_window)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget


class MenuActions(NamedTuple):
    """The menus' entries that act on the panes: disabled until the panes are in."""

    new_chat: QAction
    find_history: QAction
    palette: QAction
    settings: QAction
    export_chat: QAction
    find_servers: QAction
    install_bundle: QAction
    add_from_domain: QAction
    add_server: QAction
    import_from: QMenu
    reconnect_all: QAction
    export_servers: QAction


HELP_ENTRIES = (
    ("&Keyboard shortcuts", "F1", "show_shortcuts"),
    ("&README", None, "show_readme"),
    ("&About MCP Desk", None, "show_about"),
)
"""Help's entries: (text, shortcut, the `help_dialogs` function that shows it)."""


def build_menus(
    window: QMainWindow,
    docks: Iterable[QDockWidget],
    export_servers: Callable[[], None],
    show_help: Callable[[QAction], None],
) -> MenuActions:
    """File, Servers, View (one entry per dock in `docks`) and Help; Quit closes `window`.

    Help and Quit work at once; the rest waits for the panes, except Export, which needs only the bridge.
    The callbacks are `window`'s bound methods: a lambda holding the window would keep it alive.
    """
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    new_chat = _action(window, file_menu, "&New chat", "Ctrl+N")
    find_history = _action(window, file_menu, "Find in &history…", "Ctrl+Shift+H")
    palette = _action(window, file_menu, "Command &palette…", "Ctrl+K")
    settings = _action(window, file_menu, "&Settings…", "Ctrl+,")
    export_chat = _action(window, file_menu, "&Export chat…", "Ctrl+Shift+E")
    file_menu.addSeparator()
    quit_action = _action(window, file_menu, "&Quit", "Ctrl+Q")
    quit_action.setEnabled(True)
    quit_action.triggered.connect(window.close)
    servers_menu = bar.addMenu("&Servers")
    find_servers = _action(window, servers_menu, "&Find servers…", "Ctrl+Shift+F")
    install_bundle = _action(window, servers_menu, "Install &bundle (.mcpb)…")
    add_from_domain = _action(window, servers_menu, "Add from a &domain…")
    add_server = _action(window, servers_menu, "&Add server…")
    import_from = servers_menu.addMenu("&Import from")
    import_from.setEnabled(False)
    export = _action(window, servers_menu, "E&xport…")
    export.triggered.connect(export_servers)
    servers_menu.addSeparator()
    reconnect_all = _action(window, servers_menu, "&Reconnect all")
    view_menu = bar.addMenu("&View")
    for dock in docks:
        view_menu.addAction(dock.toggleViewAction())
    help_menu = bar.addMenu("&Help")
    for text, shortcut, shows in HELP_ENTRIES:
        entry = _action(window, help_menu, text, shortcut)
        entry.setEnabled(True)  # nothing in Help needs the panes
        entry.setData(shows)
    help_menu.triggered.connect(show_help)
    return MenuActions(
        new_chat,
        find_history,
        palette,
        settings,
        export_chat,
        find_servers,
        install_bundle,
        add_from_domain,
        add_server,
        import_from,
        reconnect_all,
        export,
    )


def _action(window: QWidget, menu: QMenu, text: str, shortcut: str | None = None) -> QAction:
    """An entry of `menu`, disabled until the panes it acts on are in (its shortcut works in all `window`)."""
    action = QAction(text, window)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    action.setEnabled(False)
    menu.addAction(action)
    return action
