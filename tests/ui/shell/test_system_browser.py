"""Web links from documents open in the browser only after the user says yes, and only web links, as shown."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.auth.errors import SignInError
from desktop_app.ui.shell.system_browser import SystemBrowser, ask_to_open

SCHEMES = ("file", "smb", "javascript", "vscode", "http", "https", "mailto")


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


class _Catcher(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open_url(self, url: QUrl) -> None:
        self.opened.append(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))


@pytest.fixture
def desktop(qtbot: QtBot) -> Iterator[_Catcher]:
    """Every URL the app hands the desktop, for the schemes a hostile link would use."""
    catcher = _Catcher()
    qtbot.addWidget(catcher)
    for scheme in SCHEMES:
        QDesktopServices.setUrlHandler(scheme, catcher, "open_url")
    try:
        yield catcher
    finally:
        for scheme in SCHEMES:
            QDesktopServices.unsetUrlHandler(scheme)


def _say_yes(box: QMessageBox) -> None:
    (box.button(QMessageBox.StandardButton.Yes) or box.button(QMessageBox.StandardButton.Ok)).click()


@pytest.mark.parametrize(
    "link",
    ["file:///etc/passwd", "smb://attacker.example/share", "javascript:alert(1)", "vscode://file/etc/passwd"],
)
def test_a_link_that_is_not_a_web_page_is_never_handed_to_the_desktop(desktop: _Catcher, link: str) -> None:
    box = ask_to_open(desktop, link)
    assert box.button(QMessageBox.StandardButton.Yes) is None, "it is not even offered"
    assert "not opened" in box.text()
    _say_yes(box)
    assert desktop.opened == []


def test_the_address_shown_is_the_one_opened_with_what_could_mislead(desktop: _Catcher) -> None:
    box = ask_to_open(desktop, "https://user@\u0430pple.com/account\u202egnp.exe")
    text = box.text()
    assert "\u202e" not in text and "\u0430" not in text.split("\n\n")[1]
    shown = "https://user@xn--pple-43d.com/account%E2%80%AEgnp.exe"
    assert text.split("\n\n")[1] == shown
    assert "look-alike" in text and "'user@' is a user name, not the site" in text
    _say_yes(box)
    assert desktop.opened == [shown]


def test_a_mail_link_cannot_attach_a_file(desktop: _Catcher) -> None:
    box = ask_to_open(desktop, "mailto:a@example.org?subject=Hi&attach=/home/user/.ssh/id_rsa&Attachment=~/x")
    assert "attach" not in box.text().split("\n\n")[1] and "left out" in box.text()
    _say_yes(box)
    assert desktop.opened == ["mailto:a@example.org?subject=Hi"]


def test_a_sign_in_page_must_be_a_web_address(desktop: _Catcher) -> None:
    with pytest.raises(SignInError, match="not a web address"):
        asyncio.run(SystemBrowser().open("file:///usr/bin/xcalc"))
    assert desktop.opened == []
