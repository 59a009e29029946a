"""The window's actions carry the action icons: the Servers panel's buttons, the viewer's Close (an icon alone,
named for screen readers), and the most used menu entries."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QPushButton

from desktop_app.qt_kit.action_icon import BUTTON_ICON, TEXT_GAP
from desktop_app.ui.shell.main_window import MainWindow
from resources_ui.viewers.viewer_header import CLOSE_TIP
from tests.ui.chat_window import run_fixture_window


def test_the_windows_actions_carry_their_icons(qapp: QApplication, tmp_path: Path) -> None:
    async def scenario(window: MainWindow) -> None:
        panel = window.servers_panel
        details = panel.details
        add = panel.findChild(QPushButton, "addServer")
        assert add is not None
        buttons = {
            b.text(): b.icon().name() for b in (add, details.restart, details.toggle, details.edit, details.remove)
        }
        assert buttons == {
            "Add server…": "plus",
            "Restart": "rotate-cw",
            "Disable": "power",
            "Edit…": "pencil",
            "Remove": "trash-2",
        }
        assert add.iconSize().height() == BUTTON_ICON and add.iconSize().width() == BUTTON_ICON + TEXT_GAP

        header = window.resources.viewer.header
        close = header.close_button
        assert (close.text(), close.icon().name()) == ("", "x"), "Close is its icon alone"
        assert close.accessibleName() == "Close" and close.toolTip() == CLOSE_TIP
        assert (header.reload_button.icon().name(), header.attach_button.icon().name()) == ("refresh-cw", "paperclip")

        actions = window.menu_actions
        menu = {a.text(): a.icon().name() for a in (actions.new_chat, actions.palette, actions.settings)}
        assert menu == {"&New chat": "message-square-plus", "Command &palette…": "command", "&Settings…": "settings"}
        assert actions.find_servers.icon().name() == "server"
        assert actions.export_chat.icon().isNull(), "only the most used entries have icons"

    run_fixture_window(qapp, tmp_path, scenario)
