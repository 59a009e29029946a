"""The MCP Desk main window: servers and resources on the left, the conversation in the middle,
the viewer on the right while it shows something. Docks can be moved and hidden; their layout is remembered.

The window comes in three steps, so it is on screen about as fast as a bare Qt window: the frame (title,
colours, remembered size and place, a status line) is painted first; its docks and menus are built right
after that paint, in the next turn of the event loop, laid out as the user left them (`complete_frame`);
then `desktop_app.ui.shell.panes` fills the panes (they need the core, the MCP SDK and pydantic) into
docks already laid out, so nothing moves. This module imports only Qt; the docks' and menus' modules load
with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QByteArray, QEvent, QEventLoop, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QPaintEvent
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDockWidget

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
    from desktop_app.ui.shell.dock_fit import DockFit
    from desktop_app.ui.shell.model_choice import ModelChoice
    from desktop_app.ui.shell.settings_actions import SettingsActions
    from desktop_app.ui.shell.status_meter import StatusMeter
    from desktop_app.ui.shell.window_menus import MenuActions
    from resources_ui.workspace import ResourceWorkspace


HEADLESS: Final = ("offscreen", "minimal")
"""Platforms with no window manager (tests, benches, `--self-test`): no window state to ask for."""
FIRST_PAINT_WAIT_MS: Final = 2000
"""How long the window may take to be painted before the panes load anyway (started minimised: never)."""


class MainWindow(QMainWindow):
    """The frame, shown first; closing asks the app to stop every server before quitting."""

    sig_framed = Signal()  # painted, then its docks and menus in: the panes may load now
    sig_filled = Signal()  # the panes are in and wired
    sig_close_requested = Signal()  # the user closed the window: stop every server, then close it again

    # The docks and menus, set by `complete_frame` right after the first paint.
    resources_dock: QDockWidget
    servers_dock: QDockWidget
    history_dock: QDockWidget
    tasks_dock: QDockWidget
    viewer_dock: QDockWidget
    menu_actions: MenuActions
    dock_fit: DockFit
    # The panes, set by `desktop_app.ui.shell.panes.fill_window` once the frame is complete.
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
        self._painted = False
        self.framed = False  # docks and menus in (`complete_frame`)
        self.filled = False
        self.setWindowTitle("MCP Desk")
        self.setCentralWidget(_placeholder())
        self.statusBar().showMessage("Starting…")
        self._restore_geometry()

    def complete_frame(self) -> None:
        """Build the docks and menus, laid out as the user left them (once; the first paint calls it)."""
        if self.framed:
            return
        from desktop_app.ui.shell.dock_fit import DockFit
        from desktop_app.ui.shell.window_menus import build_menus

        self.framed = True
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self.resources_dock = self._dock("Resources", "resourcesDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.servers_dock = self._dock("Servers", "serversDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.history_dock = self._dock("History", "historyDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tasks_dock = self._dock("Tasks", "tasksDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.resources_dock, self.servers_dock)
        self.tabifyDockWidget(self.servers_dock, self.history_dock)
        self.tabifyDockWidget(self.history_dock, self.tasks_dock)
        self.resources_dock.raise_()
        self.viewer_dock = self._dock("Viewer", "viewerDock", Qt.DockWidgetArea.RightDockWidgetArea)
        docks = (self.resources_dock, self.servers_dock, self.history_dock, self.tasks_dock, self.viewer_dock)
        self.menu_actions = build_menus(self, docks, self._export_servers, self._help)
        self.dock_fit = DockFit(self, self.viewer_dock)
        restored = QSettings()
        state = restored.value("window/state")  # anything, in a damaged or hand-edited file
        if isinstance(state, QByteArray) and self.restoreState(state):
            self.dock_fit.restore(restored)
        self.dock_fit.hide_viewer()  # it shows nothing yet: the chat has its room until something is opened
        # The conversation gets the most room, the docks flank it as wide as the user left them (on a
        # first start, wide enough for the servers panel).
        self.dock_fit.fit()

    def _dock(self, title: str, name: str, area: Qt.DockWidgetArea) -> QDockWidget:
        from PySide6.QtWidgets import QDockWidget

        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(_placeholder())
        self.addDockWidget(area, dock)
        return dock

    def _export_servers(self) -> None:
        """Servers → Export…: the user's servers for another client (its module loads with the first)."""
        from desktop_app.ui.servers.server_actions import ServerActions

        ServerActions(self, self.bridge).export_servers()

    def _help(self, entry: QAction) -> None:
        """Open the Help menu's window `entry` names (their module loads with the first)."""
        from desktop_app.ui.shell import help_dialogs

        getattr(help_dialogs, entry.data())(self)

    def _restore_geometry(self) -> None:
        """The window's size and place as the user left them (its docks' places come with `complete_frame`)."""
        geometry = QSettings().value("window/geometry")  # anything, in a damaged or hand-edited file
        if isinstance(geometry, QByteArray) and self.restoreGeometry(geometry):
            return
        # First run: the window never starts larger than the screen's free area (a laptop's 1366 × 768 is common).
        free = self.screen().availableGeometry()
        self.resize(min(1480, free.width()), min(920, free.height()))
        if (free.width() < 1480 or free.height() < 920) and QGuiApplication.platformName() not in HEADLESS:
            # A screen smaller than that: the window manager fits the window and its title bar to it (sized
            # to the free area, the title bar pushed the status bar below the screen's edge).
            self.setWindowState(Qt.WindowState.WindowMaximized)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self, self._first_painted)  # not inside a paint: building docks lays out again

    def _first_painted(self) -> None:
        self.complete_frame()
        self.sig_framed.emit()

    def show_painted(self) -> None:
        """Show the window and run Qt's events until it is painted and framed (before any other event loop exists)."""
        waiting = QEventLoop()
        self.sig_framed.connect(waiting.quit)
        give_up = QTimer(waiting)
        give_up.setSingleShot(True)
        give_up.timeout.connect(waiting.quit)
        give_up.start(FIRST_PAINT_WAIT_MS)
        self.show()
        if not self.framed:
            waiting.exec()
        self.sig_framed.disconnect(waiting.quit)

    def set_filled(self) -> None:
        """The panes are in and wired: each dock scrolls below its pane's minimum, and the widths are
        put back as the frame showed them (the panes' own size hints would move them)."""
        from PySide6.QtWidgets import QScrollArea

        from desktop_app.ui.shell.dock_fit import CHAT_MIN, scrolling

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
        if self.framed:  # closed before its docks were built: what was saved last time stays
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
