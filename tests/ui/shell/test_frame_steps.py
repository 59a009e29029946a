"""The window comes in steps: the frame painted first, its docks and menus right after, as the user left them."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt
from PySide6.QtWidgets import QApplication, QDockWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.shell.main_window import MainWindow


class FirstPaint(QObject):
    """What the window had when it was first painted."""

    def __init__(self) -> None:
        super().__init__()
        self.docks: int | None = None
        self.menus: int | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.docks is None and isinstance(watched, MainWindow):
            self.docks = len(watched.findChildren(QDockWidget))
            self.menus = len(watched.menuBar().actions())
        return False


def framed(qtbot: QtBot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.framed)
    return window


def test_the_frame_is_painted_first_and_its_docks_and_menus_follow_before_the_panes(
    qapp: QApplication, qtbot: QtBot
) -> None:
    QSettings().remove("window")
    window = MainWindow()
    qtbot.addWidget(window)
    seen = FirstPaint()
    window.installEventFilter(seen)
    framed_when_announced: list[bool] = []
    window.sig_framed.connect(lambda: framed_when_announced.append(window.framed))
    window.show_painted()
    assert (seen.docks, seen.menus) == (0, 0), "the first paint is the frame alone"
    assert window.windowTitle() == "MCP Desk" and window.statusBar().currentMessage() == "Starting…"
    assert framed_when_announced == [True], "the panes are told to load once the docks are in"
    assert sorted(d.objectName() for d in window.findChildren(QDockWidget)) == [
        "historyDock",
        "resourcesDock",
        "serversDock",
        "tasksDock",
        "viewerDock",
    ]
    assert [a.text() for a in window.menuBar().actions()] == ["&File", "&Servers", "&View", "&Help"]
    assert not window.viewer_dock.isVisible(), "the viewer shows nothing yet"
    window.complete_frame()  # once only: a second call builds nothing more
    assert len(window.findChildren(QDockWidget)) == 5


def test_the_docks_come_back_where_the_user_left_them(qapp: QApplication, qtbot: QtBot) -> None:
    QSettings().remove("window")
    first = framed(qtbot)
    first.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, first.history_dock)
    first.resize(760, 560)  # within the offscreen screen
    first.close()  # the first close saves the layout and asks the app to stop
    assert first.close_requested

    again = framed(qtbot)
    assert again.dockWidgetArea(again.history_dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert again.dockWidgetArea(again.servers_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert (again.width(), again.height()) == (760, 560)


def test_closed_before_its_docks_were_built_it_keeps_the_layout_saved_before(qapp: QApplication, qtbot: QtBot) -> None:
    QSettings().remove("window")
    first = framed(qtbot)
    first.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, first.history_dock)
    first.close()
    saved = QSettings().value("window/state")

    hurried = MainWindow()  # closed before it was ever painted (a quit at once)
    qtbot.addWidget(hurried)
    hurried.close()
    assert hurried.close_requested and not hurried.framed
    assert QSettings().value("window/state") == saved, "an empty frame's layout would lose the user's docks"

    again = framed(qtbot)
    assert again.dockWidgetArea(again.history_dock) == Qt.DockWidgetArea.RightDockWidgetArea


def test_a_damaged_saved_layout_gives_the_first_start_layout(qapp: QApplication, qtbot: QtBot) -> None:
    QSettings().setValue("window/geometry", QByteArray(b"\x00garbage"))
    QSettings().setValue("window/state", "not a state")
    QSettings().setValue("window/dockWidths", ["wide", None])
    window = framed(qtbot)
    assert window.dockWidgetArea(window.history_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert window.dockWidgetArea(window.viewer_dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert window.width() > 0 and window.resources_dock.isVisible()
    QSettings().remove("window")
