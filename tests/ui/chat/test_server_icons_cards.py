"""The servers' own icons in the prompt palette and on tool cards, from a server whose icons attack them.

`tests/servers/icon_server.py`: beside one good PNG, each item lists an `http:` beacon, a `file:` URL,
a 10 MB data URI, a PNG bomb, a mimeType lie, a scripted SVG, malformed base64, and one tool 1,000
icons. The good icon is drawn (checked on the widget's pixmap, offscreen); where none is left, the
card and the palette keep today's look; the app stays up.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QApplication, QListWidgetItem, QWidget

from desktop_app.core.server_status import ServerState
from desktop_app.qt_kit.server_icon_cache import CARD_SIDE, tool_icon
from desktop_app.ui.chat.palette import CommandPalette, PaletteEntry, prompt_entries
from desktop_app.ui.conversation.tool_card import ToolCard
from tests.servers.icon_server import GOOD_COLOUR, build_icon_server
from tests.window_kit import inprocess_bridge, run_in_qt

GOOD = QColor(*GOOD_COLOUR)


def centre(pixmap: QPixmap) -> QColor:
    image = pixmap.toImage()
    return image.pixelColor(image.width() // 2, image.height() // 2)


def card(icon: QIcon | None) -> ToolCard:
    return ToolCard("call-1", "icons", "painted", {}, title="Painted", icon=icon)


def test_a_tool_card_shows_the_tools_good_icon_else_its_servers_else_none(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"icons": build_icon_server(), "bare": build_icon_server(own_icon=False)})
        try:
            assert bridge.host.connection("icons").status.state is ServerState.READY
            catalog = bridge.host.catalog
            painted = card(tool_icon(catalog, "icons", "painted"))  # seven hostile icons, then the good one
            assert painted.server_icon.isVisibleTo(painted)
            assert painted.server_icon.pixmap().width() >= CARD_SIDE
            assert centre(painted.server_icon.pixmap()) == GOOD
            flooded = tool_icon(catalog, "icons", "flooded")  # its good icon is the 1,000th: the server's
            assert flooded is not None and centre(flooded.pixmap(CARD_SIDE)) == GOOD
            assert tool_icon(catalog, "bare", "flooded") is None  # nothing good of the tool's or the server's
            assert tool_icon(catalog, "bare", "plain") is None
            plain = card(tool_icon(catalog, "bare", "plain"))
            assert not plain.server_icon.isVisibleTo(plain) and plain.server_icon.pixmap().isNull()
            plain.set_icon(tool_icon(catalog, "icons", "plain"))  # a tool without icons: its server's
            assert centre(plain.server_icon.pixmap()) == GOOD
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_the_palette_shows_a_prompts_good_icon_and_keeps_rows_aligned(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"bare": build_icon_server(own_icon=False)})
        host = QWidget()
        host.resize(800, 600)
        try:
            opened: list[str] = []
            entries = prompt_entries(bridge.host.catalog, lambda _server, prompt: opened.append(prompt.name))
            by_title = {entry.title: entry for entry in entries}
            assert set(by_title) == {"greet", "quiet"}
            assert by_title["quiet"].icon is None  # no icon of its own, none of its server's
            palette = CommandPalette(host)
            palette.open_with([PaletteEntry("command", "New chat", "", lambda: None), *entries])
            items: dict[str, QListWidgetItem] = {
                palette.list.item(r).data(Qt.ItemDataRole.UserRole).title: palette.list.item(r)
                for r in range(palette.list.count())
            }
            greet = items["greet"].icon().pixmap(CARD_SIDE)
            assert centre(greet) == GOOD  # the mimeType liar before it was refused
            blank = items["New chat"].icon().pixmap(CARD_SIDE)  # room kept, nothing drawn
            assert not blank.isNull() and centre(blank).alpha() == 0
            assert centre(items["quiet"].icon().pixmap(CARD_SIDE)).alpha() == 0
            by_title["greet"].run()
            assert opened == ["greet"]
        finally:
            host.deleteLater()
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_a_tool_call_in_the_conversation_shows_its_tools_icon_from_the_catalog(qapp: QApplication) -> None:
    from desktop_app.core.chat.events import ToolCallStarted
    from desktop_app.ui.conversation.conversation_view import ConversationView

    async def scenario() -> None:
        bridge = await inprocess_bridge({"icons": build_icon_server(), "bare": build_icon_server(own_icon=False)})
        view = ConversationView()
        try:
            view.tool_icon = lambda server, tool: tool_icon(bridge.host.catalog, server, tool, view)  # as the chat's
            view.apply(ToolCallStarted("c1", "icons__painted", {}, "icons", "painted"))
            view.apply(ToolCallStarted("c2", "bare__plain", {}, "bare", "plain"))  # nothing good of its own or server's
            painted, plain = view.card("c1"), view.card("c2")
            assert painted is not None and centre(painted.server_icon.pixmap()) == GOOD
            assert plain is not None and plain.server_icon.pixmap().isNull()
        finally:
            view.deleteLater()
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())
