"""The Servers panel's tools: each listed with what the server says of it, switched off and on with a click.

A tool switched off is saved as `disabledTools`, and the very next request to the model leaves it
out; the panel keeps listing it so it can be switched on again. The server's words stay text.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem, QStyle, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.llm import load_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.ui.servers.servers_panel import TOOLS_TAB, ServersPanel
from desktop_app.ui.servers.tools_list import MAX_SHOWN
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import eventually, live_children
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text, tool_names
from tests.servers.draft07_server import REMOTE_SCHEMA, STRING_TOOL, TOOL_COUNT, UNUSABLE_TOOL, tool_name
from tests.window_kit import inprocess_bridge, run_in_qt, run_window_scenario, stdio_bridge

pytestmark = LITELLM_WARNINGS
ANNOTATED = Path(__file__).resolve().parents[2] / "servers" / "annotated_server.py"
DRAFTS = Path(__file__).resolve().parents[2] / "servers" / "draft07_server.py"
until = functools.partial(eventually, timeout=60.0)


def row(rows: QListWidget, name: str) -> QListWidgetItem:
    return next(rows.item(i) for i in range(rows.count()) if rows.item(i).data(Qt.ItemDataRole.UserRole) == name)


def click_check(qtbot: QtBot, rows: QListWidget, name: str) -> None:
    """Click a row's check box where the style draws it, as a user does."""
    item = row(rows, name)
    rows.scrollToItem(item)
    option = QStyleOptionViewItem()
    option.initFrom(rows)
    option.rect = rows.visualItemRect(item)
    option.features |= QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
    box = rows.style().subElementRect(QStyle.SubElement.SE_ItemViewItemCheckIndicator, option, rows)
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=box.center())


def click_row(qtbot: QtBot, rows: QListWidget, name: str) -> None:
    rect = rows.visualItemRect(row(rows, name))
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.right() - 10, rect.center().y()))


@pytest.mark.stdio
def test_switching_a_tool_off_and_on_in_the_window(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    entry = {"command": sys.executable, "args": [str(ANNOTATED), "--name", "desk"], "disabledTools": ["delete_item"]}
    config = tmp_path / "servers.json"  # where run_window_scenario writes it
    settings = AppSettings(ModelSettings("openai/scripted", api_base=llm.url), provider="compatible")

    def saved() -> list[str]:
        return json.loads(config.read_text())["mcpServers"]["desk"].get("disabledTools", [])  # type: ignore[no-any-return]

    async def steps(window: MainWindow) -> None:
        host, panel = window.bridge.host, window.servers_panel
        await asyncio.wait_for(load_litellm(), 120)
        window.servers_dock.show()
        tabs = panel._tabs
        qtbot.mouseClick(tabs.tabBar(), Qt.MouseButton.LeftButton, pos=tabs.tabBar().tabRect(TOOLS_TAB).center())
        assert tabs.currentIndex() == TOOLS_TAB and tabs.tabText(TOOLS_TAB) == "Tools (5)"
        tools = panel._tools
        rows = tools.rows
        await until(lambda: rows.count() == 5, what="the tools listed")
        assert row(rows, "delete_item").checkState() == Qt.CheckState.Unchecked
        assert tools.summary.text().startswith("5 tools, 1 switched off")
        assert "1 switched off" in panel.details.offer.text()

        # Its details, and its schema on demand.
        click_row(qtbot, rows, "delete_item")
        assert tools.heading.text() == "Delete an item" and tools.name.text() == "Name: delete_item"
        assert tools.claims.text().startswith("The server declares it destructive, idempotent, closed world")
        assert "unverified" in tools.claims.text()
        assert tools.offered.text().startswith("Switched off: never offered to the model")
        assert not tools.schema.isVisibleTo(panel)
        qtbot.mouseClick(tools.schema_button, Qt.MouseButton.LeftButton)
        assert tools.schema.isVisibleTo(panel) and '"item_id"' in tools.schema.toPlainText()
        assert tools.schema_button.text() == "Hide input schema"

        # On again: saved, and offered at once; another one off.
        click_check(qtbot, rows, "delete_item")
        assert row(rows, "delete_item").checkState() == Qt.CheckState.Checked
        assert saved() == [] and host.catalog.tool("desk__delete_item") is not None
        assert tools.offered.text().startswith("Offered to the model")
        click_check(qtbot, rows, "lookup")
        assert saved() == ["lookup"] and host.catalog.tool("desk__lookup") is None
        assert "1 switched off" in panel.details.offer.text()
        assert host.connection("desk").status.state.value == "ready"  # nothing reconnected

        llm.queue(text("Done."))
        window.composer.editor.setPlainText("What can you do?")
        window.composer.send()
        await until(lambda: llm.bodies(), what="the request to the model")
        offered = tool_names(llm.bodies()[0])
        assert "desk__delete_item" in offered and "desk__lookup" not in offered
        assert rows.count() == 5  # the panel still lists the one switched off

    run_window_scenario(qapp, tmp_path, steps, servers={"desk": entry}, settings=settings, ready=1)


MARKUP = "<img width=900 height=600 src=x><b>bold</b>"


def hostile_tools() -> MCPServer:
    server = MCPServer("hostile")

    @server.tool(
        name="wipe",
        title=f"Wipe {MARKUP}\x1b[2J",
        description=f"{MARKUP}\u202eevil" + "x" * (MAX_SHOWN + 50),
        annotations=ToolAnnotations(read_only_hint=True),
    )
    def wipe() -> str:
        return "wiped"

    return server


def test_a_servers_tool_text_is_shown_as_text_and_the_demo_cannot_be_switched(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"hostile": hostile_tools()})  # not in a servers.json, as the demo
        panel = ServersPanel(bridge)
        panel.resize(480, 700)
        panel.show()
        try:
            panel._tabs.setCurrentIndex(TOOLS_TAB)
            tools = panel._tools
            await eventually(lambda: tools.rows.count() == 1, what="the tool listed")
            assert tools.heading.textFormat() == Qt.TextFormat.PlainText
            assert tools.heading.text() == f"Wipe {MARKUP}\\x1b[2J"
            assert tools.heading.sizeHint().height() < 100  # not a 900x600 picture
            shown = tools.description.text()
            assert shown.startswith(f"{MARKUP}\\u202eevil") and shown.endswith(" more characters)")
            assert len(shown) < MAX_SHOWN + 40  # a server's essay is cut, and says so
            assert tools.description.textFormat() == Qt.TextFormat.PlainText
            # An untrusted server's read-only claim is only a claim.
            assert tools.claims.text() == (
                "The server declares it read-only (unverified: you have not marked this server as trusted)."
            )
            # No servers.json entry to save to: the switch is not offered, and the summary says why.
            item = tools.rows.item(0)
            assert not item.flags() & Qt.ItemFlag.ItemIsUserCheckable
            assert "Add server" in tools.summary.text()
        finally:
            await bridge.host.stop_all()
            panel.close()

    run_in_qt(qapp, scenario())


