"""The window's way to show a web page (a sign-in page, a link in a document): the user's default browser."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.core.auth.errors import SignInError
from desktop_app.ui.confirm import confirm


class SystemBrowser:
    """A `BrowserOpener` that hands the authorization URL to the desktop's default browser."""

    async def open(self, url: str) -> None:
        if not QDesktopServices.openUrl(QUrl(url)):
            raise SignInError("no web browser could be opened for the sign-in page")


def ask_to_open(parent: QWidget, url: str) -> QMessageBox:
    """A web link clicked in a document leaves the app: open it in the browser only after a Yes."""
    return confirm(
        parent,
        "Open link",
        f"Open this address in your web browser?\n\n{url}",
        lambda: QDesktopServices.openUrl(QUrl(url)),
    )
