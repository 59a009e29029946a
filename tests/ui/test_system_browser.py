"""Web links from documents open in the browser only after the user says yes."""

from __future__ import annotations

from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.system_browser import ask_to_open


def test_a_web_link_asks_before_the_browser_opens(qtbot: QtBot) -> None:
    opened: list[str] = []

    class Recorder(QWidget):
        @Slot(QUrl)
        def open_url(self, url: QUrl) -> None:
            opened.append(url.toString())

    parent = Recorder()
    qtbot.addWidget(parent)
    QDesktopServices.setUrlHandler("https", parent, "open_url")
    try:
        box = ask_to_open(parent, "https://example.org/page")
        assert "https://example.org/page" in box.text() and box.isVisible()
        box.button(QMessageBox.StandardButton.Cancel).click()
        assert opened == [], "no means no"
        box = ask_to_open(parent, "https://example.org/page")
        box.button(QMessageBox.StandardButton.Yes).click()
        assert opened == ["https://example.org/page"]
    finally:
        QDesktopServices.unsetUrlHandler("https")
