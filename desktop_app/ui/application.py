"""The Qt application's identity and quit policy, set before the window exists (QSettings reads the names)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from desktop_app.ui.app_icon import app_icon


def set_up_application(app: QApplication) -> None:
    app.setApplicationName("MCP Desk")
    app.setOrganizationName("MCP Desk")
    app.setDesktopFileName("mcp-desk")
    app.setWindowIcon(app_icon())
    app.setQuitOnLastWindowClosed(False)  # quitting waits until every server has stopped