def test_a_tool_whose_schema_cannot_be_used_is_named_with_why(qapp: QApplication) -> None:
    async def scenario() -> None:
        config = ServerConfig(name="drafts", transport=TransportKind.STDIO, command=sys.executable, args=(str(DRAFTS),))
        bridge = await stdio_bridge([config])
        panel = ServersPanel(bridge)
        panel.resize(480, 700)
        panel.show()
        try:
            panel._tabs.setCurrentIndex(TOOLS_TAB)
            tools = panel._tools
            await eventually(lambda: tools.rows.count() == TOOL_COUNT + 2, what="the tools listed")
            assert tools.summary.text().startswith(
                f"{TOOL_COUNT + 2} tools, 2 not offered because their schemas are unusable."
            )
            for name in (UNUSABLE_TOOL, STRING_TOOL):
                assert row(tools.rows, name).text() == f"{name}  · not offered: unusable schema"
            assert row(tools.rows, tool_name(1)).text() == tool_name(1)
            tools.rows.setCurrentItem(row(tools.rows, UNUSABLE_TOOL))
            assert tools.offered.text() == (
                f"Not offered to the model: its schema refers to a remote schema ($ref '{REMOTE_SCHEMA}'),"
                " which MCP Desk does not fetch."
            )
            tools.rows.setCurrentItem(row(tools.rows, STRING_TOOL))
            assert (
                tools.offered.text() == 'Not offered to the model: its schema is not an object schema (type: "string").'
            )
            tools.rows.setCurrentItem(row(tools.rows, tool_name(2)))
            assert tools.offered.text().startswith("Offered to the model")
            offered = {entry.tool.name for entry in bridge.host.catalog.tools()}
            assert offered == {tool_name(i) for i in range(1, TOOL_COUNT + 1)}
        finally:
            await bridge.host.stop_all()
            panel.close()

    run_in_qt(qapp, scenario())
    assert live_children() == []
