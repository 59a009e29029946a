"""The window at every size. The viewer takes room only while it shows something: a first start shows
none, opening a resource brings it and closing it gives its room back to the chat. The chat column wins a
narrow window (the docks shrink, then the viewer folds into the left tabs), widening gives the viewer that
shows something its width back, and the widths the user dragged come back at the next start. Nothing on
screen is cut, at 1024x640 and even at 800x600: every visible label's and button's text fits where it is
seen (a tool card's and an approval's claims wrap), the folded docks' tab titles are whole, the viewer's
meta line and the status bar say what fits in full, and the empty composer leaves the height to the
conversation. Screenshots of each size are saved in the test's folder."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QTabBar, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.approval import ApprovalRequest, Requester
from desktop_app.core.chat.events import ToolCallStarted, ToolDecision, ToolResult
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.trust import ServerTrust, ToolHints
from desktop_app.qt_kit.elided_label import ElidedLabel
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.composer import MAX_LINES, MIN_LINES
from desktop_app.ui.shell.dock_fit import CHAT_COMFORT, CHAT_MIN, DOCK_COMFORT
from desktop_app.ui.shell.main_window import MainWindow
from desktop_app.ui.widgets.fitting_label import FittingLabel
from resources_ui.viewers.viewer_pane import ViewerKind
from tests.ui.chat_window import run_fixture_window, until

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")

LONG_SERVER = "a-server-with-a-rather-long-name"
EVERY_CLAIM = ToolHints(read_only=True, destructive=False, idempotent=True, open_world=True)


async def resized(window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    await until(lambda: window.size().toTuple() == (width, height), what=f"the window at {width}x{height}")
    await until(lambda: not window.dock_fit._pending.isActive(), what="the docks fitted")
    await asyncio.sleep(0.05)  # let the layout apply what was fitted


def cut(window: MainWindow) -> list[str]:
    """Every visible text the window shows only in part: wider than what is seen of its widget."""
    problems = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or (seen := widget.visibleRegion().boundingRect()).isEmpty():
            continue
        if isinstance(widget, FittingLabel):
            text = widget.shown()
        elif isinstance(widget, ElidedLabel):  # it shortens on purpose; what it shows must be seen
            text = QLabel.text(widget)
        elif isinstance(widget, QLabel) and not widget.wordWrap():
            text = widget.text() if widget.textFormat().name != "RichText" else ""
        elif isinstance(widget, QAbstractButton):
            text = widget.text()
        else:
            continue
        if text and "\n" not in text and widget.fontMetrics().horizontalAdvance(text) > seen.width() + 2:
            problems.append(f"{type(widget).__name__} {widget.objectName()!r} {text[:40]!r}")
    for bar in window.findChildren(QTabBar):
        if bar.isVisible() and bar.parent() is window:
            for index in range(bar.count()):
                if bar.tabRect(index).width() < bar.tabSizeHint(index).width():
                    problems.append(f"tab {bar.tabText(index)!r} elided")
                if not bar.rect().contains(bar.tabRect(index)):
                    problems.append(f"tab {bar.tabText(index)!r} scrolled out of sight")
    return problems


async def drag(window: MainWindow, start: QPoint, end: QPoint) -> None:
    """Press, move and release the left button on the window itself, where its dock separators are.

    The window moves a separator on its next turn after a move: the button is let go only after that."""
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    for kind, at, button, held in (
        (QEvent.Type.MouseButtonPress, start, left, left),
        (QEvent.Type.MouseMove, end, none, left),
        (QEvent.Type.MouseButtonRelease, end, left, none),
    ):
        point = QPointF(at)
        event = QMouseEvent(kind, point, window.mapToGlobal(point), button, held, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(window, event)
        await asyncio.sleep(0.05)


def folded(window: MainWindow) -> bool:
    return window.viewer_dock in window.tabifiedDockWidgets(window.resources_dock)


def uncut(window: MainWindow) -> list[str]:
    """What the conversation column would cut: anything wider than its view."""
    view = window.conversation
    inner = view.widget()
    assert inner is not None
    width = view.viewport().width()
    problems = [] if inner.width() <= width else [f"inner {inner.width()} > {width}"]
    for child in inner.findChildren(QWidget):
        if child.isVisible() and child.mapTo(inner, QPoint(child.width(), 0)).x() > inner.width():
            problems.append(f"{type(child).__name__} {child.objectName()} ends past the column")
    return problems


def test_narrow_windows_keep_the_chat_whole_and_widening_gives_the_viewer_back(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    QSettings().remove("window")  # a first start

    async def first(window: MainWindow) -> None:
        await resized(window, 1920, 1080)
        assert not window.viewer_dock.isVisible(), "a first start shows no viewer: it has nothing to show"
        assert window.resources_dock.width() == 460
        separator = window.centralWidget().geometry().left() - window.resources_dock.geometry().right()
        assert window.centralWidget().width() >= 1920 - 460 - 2 * separator, "the chat has the viewer's room"
        window.grab().save(str(tmp_path / "empty-1920x1080.png"))

        await resized(window, 1024, 640)
        assert not folded(window) and not window.viewer_dock.isVisible()
        assert window.centralWidget().width() >= CHAT_COMFORT and uncut(window) == []
        assert window.resources_dock.isVisible(), "the tab in front stays in front"
        assert window.minimumSizeHint().width() < 700
        window.grab().save(str(tmp_path / "empty-1024x640.png"))  # the Choose a model card, whole
        assert window.conversation.first_steps.isVisible(), "the first start offers something to try"
        assert not window.conversation.verticalScrollBar().isVisible(), "the empty chat fits: nothing to scroll"

        conversation = window.conversation
        conversation.add_user_message("Echo a long argument for me, and say what the server claims about the tool.")
        hints = ToolHints(read_only=True, destructive=False, idempotent=True, open_world=False)
        conversation.apply(
            ToolCallStarted(
                "c1", "fx__echo", {"text": "a long argument " * 20}, "fx-with-a-long-name", "echo", hints=hints
            )
        )
        conversation.apply(ToolDecision("c1", "fx-with-a-long-name", "echo", True, "user", "allow_once", {"t": 1}))
        conversation.apply(ToolResult("c1", "fx__echo", "done"))

        # Opening a resource in a narrow window: the viewer comes, folded into the left tabs and in front.
        browser = window.resources.browser
        await until(lambda: browser.index_of("fx", "fixture://long").isValid(), what="the fixture's resources")
        index = browser.index_of("fx", "fixture://long")
        browser.view.scrollTo(index)
        center = browser.view.visualRect(index).center()
        qtbot.mouseDClick(browser.view.viewport(), Qt.MouseButton.LeftButton, pos=center)
        await until(lambda: window.viewer_dock.isVisible(), what="the viewer's tab in front for what was opened")
        await resized(window, 1024, 640)
        assert folded(window), "too narrow for both docks: the viewer is a tab beside the resources"
        assert window.centralWidget().width() >= CHAT_COMFORT

        for width, height in ((1024, 640), (1280, 800), (1920, 1080)):
            await resized(window, width, height)
            assert uncut(window) == [], f"at {width}x{height}"
            window.grab().save(str(tmp_path / f"chat-{width}x{height}.png"))
            if width == 1280:
                assert not folded(window) and window.centralWidget().width() >= CHAT_COMFORT
                assert min(window.resources_dock.width(), window.viewer_dock.width()) >= DOCK_COMFORT
        assert (window.resources_dock.width(), window.viewer_dock.width()) == (460, 440), "widened: widths back"

        # Closing what it shows gives the room back to the chat, folded or not.
        chat_with_viewer = window.centralWidget().width()
        window.resources.viewer.close_button.click()
        await until(lambda: not window.viewer_dock.isVisible(), what="the emptied viewer gone")
        await resized(window, 1920, 1080)
        assert window.centralWidget().width() > chat_with_viewer + 400, "the viewer's room is the chat's again"
        await resized(window, 1024, 640)
        qtbot.mouseDClick(browser.view.viewport(), Qt.MouseButton.LeftButton, pos=center)
        await until(lambda: window.viewer_dock.isVisible() and folded(window), what="the viewer folded again")
        window.resources.viewer.close_button.click()
        await until(lambda: not window.viewer_dock.isVisible(), what="the folded viewer closed")
        assert not folded(window) and window.resources_dock.isVisible(), "the resources in front again"
        assert window.dockWidgetArea(window.viewer_dock) is Qt.DockWidgetArea.RightDockWidgetArea, "back on its side"

        qtbot.mouseDClick(browser.view.viewport(), Qt.MouseButton.LeftButton, pos=center)
        await until(lambda: window.viewer_dock.isVisible(), what="the viewer back for the resource")
        await resized(window, 1600, 900)
        assert not folded(window)
        # The separator between the left docks and the chat.
        edge = (window.resources_dock.geometry().right() + window.centralWidget().geometry().left()) // 2
        y = window.resources_dock.geometry().center().y()
        assert window.childAt(QPoint(edge, y)) is None
        await drag(window, QPoint(edge, y), QPoint(edge + 60, y))
        await until(lambda: window.resources_dock.width() == 520, what="the dragged width")
        assert window.dock_fit.wanted[Qt.DockWidgetArea.LeftDockWidgetArea] == 520

    run_fixture_window(qapp, tmp_path, first)

    async def again(window: MainWindow) -> None:
        assert window.dock_fit.wanted[Qt.DockWidgetArea.LeftDockWidgetArea] == 520
        await resized(window, 1600, 900)  # (restored within the test screen's 800x800 first)
        await until(lambda: window.resources_dock.width() == 520, what="the width the user left")
        assert not window.viewer_dock.isVisible(), "nothing to show at a start: no viewer"
        window.chat_actions.open_resource(ResourceRef("fx", "fixture://long", "Long"))  # a chip in the chat
        await until(lambda: window.viewer_dock.width() == 440, what="the viewer at the width it had")
        assert not folded(window)

        await resized(window, 1024, 640)
        assert folded(window)
        window.viewer_dock.toggleViewAction().trigger()  # View → Viewer: the user closes it
        await resized(window, 1920, 1080)
        assert not window.viewer_dock.isVisible(), "a viewer the user closed is not brought back"
        window.viewer_dock.toggleViewAction().trigger()  # and opens it again: what it showed, on its side
        await until(lambda: window.viewer_dock.width() == 440, what="the viewer at the width it had")
        assert not folded(window) and window.resources.viewer.current_ref is not None

    run_fixture_window(qapp, tmp_path, again)


def test_nothing_is_cut_at_narrow_sizes_and_the_composer_grows_with_its_text(
    qapp: QApplication, tmp_path: Path
) -> None:
    QSettings().remove("window")  # a first start

    async def scenario(window: MainWindow) -> None:
        viewer = window.resources.viewer
        window.chat_actions.open_resource(ResourceRef("fx", "fixture://doc.pdf", "A document", "application/pdf"))
        await until(lambda: viewer.current_kind is ViewerKind.PDF, what="the PDF in the viewer")
        window.status_meter.update_model()
        chat = window.conversation
        chat.apply(ToolCallStarted("c1", "fx__echo", {"text": "hi"}, LONG_SERVER, "echo", hints=EVERY_CLAIM))
        chat.apply(ToolResult("c1", "fx__echo", "done"))
        app_asks = ApprovalRequest(
            server=LONG_SERVER,
            tool="echo",
            call_id="c1",
            arguments={"text": "again"},
            hints=EVERY_CLAIM,
            trust=ServerTrust(trusted=False),
            requester=Requester.APP,
            app="ui://fx/board.html",
        )
        panel = ApprovalPanel(app_asks)  # an app view's call stands alone, with the claims of its own
        chat.add_below("c1", panel)
        editor = window.composer.editor
        line = editor.fontMetrics().lineSpacing()
        for width, height in ((1024, 640), (800, 600)):
            await resized(window, width, height)
            window.grab().save(str(tmp_path / f"{width}x{height}.png"))
            assert window.dock_fit.folded, "the viewer is a tab beside the resources"
            assert cut(window) == [], f"at {width}x{height}"
            assert uncut(window) == [], f"at {width}x{height}"
            claims = [row for row in chat.findChildren(QWidget, "hintBadges") if row.isVisible()]
            assert len(claims) == 2, "the tool card's claims and the app's approval's"
            if width == 800:
                assert all(len({label.y() for label in row.findChildren(QLabel)}) > 1 for row in claims), "wrapped"
            assert window.centralWidget().width() >= CHAT_MIN
            assert viewer.meta.text() in QLabel.text(viewer.meta), "the meta line is whole"
            assert all(label.fits() for label in window.statusBar().findChildren(FittingLabel) if label.isVisible())
            assert editor.height() < (MIN_LINES + 1) * line + 20, "the empty composer is two lines tall"

        editor.setPlainText("\n".join(f"line {n}" for n in range(3)))
        await until(lambda: editor.height() >= 3 * line, what="the composer grown to three lines")
        editor.setPlainText("\n".join(f"line {n}" for n in range(40)))
        await until(lambda: editor.height() >= MAX_LINES * line, what="the composer at its tallest")
        assert editor.height() < (MAX_LINES + 1) * line + 20, "then it scrolls"
        editor.clear()
        await until(lambda: editor.height() < (MIN_LINES + 1) * line + 20, what="back to two lines")
        panel.withdraw("the test is over")

        # Widening gives the viewer its side back, and the tab the user had in front is in front again.
        window.servers_dock.raise_()
        await resized(window, 1920, 1080)
        assert not window.dock_fit.folded and window.viewer_dock.isVisible()
        await until(lambda: not window.servers_dock.visibleRegion().isEmpty(), what="Servers in front again")
        assert cut(window) == []

    run_fixture_window(qapp, tmp_path, scenario)
