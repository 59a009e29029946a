"""Narrow windows: the chat column wins. The side docks shrink first, then the viewer folds into the
left docks' tabs; widening gives each dock back the width the user gave it. A dock is never made
narrower than its tab titles and the pane in front need while the chat keeps `CHAT_MIN`, and tab
titles are never elided ("R…"): below that they scroll.

The viewer takes room only while it shows something: opening a resource brings it (at the width the
user last gave it, folded and in front if the window is too narrow), closing what it shows gives its
room back to the chat. View → Viewer still shows or hides it as the user chooses.

Left to itself, QMainWindow keeps each dock's width while the window narrows (the conversation took
all the loss, and its content was cut) and gives every new pixel to the middle when it widens. Here
the widths are decided after each resize instead, from the widths the user chose by dragging a
dock's edge (remembered across starts, with whether the viewer was folded by us rather than by the
user). A dock's content scrolls sideways below its own minimum rather than being cut.
"""

from __future__ import annotations

import contextlib
from typing import Final, cast

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QStyle, QTabBar, QWidget

CHAT_MIN: Final = 420
"""The conversation column is never narrower: what it shows is laid out to fit this."""
CHAT_COMFORT: Final = 560
"""The docks shrink before the conversation gets narrower than this."""
DOCK_MIN: Final = 220
"""A dock may be this narrow; its content scrolls sideways below its own minimum."""
DOCK_COMFORT: Final = 300
"""Rather than squeeze the viewer and the left docks below this, the viewer folds into the left tabs."""
UNFOLD_MARGIN: Final = 40
"""Extra room needed before a folded viewer comes back, so a window at the edge does not flip-flop."""
DEFAULT_WIDTHS: Final = (460, 440)
"""The left docks' width on a first start (the servers panel needs about 460), and the viewer's when it first opens."""

_LEFT, _RIGHT = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea


def scrolling(pane: QWidget) -> QScrollArea:
    """`pane` in a frameless scroll area: below its minimum width it scrolls sideways instead of being cut."""
    area = QScrollArea()
    area.setObjectName(f"{pane.objectName() or type(pane).__name__}Scroller")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(pane)
    return area


