"""The resource browser against real servers: tree, filter, drag, keyboard and menu, live updates."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QMimeData, QModelIndex, QPoint, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyledItemDelegate, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_status import ServerState
from desktop_app.demo_server import build_server as build_demo_server
from desktop_app.qt_kit.drag_payload import RESOURCES_MIME, decode_resources, encode_resources
from resources_ui.browser import ResourceBrowser
from resources_ui.filter_proxy import CHUNK, MIN_FIRST, SCREENFUL
from resources_ui.tree_delegate import ResourceRowDelegate
from resources_ui.tree_model import ENTRY_ROLE
from tests.hosting import eventually
from tests.servers.fixture_server import RESOURCE_URIS, build_fixture_server
from tests.servers.paginated_server import build_paginated_server
from tests.window_kit import inprocess_bridge, run_in_qt


def children(browser: ResourceBrowser, server_row: int, column: int = 0) -> list[str]:
    proxy = browser.proxy
    parent = proxy.index(server_row, 0)
    return [proxy.data(proxy.index(row, column, parent)) for row in range(proxy.rowCount(parent))]


def test_tree_shows_servers_status_counts_and_details(qapp: QApplication, qtmodeltester: Any) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server(), "demo": build_demo_server()})
        browser = ResourceBrowser(bridge)
        qtmodeltester.check(browser.model)
        qtmodeltester.check(browser.proxy)
        proxy = browser.proxy
        try:
            assert [proxy.data(proxy.index(r, 0)) for r in range(proxy.rowCount())] == ["fx", "demo"]
            assert proxy.data(proxy.index(0, 1)) == "6 resources · 1 template"
            assert proxy.data(proxy.index(0, 2)) == "ready"
            assert not proxy.data(proxy.index(0, 0), Qt.ItemDataRole.DecorationRole).isNull()
            assert children(browser, 0, 1) == [*RESOURCE_URIS, "fixture://items/{item_id}"]
            assert children(browser, 0) == [
                "long",
                "doc.pdf",
                "image.png",
                "data.json",
                "corrupt.pdf",
                "huge.png",
                "item",
            ]
            assert children(browser, 0, 2)[:2] == ["text/plain", "application/pdf"]
            assert children(browser, 0, 2)[-1] == "template · text/plain"
            long_index = proxy.index(0, 0, proxy.index(0, 0))
            assert "~60k chars of text" in proxy.data(long_index, Qt.ItemDataRole.ToolTipRole)
            # The demo server reports sizes; they are shown human-readable.
            demo_sizes = children(browser, 1, 3)
            assert demo_sizes[0].endswith("KB")
            assert "Getting started with MCP Desk" in children(browser, 1)
            assert browser.view.isExpanded(proxy.index(0, 0)) and browser.view.isExpanded(proxy.index(1, 0))
            # Painting asks for every role of a cell at once (multiData): it sees what data() says.
            delegate = QStyledItemDelegate()
            for row in range(proxy.rowCount(proxy.index(1, 0))):
                for column in range(proxy.columnCount()):
                    index = proxy.index(row, column, proxy.index(1, 0))
                    option = QStyleOptionViewItem()
                    delegate.initStyleOption(option, index)
                    assert option.text == proxy.data(index)
                    assert option.icon.isNull() is (column != 0)
                    right = bool(option.displayAlignment & Qt.AlignmentFlag.AlignRight)
                    assert right is (column == 3)
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_the_tree_reads_at_a_dock_width(qapp: QApplication) -> None:
    """One column of two-line rows: nothing needs a horizontal scrollbar, every URI stays told apart."""

    async def scenario() -> None:
        bridge = await inprocess_bridge({"demo": build_demo_server()})
        browser = ResourceBrowser(bridge)
        browser.resize(320, 600)  # narrower than the dock's default
        browser.show()
        view, proxy = browser.view, browser.proxy
        try:
            await eventually(lambda: proxy.rowCount(proxy.index(0, 0)) > 5, what="the demo's resources")
            assert view.isHeaderHidden() and all(view.isColumnHidden(c) for c in (1, 2, 3))
            assert not view.horizontalScrollBar().isVisible()
            server = proxy.index(0, 0)

            def secondary_text(index: QModelIndex) -> str:
                look = proxy.row_look(index)
                assert look is not None
                return look.detail

            assert secondary_text(server) == proxy.data(proxy.index(0, 1))  # what it offers
            rows = [proxy.index(row, 0, server) for row in range(proxy.rowCount(server))]
            guide = next(i for i in rows if proxy.data(i) == "Getting started with MCP Desk")
            assert secondary_text(guide).startswith("demo://guide · text/markdown · ")
            assert "text/markdown" in proxy.data(guide, Qt.ItemDataRole.ToolTipRole)
            delegate = view.itemDelegate()
            assert isinstance(delegate, ResourceRowDelegate)
            height = view.visualRect(guide).height()
            assert height >= 2 * view.fontMetrics().height(), "name over URI, type and size"
            metrics = view.fontMetrics()
            width = view.viewport().width() - 40
            shown = [metrics.elidedText(secondary_text(i), Qt.TextElideMode.ElideMiddle, width) for i in rows]
            assert len(set(shown)) == len(shown), f"two rows read the same: {shown}"
            view.grab()  # paints every visible row through the delegate
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_filter_as_you_type_ranks_prefix_matches_first(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server(), "demo": build_demo_server()})
        browser = ResourceBrowser(bridge)
        qtbot.addWidget(browser)
        try:
            qtbot.keyClicks(browser.filter_edit, "pdf")
            await eventually(lambda: browser.proxy.query == "pdf", what="filter applied")
            assert children(browser, 0) == ["doc.pdf", "corrupt.pdf"]
            assert browser.proxy.data(browser.proxy.index(0, 1)) == "2 of 7 match"
            assert children(browser, 1) == ["Field report: hosting MCP servers on the desktop"]
            browser.filter_edit.setText("report field")
            await eventually(lambda: browser.proxy.query == "report field", what="words in any order")
            assert children(browser, 0) == [] and len(children(browser, 1)) == 1
            browser.filter_edit.setText("no")
            await eventually(lambda: browser.proxy.query == "no", what="ranked filter")
            # "Notes log" starts with "no"; "Topic note" only has a word starting with it.
            names = children(browser, 1)
            assert names.index("Notes log") < names.index("Topic note")
            browser.filter_edit.clear()
            await eventually(lambda: browser.proxy.query == "", what="cleared")
            assert len(children(browser, 0)) == 7
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_drag_payload_round_trip(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        browser = ResourceBrowser(bridge)
        try:
            proxy = browser.proxy
            server = proxy.index(0, 0)
            rows = [proxy.index(r, c, server) for r in (1, 3, 6) for c in range(4)]  # doc.pdf, data.json, template
            mime = proxy.mimeData(rows)
            assert set(proxy.mimeTypes()) <= set(mime.formats()) | {"text/uri-list"}
            refs = decode_resources(mime)
            assert refs == [
                ResourceRef("fx", "fixture://doc.pdf", "doc.pdf", "application/pdf"),
                ResourceRef("fx", "fixture://data.json", "data.json", "application/json"),
            ]
            assert [url.toString() for url in mime.urls()] == ["fixture://doc.pdf", "fixture://data.json"]
            assert mime.text() == "fixture://doc.pdf\nfixture://data.json"
            assert proxy.flags(rows[0]) & Qt.ItemFlag.ItemIsDragEnabled
            assert not proxy.flags(rows[-1]) & Qt.ItemFlag.ItemIsDragEnabled
            assert decode_resources(encode_resources(refs)) == refs
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_decode_ignores_foreign_and_damaged_payloads(qapp: QApplication) -> None:
    plain = QMimeData()
    plain.setText("fixture://doc.pdf")
    assert decode_resources(plain) == []
    damaged = QMimeData()
    damaged.setData(RESOURCES_MIME, b"{not json")
    assert decode_resources(damaged) == []
    partial = QMimeData()
    partial.setData(RESOURCES_MIME, b'{"resources": [{"uri": "x://no-server"}, {"server": "s", "uri": "x://ok"}]}')
    assert decode_resources(partial) == [ResourceRef("s", "x://ok", "x://ok", None)]


def test_enter_menu_and_copy_paths(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        browser = ResourceBrowser(bridge)
        qtbot.addWidget(browser)
        browser.show()
        attached: list[list[ResourceRef]] = []
        opened: list[ResourceRef] = []
        templates: list[object] = []
        browser.attach_requested.connect(attached.append)
        browser.open_requested.connect(opened.append)
        browser.template_requested.connect(templates.append)
        try:
            long_index = browser.index_of("fx", "fixture://long")
            browser.view.setCurrentIndex(long_index)
            browser.view.setFocus()
            qtbot.keyClick(browser.view, Qt.Key.Key_Return)
            assert attached == [[ResourceRef("fx", "fixture://long", "long", "text/plain")]]
            # Arrowing onto a row previews it after a short pause.
            await eventually(lambda: opened, what="preview on select")
            assert opened[-1].uri == "fixture://long"

            menu = browser.context_menu()
            actions = {action.text(): action for action in menu.actions()}
            assert set(actions) == {"Attach to conversation", "Open", "Copy URI"}
            actions["Open"].trigger()
            assert opened[-1].uri == "fixture://long"
            actions["Copy URI"].trigger()
            assert QGuiApplication.clipboard().text() == "fixture://long"

            template_index = browser.index_of("fx", "fixture://items/{item_id}")
            browser.view.setCurrentIndex(template_index)
            menu = browser.context_menu()
            actions = {action.text(): action for action in menu.actions()}
            assert not actions["Attach to conversation"].isEnabled()
            actions["Fill in template…"].trigger()
            assert templates and templates[-1].uri == "fixture://items/{item_id}"  # type: ignore[attr-defined]
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_list_changed_updates_in_place_and_down_server_greys(qapp: QApplication, qtmodeltester: Any) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server(), "demo": build_demo_server()})
        browser = ResourceBrowser(bridge)
        qtmodeltester.check(browser.proxy)
        proxy = browser.proxy
        try:
            selected = browser.index_of("fx", "fixture://data.json")
            browser.view.selectionModel().select(selected, browser.view.selectionModel().SelectionFlag.ClearAndSelect)
            browser.view.setCurrentIndex(selected)
            browser.view.collapse(proxy.index(1, 0))
            await bridge.host.connection("fx").call_tool("notify_change", {})
            await eventually(lambda: "fixture://added/1" in children(browser, 0, 1), what="list_changed re-list")
            assert [e.uri for e in browser.selected_entries()] == ["fixture://data.json"]
            assert browser.view.isExpanded(proxy.index(0, 0)) and not browser.view.isExpanded(proxy.index(1, 0))
            assert proxy.data(proxy.index(0, 1)) == "7 resources · 1 template"

            await bridge.host.connection("fx").stop()
            status = browser.model.server_status("fx")
            assert status is not None and status.state is ServerState.STOPPED
            assert proxy.rowCount() == 2 and len(children(browser, 0)) == 8
            assert proxy.data(proxy.index(0, 1)) == "7 resources · 1 template (last known)"
            grey = QGuiApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
            assert proxy.data(proxy.index(0, 0, proxy.index(0, 0)), Qt.ItemDataRole.ForegroundRole) == grey
            assert proxy.data(proxy.index(0, 0, proxy.index(1, 0)), Qt.ItemDataRole.ForegroundRole) is None

            await bridge.host.remove("fx")
            assert proxy.rowCount() == 1 and proxy.data(proxy.index(0, 0)) == "demo"
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_ten_thousand_resources_load_in_chunks_and_filter(qapp: QApplication) -> None:
    """Correctness at scale; how fast it is lives in bench/browser.py, not in a timed assertion."""

    async def scenario() -> None:
        bridge = await inprocess_bridge({"big": build_paginated_server(10, 1000)})
        assert len(bridge.host.catalog.servers["big"].resources) == 10_000
        browser = ResourceBrowser(bridge)
        browser.resize(900, 700)
        browser.show()
        try:
            # 10,000 resources and 10,000 templates, their rows built off the window's thread
            await eventually(lambda: browser.proxy.match_count(0) == (20_000, 20_000), what="the big listing's rows")
            assert browser.proxy.rowCount(browser.proxy.index(0, 0)) == SCREENFUL  # a screenful first, then chunks
            for text in ("r", "re", "res", "resource-00", "resource-0042", "0042 resource"):
                browser.proxy.set_query(text)
                await asyncio.sleep(0)
            assert children(browser, 0) == ["resource-0042"]
            browser.proxy.set_query("")
            parent = browser.proxy.index(0, 0)
            before = browser.proxy.rowCount(parent)
            browser.proxy.show_more(parent)
            assert browser.proxy.rowCount(parent) == before + CHUNK
            last = browser.proxy.index(browser.proxy.rowCount(parent) - 1, 0, parent)
            assert browser.proxy.data(last, ENTRY_ROLE) is not None
            assert browser.proxy.parent(last) == parent and browser.proxy.parent(parent) == QModelIndex()
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_a_tree_taller_than_its_rows_is_handed_more(qapp: QApplication) -> None:
    """With no scrollbar the user cannot scroll for more: the tree is handed rows until it is full."""

    async def scenario() -> None:
        servers = {f"s{i}": build_paginated_server(1, 200, templates=0, prompts=0, tools=0) for i in range(6)}
        bridge = await inprocess_bridge(servers)
        browser = ResourceBrowser(bridge)
        browser.resize(400, 900)
        browser.show()
        view, proxy = browser.view, browser.proxy
        try:
            await eventually(lambda: all(view.isExpanded(proxy.index(r, 0)) for r in range(6)), what="servers open")
            assert proxy.rowCount(proxy.index(0, 0)) == MIN_FIRST  # a share of the first screenful each
            for row in range(1, 6):  # the user folds the others away: the first server's rows end mid-tree
                view.collapse(proxy.index(row, 0))
            bottom = QPoint(4, view.viewport().height() - 2)
            await eventually(lambda: view.indexAt(bottom).isValid(), what="rows down to the tree's bottom edge")
            assert MIN_FIRST < proxy.rowCount(proxy.index(0, 0)) < 200
            assert view.verticalScrollBar().maximum() > 0, "a scrollbar, so scrolling asks for the rest"
            browser.proxy.set_query("resource-01")  # 100 matches, a share of the screenful shown
            await eventually(lambda: view.indexAt(bottom).isValid(), what="a full tree of matches")
            browser.resize(400, 1600)
            await eventually(lambda: view.indexAt(QPoint(4, view.viewport().height() - 2)).isValid(), what="taller")
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())
