"""Getting the user's attention when a question waits and the window is not focused.

The taskbar entry flashes (`QApplication.alert`); where the desktop has a system tray that shows
messages, a short message says who asks what, and clicking it brings the window to the front.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from desktop_app.core.chat.approval import ApprovalRequest


class Attention:
    """Flashes `window` and shows a tray message for a waiting question; the tray icon goes once seen."""

    def __init__(self, window: QWidget, come_back: Callable[[], None]) -> None:
        self._window = window
        self._come_back = come_back
        self._tray: QSystemTrayIcon | None = None

    def ask_for(self, question: Any) -> None:
        QApplication.alert(self._window)
        if not QSystemTrayIcon.isSystemTrayAvailable() or not QSystemTrayIcon.supportsMessages():
            return
        if self._tray is None:
            self._tray = QSystemTrayIcon(self._window.windowIcon(), self._window)
            self._tray.messageClicked.connect(self._come_back)
            self._tray.activated.connect(lambda _reason: self._come_back())
        self._tray.show()
        if isinstance(question, ApprovalRequest):
            title = f"{question.server} wants to run {question.title or question.tool}"
            text = "Allow or deny it in MCP Desk."
        else:
            title, text = f"{question.server} is asking you something", "Answer it in MCP Desk."
        self._tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 10_000)

    def seen(self) -> None:
        """The window is active again: the tray icon was only there while something waited unseen."""
        if self._tray is not None:
            self._tray.hide()
