"""The MCP Desk main window: servers and resources on the left, the conversation in the middle,
the viewer on the right while it shows something. Docks can be moved and hidden; their layout is remembered.

This module builds only the frame (title, menus, docks, status bar, remembered geometry) and imports
only Qt, so the window is on screen as fast as a bare Qt window. The panes need the core, the MCP SDK
and pydantic: `desktop_app.ui.shell.panes` fills them into this same window right after its first paint,
into docks already laid out, so nothing moves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from PySide6.QtCore import QEvent, QEventLoop, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence, QPaintEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QMenu, QScrollArea, QWidget

from desktop_app.ui.shell.dock_fit import CHAT_MIN, DockFit, scrolling

if TYPE_CHECKING:
    from desktop_app.bridge import CoreBridge
    from desktop_app.ui.apps.controller import AppViews
    from desktop_app.ui.asks.card_asker import CardAsker
    from desktop_app.ui.chat.chat_actions import ChatActions
    from desktop_app.ui.chat.chat_controller import ChatController
    from desktop_app.ui.chat.history_panel import HistoryPanel
    from desktop_app.ui.chat.palette import CommandPalette
    from desktop_app.ui.chat.prompt_form import PromptForm
    from desktop_app.ui.conversation.composer import Composer
    from desktop_app.ui.conversation.conversation_view import ConversationView
    from desktop_app.ui.conversation.pane import ConversationPane
    from desktop_app.ui.conversation.taint_chip import TaintChip
    from desktop_app.ui.gallery.gallery_controller import GalleryController
    from desktop_app.ui.ledger.ledger_actions import LedgerActions
    from desktop_app.ui.servers.servers_panel import ServersPanel
    from desktop_app.ui.shell.model_choice import ModelChoice
    from desktop_app.ui.shell.settings_actions import SettingsActions
    from desktop_app.ui.shell.status_meter import StatusMeter
    from resources_ui.workspace import ResourceWorkspace


HEADLESS: Final = ("offscreen", "minimal")
"""Platforms with no window manager (tests, benches, `--self-test`): no window state to ask for."""
FIRST_PAINT_WAIT_MS: Final = 2000
"""How long the window may take to be painted before the panes load anyway (started minimised: never)."""


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


class MainWindow(QMainWindow):
    """The frame, shown first; closing asks the app to stop every server before quitting."""

    sig_painted = Signal()  # the window's first paint: the panes may load now
    sig_filled = Signal()  # the panes are in and wired
    sig_close_requested = Signal()  # the user closed the window: stop every server, then close it again

    # The panes, set by `desktop_app.ui.shell.panes.fill_window` once the frame is painted.
    bridge: CoreBridge
    conversation: ConversationView
    taint_chip: TaintChip
    prompt_form: PromptForm
    composer: Composer
    conversation_pane: ConversationPane
    command_palette: CommandPalette
    resources: ResourceWorkspace
    servers_panel: ServersPanel
    history: HistoryPanel
    asker: CardAsker
    chat: ChatController
    gallery: GalleryController
    apps: AppViews
    chat_actions: ChatActions
    ledger: LedgerActions
    settings_actions: SettingsActions
    model_choice: ModelChoice
    status_meter: StatusMeter

    def __init__(self) -> None:
        super().__init__()
        self.close_requested = False
        self.painted = False
        self.filled = False
        self._restored = False  # the window's geometry and docks as the user left them
        self.setWindowTitle("MCP Desk")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self.setCentralWidget(_placeholder())
        self.resources_dock = self._dock("Resources", "resourcesDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.servers_dock = self._dock("Servers", "serversDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.history_dock = self._dock("History", "historyDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tasks_dock = self._dock("Tasks", "tasksDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.resources_dock, self.servers_dock)
        self.tabifyDockWidget(self.servers_dock, self.history_dock)
        self.tabifyDockWidget(self.history_dock, self.tasks_dock)
        self.resources_dock.raise_()
        self.viewer_dock = self._dock("Viewer", "viewerDock", Qt.DockWidgetArea.RightDockWidgetArea)
        self.menu_actions = self._menus()
        self.statusBar().showMessage("Starting…")
        self.dock_fit = DockFit(self, self.viewer_dock)
        self._restore_geometry()
        self.dock_fit.hide_viewer()  # it shows nothing yet: the chat has its room until something is opened

    def _dock(self, title: str, name: str, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(_placeholder())
        self.addDockWidget(area, dock)
        return dock

    def _menus(self) -> MenuActions:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        new_chat = _action(self, file_menu, "&New chat", "Ctrl+N")
        find_history = _action(self, file_menu, "Find in &history…", "Ctrl+Shift+H")
        palette = _action(self, file_menu, "Command &palette…", "Ctrl+K")
        settings = _action(self, file_menu, "&Settings…", "Ctrl+,")
        export_chat = _action(self, file_menu, "&Export chat…", "Ctrl+Shift+E")
        file_menu.addSeparator()
        quit_action = _action(self, file_menu, "&Quit", "Ctrl+Q")
        quit_action.setEnabled(True)
        quit_action.triggered.connect(self.close)
        servers_menu = bar.addMenu("&Servers")
        find_servers = _action(self, servers_menu, "&Find servers…", "Ctrl+Shift+F")
        install_bundle = _action(self, servers_menu, "Install &bundle (.mcpb)…")
        add_from_domain = _action(self, servers_menu, "Add from a &domain…")
        add_server = _action(self, servers_menu, "&Add server…")
        import_from = servers_menu.addMenu("&Import from")
        import_from.setEnabled(False)
        export_servers = _action(self, servers_menu, "E&xport…")
        export_servers.triggered.connect(self._export_servers)
        servers_menu.addSeparator()
        reconnect_all = _action(self, servers_menu, "&Reconnect all")
        view_menu = bar.addMenu("&View")
        for dock in (self.resources_dock, self.servers_dock, self.history_dock, self.tasks_dock, self.viewer_dock):
            view_menu.addAction(dock.toggleViewAction())
        help_menu = bar.addMenu("&Help")
        for text, shortcut, shows in (
            ("&Keyboard shortcuts", "F1", "show_shortcuts"),
            ("&README", None, "show_readme"),
            ("&About MCP Desk", None, "show_about"),
        ):
            entry = _action(self, help_menu, text, shortcut)
            entry.setEnabled(True)  # nothing in Help needs the panes
            entry.setData(shows)
        help_menu.triggered.connect(self._help)  # a bound method: a lambda holding the window would keep it alive
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
            export_servers,
        )

    def _export_servers(self) -> None:
        """Servers → Export…: the user's servers for another client (its module loads with the first)."""
        from desktop_app.ui.servers.server_actions import ServerActions

        ServerActions(self, self.bridge).export_servers()

    def _help(self, entry: QAction) -> None:
        """Open the Help menu's window `entry` names (their module loads with the first)."""
        from desktop_app.ui.shell import help_dialogs

        getattr(help_dialogs, entry.data())(self)

    def _restore_geometry(self) -> None:
        restored = QSettings()
        geometry, state = restored.value("window/geometry"), restored.value("window/state")
        if geometry is not None and state is not None and self.restoreGeometry(geometry) and self.restoreState(state):
            self._restored = True
            self.dock_fit.restore(restored)
            return
        # First run: the window never starts larger than the screen's free area (a laptop's 1366 × 768 is common).
        free = self.screen().availableGeometry()
        self.resize(min(1480, free.width()), min(920, free.height()))
        if (free.width() < 1480 or free.height() < 920) and QGuiApplication.platformName() not in HEADLESS:
            # A screen smaller than that: the window manager fits the window and its title bar to it (sized
            # to the free area, the title bar pushed the status bar below the screen's edge).
            self.setWindowState(Qt.WindowState.WindowMaximized)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self.painted:
            # The conversation gets the most room, the docks flank it as wide as the user left them (on a
            # first start, wide enough for the servers panel). Set before the first paint.
            self.dock_fit.fit()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.painted:
            self.painted = True
            self.sig_painted.emit()

    def show_painted(self) -> None:
        """Show the window and run Qt's events until it is painted (before any other event loop exists)."""
        waiting = QEventLoop()
        self.sig_painted.connect(waiting.quit)
        give_up = QTimer(waiting)
        give_up.setSingleShot(True)
        give_up.timeout.connect(waiting.quit)
        give_up.start(FIRST_PAINT_WAIT_MS)
        self.show()
        if not self.painted:
            waiting.exec()
        self.sig_painted.disconnect(waiting.quit)

    def set_filled(self) -> None:
        """The panes are in and wired: each dock scrolls below its pane's minimum, and the widths are
        put back as the frame showed them (the panes' own size hints would move them)."""
        self.filled = True
        for dock in (self.resources_dock, self.servers_dock, self.history_dock, self.viewer_dock):
            pane = dock.widget()
            if pane is not None and not isinstance(pane, QScrollArea):
                dock.setWidget(scrolling(pane))
        central = self.centralWidget()
        if central is not None:
            central.setMinimumWidth(CHAT_MIN)
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self.dock_fit.fit()
        self.menu_actions.export_servers.setEnabled(True)  # it needs only the bridge, in with the panes
        self._menu_icons()
        self.sig_filled.emit()

    def _menu_icons(self) -> None:
        """The most used entries get their icons (drawn from the theme's tokens, loaded with the panes)."""
        from desktop_app.qt_kit.action_icon import HIGHLIGHTED, action_icon  # this module imports only Qt (see above)

        actions = self.menu_actions
        for action, name in (
            (actions.new_chat, "message-square-plus"),
            (actions.palette, "command"),
            (actions.settings, "settings"),
            (actions.find_servers, "server"),
        ):
            action.setIcon(action_icon(name, active=HIGHLIGHTED))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() is QEvent.Type.PaletteChange and self.filled:  # the theme (Settings, or the system's)
            QTimer.singleShot(0, self, self._follow_theme)  # once the panes have the new colours too

    def _follow_theme(self) -> None:
        """Sheets built from the theme's tokens are built again from the new one's, then the messages."""
        from desktop_app.qt_kit.theme import restyle  # the panes loaded it: this module imports only Qt (see above)

        restyle()
        self.conversation.follow_theme()

    # -- actions ---------------------------------------------------------------------------

    def bring_to_front(self) -> None:
        """Another launch asked for this window: restore, raise and focus it (or flash it)."""
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()
        QApplication.alert(self)

    # -- closing ---------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        """First close: ignore it and let the app stop every server, then quit."""
        if self.close_requested:
            event.accept()
            return
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        self.dock_fit.save(settings)
        event.ignore()
        self.close_requested = True
        self.statusBar().showMessage("Stopping servers…")
        self.sig_close_requested.emit()


def _placeholder() -> QWidget:
    """What a pane shows until it loads: an empty area of its size."""
    return QWidget()


def _action(window: QWidget, menu: QMenu, text: str, shortcut: str | None = None) -> QAction:
    """An entry of `menu`, disabled until the panes it acts on are in (its shortcut works in all `window`)."""
    action = QAction(text, window)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    action.setEnabled(False)
    menu.addAction(action)
    return action
