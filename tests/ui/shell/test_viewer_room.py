"""The viewer takes room only while it shows something. A first start shows none and the chat has its
room; opening a resource (from the tree, a template's form) brings it at the width it last had; its
Close button, by mouse or keyboard, gives the room back; View → Viewer still shows (even empty) and hides
it as the user chooses; a Markdown document shown as the viewer opens is read from its top."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.resource_ref import ResourceRef
from desktop_app.ui.shell.dock_fit import CHAT_COMFORT
from desktop_app.ui.shell.main_window import MainWindow
from resources_ui.viewers.text_viewer import MarkdownViewer
from tests.servers.fixture_server import ITEM_TEMPLATE
from tests.ui.chat_window import run_fixture_window, until

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")


async def fitted(window: MainWindow) -> None:
    await until(lambda: not window.dock_fit._pending.isActive(), what="the docks fitted")
    await asyncio.sleep(0.05)  # let the layout apply what was fitted


def test_the_viewer_comes_with_what_it_shows_and_gives_its_room_back(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    QSettings().remove("window")  # a first start

    async def scenario(window: MainWindow) -> None:
        window.resize(1600, 900)
        await until(lambda: window.width() == 1600, what="the window at 1600 px")
        await fitted(window)
        dock, viewer, chat = window.viewer_dock, window.resources.viewer, window.centralWidget()
        assert not dock.isVisible() and not window.resources.occupied, "nothing to show: no viewer"
        whole = chat.width()
        assert whole >= 1600 - window.resources_dock.width() - 20, "the chat has the viewer's room"

        browser = window.resources.browser
        await until(lambda: browser.index_of("fx", "fixture://long").isValid(), what="the fixture's resources")
        index = browser.index_of("fx", "fixture://long")
        browser.view.scrollTo(index)
        qtbot.mouseDClick(
            browser.view.viewport(), Qt.MouseButton.LeftButton, pos=browser.view.visualRect(index).center()
        )
        await until(lambda: dock.isVisible() and dock.width() == 440, what="the viewer at its first width")
        await fitted(window)
        assert chat.width() < whole - 400 and viewer.close_button.isVisible()

        viewer.close_button.setFocus()  # Close is reached by keyboard too
        qtbot.keyClick(viewer.close_button, Qt.Key.Key_Space)
        await until(lambda: not dock.isVisible(), what="the viewer gone")
        await fitted(window)
        assert chat.width() == whole and viewer.current_ref is None, "the room is the chat's again"

        # A click on a row opens it too (where the user pauses); a template's form closes the same way.
        for uri, shown in (("fixture://long", viewer.text_viewer), (ITEM_TEMPLATE, window.resources.template_form)):
            row = browser.view.visualRect(browser.index_of("fx", uri)).center()
            qtbot.mouseClick(browser.view.viewport(), Qt.MouseButton.LeftButton, pos=row)
            await until(lambda shown=shown: dock.isVisible() and shown.isVisible(), what=f"{uri} shown")
            await until(lambda: not browser._preview_timer.isActive(), what="the preview done")
            assert viewer.close_button.isVisible()
            viewer.close_button.click()
            await until(lambda: not dock.isVisible(), what="closed, the viewer gone")
            assert window.resources.template_form.isHidden() and viewer.current_ref is None

        # The user's own choice: View → Viewer shows it empty and it stays, until they hide it.
        dock.toggleViewAction().trigger()
        await until(lambda: dock.isVisible() and dock.width() == 440, what="the empty viewer, as asked")
        await fitted(window)
        assert viewer.placeholder.isVisible() and dock.isVisible()
        dock.toggleViewAction().trigger()
        await until(lambda: not dock.isVisible(), what="hidden again")
        await fitted(window)
        assert chat.width() == whole

        # In a narrow window a chip in the chat opens the viewer folded into the left tabs, in front; so
        # does a second one after the user hid the viewer (View → Viewer) with something in it.
        window.resize(1024, 640)
        await until(lambda: window.width() == 1024, what="the window at 1024 px")
        await fitted(window)
        for uri in ("fixture://long", "fixture://data.json"):
            window.chat_actions.open_resource(ResourceRef("fx", uri, uri))
            await until(lambda: dock.isVisible() and not dock.visibleRegion().isEmpty(), what=f"{uri} in front")
            await fitted(window)
            assert window.viewer_dock in window.tabifiedDockWidgets(window.resources_dock), "folded"
            assert not dock.visibleRegion().isEmpty() and chat.width() >= CHAT_COMFORT
            dock.toggleViewAction().trigger()
            await until(lambda: not dock.isVisible(), what="hidden by the user")
            await fitted(window)

    run_fixture_window(qapp, tmp_path, scenario)


def test_a_markdown_document_shown_as_the_viewer_opens_is_read_from_its_top(qapp: QApplication, qtbot: QtBot) -> None:
    viewer = MarkdownViewer()
    qtbot.addWidget(viewer)
    viewer.resize(300, 20)  # laid out before the viewer is on screen, as in a closed dock
    viewer.show_markdown("\n\n".join(f"# Part {n}\n\n" + "words " * 80 for n in range(40)), "text/markdown")
    viewer.resize(300, 500)
    viewer.show()
    qtbot.waitExposed(viewer)
    scroll = viewer.rendered.verticalScrollBar()
    assert scroll.maximum() > 0 and scroll.value() == 0