class DockFit(QObject):
    """Decides the side docks' widths for `window`: whatever is docked left (the tabbed panes), and `viewer`."""

    def __init__(self, window: QMainWindow, viewer: QDockWidget) -> None:
        super().__init__(window)
        self._viewer = viewer
        self.wanted = {_LEFT: DEFAULT_WIDTHS[0], _RIGHT: DEFAULT_WIDTHS[1]}
        """The widths the user gave each side by dragging a dock's edge (or the first start's)."""
        self.folded = False
        """Whether the viewer sits in the left tabs because the window was too narrow (not the user's doing)."""
        self._front: QDockWidget | None = None
        """The left tab in front when the viewer folded: in front again when it unfolds from the front."""
        self._opened = False
        """The viewer was just shown on its side (something opened in it): if it must fold, it is in front."""
        self._dragging = False
        self._pressed: tuple[int | None, int | None] = (None, None)
        self._pending = QTimer(self, singleShot=True, interval=0)
        self._pending.timeout.connect(self.fit)
        viewer.dockLocationChanged.connect(self._viewer_moved)
        viewer.visibilityChanged.connect(self._viewer_shown)
        window.installEventFilter(self)

    @property
    def _window(self) -> QMainWindow:
        """The window, asked of Qt: held in an attribute it would never be freed (a child's wrapper lives as
        long as its parent, and the collector sees no cycle through Qt)."""
        return cast(QMainWindow, self.parent())

    # -- remembering ---------------------------------------------------------------------------

    def restore(self, settings: QSettings) -> None:
        """The widths and fold the window was closed with (its docks' places come with its state)."""
        widths = settings.value("window/dockWidths")
        if isinstance(widths, list) and len(widths) == 2:
            with contextlib.suppress(TypeError, ValueError):
                self.wanted = {_LEFT: max(DOCK_MIN, int(widths[0])), _RIGHT: max(DOCK_MIN, int(widths[1]))}
        self.folded = settings.value("window/viewerFolded") in (True, "true") and self._in_left_tabs()

    def save(self, settings: QSettings) -> None:
        settings.setValue("window/dockWidths", [self.wanted[_LEFT], self.wanted[_RIGHT]])
        settings.setValue("window/viewerFolded", self.folded)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A drag of a dock's edge is the user choosing its width: remembered once the mouse lets go."""
        kind = event.type()
        if watched is self._window and kind == QEvent.Type.MouseButtonPress:
            assert isinstance(event, QMouseEvent)
            if self._window.childAt(event.position().toPoint()) is None:  # between the panes: a separator
                self._dragging = True
                self._pressed = (self._width(_LEFT), self._width(_RIGHT))
        elif watched is self._window and kind == QEvent.Type.MouseButtonRelease and self._dragging:
            self._dragging = False
            for area, before in zip((_LEFT, _RIGHT), self._pressed, strict=True):
                if (width := self._width(area)) is not None and width != before:  # a click moves nothing
                    self.wanted[area] = max(DOCK_MIN, width)
        elif watched is self._window and kind == QEvent.Type.Resize:
            self._pending.start()
        return False

    def _viewer_shown(self, visible: bool) -> None:
        """Opened or closed: fit again (shown by any hand, and folded then, what it shows is in front)."""
        if visible and not self._in_left_tabs():
            self._opened = True
        self._pending.start()

    def _viewer_moved(self, area: Qt.DockWidgetArea) -> None:
        if area is not _LEFT:
            self.folded = False  # the user put it somewhere else: it is theirs again

    # -- fitting -------------------------------------------------------------------------------

    def _placed(self, area: Qt.DockWidgetArea) -> list[QDockWidget]:
        """The docks in `area` (open or not), the viewer last."""
        docks = [d for d in self._window.findChildren(QDockWidget) if d is not self._viewer]
        return [d for d in (*docks, self._viewer) if not d.isFloating() and self._window.dockWidgetArea(d) is area]

    def _docked(self, area: Qt.DockWidgetArea) -> list[QDockWidget]:
        """The docks on screen in `area`, the one in front of its tabs first (the others may still say visible)."""
        shown = [dock for dock in self._placed(area) if dock.isVisible()]
        return sorted(shown, key=lambda dock: dock.visibleRegion().isEmpty())

    def _width(self, area: Qt.DockWidgetArea) -> int | None:
        docks = self._docked(area)
        return docks[0].width() if docks else None

    def _in_left_tabs(self) -> bool:
        return self._window.dockWidgetArea(self._viewer) is _LEFT and any(
            self._viewer in self._window.tabifiedDockWidgets(dock) for dock in self._placed(_LEFT)
        )

    def fit(self) -> None:
        """Share the window's width: the chat first, then the docks as wanted, folding the viewer if need be."""
        if self._dragging and QGuiApplication.mouseButtons() == Qt.MouseButton.NoButton:
            self._dragging = False  # the button was let go where the window did not hear of it
        if self._window.centralWidget() is None or not self._window.isVisible() or self._dragging:
            return
        if self.folded and not self._viewer.toggleViewAction().isChecked():
            self._stow()  # the user closed the viewer: it is not brought back, and is the user's again
        left, right = bool(self._docked(_LEFT)), bool(self._docked(_RIGHT))
        fold_below = min(2 * DOCK_COMFORT, sum(self.wanted.values()))
        if self.folded and self._room(left + 1) >= fold_below + UNFOLD_MARGIN:
            self._unfold()
            right = True
            self._pending.start()  # once the layout has taken the viewer back, fit again
        elif left and right and self._room(2) < fold_below and self._fold():
            right = False
            if self._opened:
                self._viewer.raise_()
            self._pending.start()
        self._opened = False
        room = self._room(left + right)
        targets = self._lifted(_share(room, self.wanted[_LEFT] if left else 0, self.wanted[_RIGHT] if right else 0))
        docks, sizes = [], []
        for area, present, size in ((_LEFT, left, targets[0]), (_RIGHT, right, targets[1])):
            shown = self._docked(area)
            if present and shown:
                docks.append(shown[0])
                sizes.append(size)
        if docks:
            self._window.resizeDocks(docks, sizes, Qt.Orientation.Horizontal)

    def _lifted(self, targets: tuple[int, int]) -> tuple[int, int]:
        """`targets` raised to what each side's front dock needs, as far as the chat keeps `CHAT_MIN`."""
        left, right = targets
        sides = bool(left) + bool(right)
        spare = self._room(sides) + CHAT_COMFORT - CHAT_MIN  # what the docks may have down to the chat's minimum
        if left:
            left = max(left, min(self._needs(_LEFT), spare - right))
        if right:
            right = max(right, min(self._needs(_RIGHT), spare - left))
        return left, right

    def _needs(self, area: Qt.DockWidgetArea) -> int:
        """The width the front dock of `area` needs: its group's tab titles whole, its pane above its minimum."""
        docks = self._docked(area)
        if not docks:
            return 0
        front, need = docks[0], 0
        content = front.widget()
        if isinstance(content, QScrollArea) and (pane := content.widget()) is not None:
            need = pane.minimumSizeHint().width() + front.width() - content.viewport().width()
        for bar in self._tab_bars():
            titles = [bar.tabText(index) for index in range(bar.count())]
            if bar.isVisible() and front.windowTitle() in titles:
                need = max(need, sum(bar.tabSizeHint(index).width() for index in range(bar.count())))
        return need

    def _tab_bars(self) -> list[QTabBar]:
        """The tab bars of tabbed docks (the window makes them as docks are grouped): titles never elided,
        and a different tab in front is fitted for."""
        bars = self._window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        for bar in bars:
            if bar.elideMode() is not Qt.TextElideMode.ElideNone:
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)
                bar.currentChanged.connect(lambda _index: self._pending.start())
        return bars

    def _room(self, sides: int) -> int:
        """The width the docks of `sides` sides may share while the chat keeps `CHAT_COMFORT`."""
        extent = QStyle.PixelMetric.PM_DockWidgetSeparatorExtent
        separator = self._window.style().pixelMetric(extent, None, self._window)
        return self._window.width() - CHAT_COMFORT - separator * sides

    def _fold(self) -> bool:
        """The viewer joins the left docks' tabs (the tab in front stays in front)."""
        open_ = [dock for dock in self._placed(_LEFT) if dock.toggleViewAction().isChecked()]
        anchors = [dock for dock in open_ if dock is not self._viewer]
        if not anchors or self._window.dockWidgetArea(self._viewer) is not _RIGHT:
            return False
        front = next((dock for dock in anchors if not dock.visibleRegion().isEmpty()), None)
        self._window.tabifyDockWidget(anchors[-1], self._viewer)
        if front is not None:
            front.raise_()
        self._front = front
        self.folded = True
        return True

    def _unfold(self) -> None:
        self.folded = False
        others = (dock for dock in self._placed(_LEFT) if dock is not self._viewer)
        front = next((dock for dock in others if not dock.visibleRegion().isEmpty()), self._front)
        self._window.addDockWidget(_RIGHT, self._viewer)
        self._viewer.show()
        if front is not None and front.toggleViewAction().isChecked():
            front.raise_()  # not the viewer's neighbour, which the tabs would put in front

    def _stow(self) -> None:
        """A folded viewer that was closed goes back to its own side, closed: opened again, it is fitted
        anew (folded only if the window is still too narrow), never left among the left tabs for good."""
        self.folded = False
        front = self._front
        if self._window.dockWidgetArea(self._viewer) is _LEFT:  # (a closed dock is in no tabs)
            self._window.addDockWidget(_RIGHT, self._viewer)
            self._viewer.hide()
        if front is not None and front.toggleViewAction().isChecked():
            front.raise_()

    def show_viewer(self) -> None:
        """Something opened in the viewer: it is shown, at the width the user last gave it, folded into the
        left tabs (in front) when the window is too narrow for both sides."""
        if not self._viewer.toggleViewAction().isChecked():
            if self._docked(_LEFT) and self._room(2) < min(2 * DOCK_COMFORT, sum(self.wanted.values())):
                self._fold()  # before it is shown: it never flashes in a column it has no room for
            self._viewer.show()
        self.fit()  # shown by another hand first (a chip in the chat): folded now if it must be
        if self._in_left_tabs():
            self._viewer.raise_()  # what was opened is in front
        self._pending.start()  # and fitted again once the layout has it

    def hide_viewer(self) -> None:
        """The viewer shows nothing any more: its room goes back to the chat (shown again when something opens)."""
        if self.folded:
            self._stow()
        self._viewer.hide()
        self._pending.start()


def _share(room: int, left: int, right: int) -> tuple[int, int]:
    """Each side's width within `room`: as wanted when it fits, else shrunk alike (never below `DOCK_MIN`)."""
    if left + right <= room:
        return left, right
    if not right:
        return max(DOCK_MIN, room), 0
    if not left:
        return 0, max(DOCK_MIN, room)
    scale = max(room, 0) / (left + right)
    return max(DOCK_MIN, int(left * scale)), max(DOCK_MIN, int(right * scale))
