"""The resource browser, the viewer and a completion over real stdio, with the demo server as a child
process: the other browser and viewer tests talk to server objects inside the test's process."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.server_config import TransportKind
from desktop_app.core.server_status import ServerState
from resources_ui.tree_model import ENTRY_ROLE
from resources_ui.viewers.viewer_pane import ViewerKind
from resources_ui.workspace import ResourceWorkspace
from tests.hosting import demo_config, eventually, live_children
from tests.window_kit import run_in_qt, stdio_bridge

# The offscreen platform cannot raise or grab for the completion popup; that is not ours to fix.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")
NOTE_TEMPLATE = "demo://notes/{topic}"


def double_click(qtbot: QtBot, workspace: ResourceWorkspace, index: QModelIndex) -> None:
    """What the user does on a row: scroll to it and double-click it."""
    view = workspace.browser.view
    view.scrollTo(index)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())


async def open_from_tree(qtbot: QtBot, workspace: ResourceWorkspace, uri: str) -> ViewerKind:
    """Double-click `uri`'s row and wait until the viewer shows it."""
    shown: list[ViewerKind] = []
    viewer = workspace.viewer
    viewer.content_shown.connect(shown.append)
    try:
        double_click(qtbot, workspace, workspace.browser.index_of("demo", uri))
        await eventually(lambda: shown and viewer.current_ref is not None, timeout=60, what=f"{uri} shown")
    finally:
        viewer.content_shown.disconnect(shown.append)
    ref = viewer.current_ref
    assert ref is not None and ref.uri == uri
    return shown[-1]


@pytest.mark.stdio
def test_the_demo_over_stdio_fills_the_tree_opens_each_kind_and_completes_a_template(
    qapp: QApplication, qtbot: QtBot
) -> None:
    started: list[int] = []

    async def scenario() -> None:
        before = set(live_children())  # a worker process an earlier test left running in this process
        bridge = await stdio_bridge([demo_config()])
        host = bridge.host
        workspace = ResourceWorkspace(bridge)
        browser, viewer, form = workspace.browser, workspace.viewer, workspace.template_form
        browser.resize(400, 700)
        workspace.detail.resize(900, 700)
        browser.show()
        workspace.detail.show()
        try:
            connection = host.connection("demo")
            assert connection.status.state is ServerState.READY
            [server_pid] = set(live_children()) - before
            started.append(server_pid)
            assert connection.config.transport is TransportKind.STDIO
            proxy = browser.proxy
            await eventually(lambda: browser.index_of("demo", "demo://guide").isValid(), what="the demo's resources")
            assert proxy.data(proxy.index(0, 0)) == "demo" and proxy.data(proxy.index(0, 2)) == "ready"
            server = proxy.index(0, 0)
            listed = {proxy.data(proxy.index(row, 0, server), ENTRY_ROLE).uri for row in range(proxy.rowCount(server))}
            assert {"demo://guide", "demo://report.pdf", "demo://diagram.png", NOTE_TEMPLATE} <= listed

            # Each kind of content, read over the pipe (a PDF and a PNG as base64 blobs).
            assert await open_from_tree(qtbot, workspace, "demo://guide") is ViewerKind.MARKDOWN
            assert viewer.markdown_viewer.rendered.toPlainText().startswith("Getting started with MCP Desk")
            assert await open_from_tree(qtbot, workspace, "demo://report.pdf") is ViewerKind.PDF
            assert viewer.pdf_viewer.page_count >= 1
            assert await open_from_tree(qtbot, workspace, "demo://diagram.png") is ViewerKind.IMAGE
            assert viewer.image_viewer.image_size == (800, 500)

            # A template: its form, the server's completions for what is typed, then Open.
            double_click(qtbot, workspace, browser.index_of("demo", NOTE_TEMPLATE))
            await eventually(lambda: form.isVisibleTo(workspace.detail), what="the template's form")
            completions: list[list[str]] = []
            form.completions_shown.connect(lambda _name, values: completions.append(values))
            qtbot.keyClicks(form.field("topic"), "tra")
            await eventually(lambda: completions, timeout=60, what="the server's completions over stdio")
            assert completions[-1] == ["transports"]
            form.field("topic").setText("transports")  # as picking the completion does
            shown: list[ViewerKind] = []
            viewer.content_shown.connect(shown.append)
            qtbot.mouseClick(form.open_button, Qt.MouseButton.LeftButton)
            await eventually(lambda: shown, timeout=60, what="the filled-in template shown")
            assert shown == [ViewerKind.MARKDOWN]
            assert viewer.markdown_viewer.rendered.toPlainText().startswith("Transports")
        finally:
            await host.stop_all()
            for widget in (browser, workspace.detail):
                shiboken6.delete(widget)  # now, not whenever the garbage collector gets to its cycles

    run_in_qt(qapp, scenario())
    assert started and started[0] not in live_children(), "the server's process is gone"
