"""The window's way to show a web page (a sign-in page, a link in a document): the user's default browser.

Only web addresses ever reach the desktop: handed a `file:` URL or another app's scheme, the
desktop would open a file or start a program instead of a browser.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.core.auth.errors import SignInError
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.web_links import vet_web_link
from desktop_app.ui.widgets.confirm import confirm


class SystemBrowser:
    """A `BrowserOpener` that hands the authorization URL to the desktop's default browser."""

    async def open(self, url: str) -> None:
        page = QUrl(url)
        if page.scheme() not in ("http", "https") or not page.host():
            raise SignInError(f"the sign-in page is not a web address: {url[:80]}")
        if not QDesktopServices.openUrl(page):
            raise SignInError("no web browser could be opened for the sign-in page")


def ask_to_open(parent: QWidget, url: str) -> QMessageBox:
    """A link clicked in a document leaves the app: open it in the browser only after a Yes.

    The box shows the address as it will be opened, with what could mislead about it; a link that
    is not a web page or a mail address is not offered at all.
    """
    link = vet_web_link(url)
    if link.problem is not None:
        box = QMessageBox(QMessageBox.Icon.Information, "Link not opened", "", QMessageBox.StandardButton.Ok, parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"This link was not opened: {link.problem}.\n\n{printable(link.shown)}")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box
    warnings = "".join(f"\n\nWarning: {warning}." for warning in link.warnings)
    box = confirm(
        parent,
        "Open link",
        f"Open this address in your web browser?\n\n{link.shown}{warnings}",
        lambda: QDesktopServices.openUrl(link.url),
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box
