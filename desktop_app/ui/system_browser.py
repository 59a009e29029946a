"""The window's way to show a sign-in page: the user's default browser."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from desktop_app.core.auth.errors import SignInError


class SystemBrowser:
    """A `BrowserOpener` that hands the authorization URL to the desktop's default browser."""

    async def open(self, url: str) -> None:
        if not QDesktopServices.openUrl(QUrl(url)):
            raise SignInError("no web browser could be opened for the sign-in page")
