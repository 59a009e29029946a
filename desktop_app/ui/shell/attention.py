"""Getting the user's attention when a question waits and the window is not focused.

The taskbar entry flashes (`QApplication.alert`) and a desktop notification says who asks what;
clicking it brings the window to the front. On Linux the notification goes to the desktop's
notification service (`desktop_notice.py`); elsewhere, or when that service is missing, to the
system tray when there is one. Once the window is active again the notification is withdrawn.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from desktop_app.core.chat.approval import ApprovalRequest


def notice_words(question: Any) -> tuple[str, str]:
    """The notification's summary and body for a waiting question."""
    if isinstance(question, ApprovalRequest):
        return f"{question.server} wants to run {question.title or question.tool}", "Allow or deny it in MCP Desk."
    return f"{question.server} is asking you something", "Answer it in MCP Desk."


class Attention:
    """Flashes `window` and notifies about a waiting question; `seen` withdraws the notification."""

    def __init__(self, window: QWidget, come_back: Callable[[], None], *, bus: str = "SESSION") -> None:
        self._window = window
        self._come_back = come_back
        self._bus = bus
        self._tray: QSystemTrayIcon | None = None
        self._seen = asyncio.Event()
        self._notices: set[asyncio.Task[None]] = set()

    def ask_for(self, question: Any) -> None:
        QApplication.alert(self._window)
        summary, body = notice_words(question)
        if sys.platform.startswith("linux"):
            if self._seen.is_set():
                self._seen = asyncio.Event()
            try:
                task = asyncio.get_running_loop().create_task(self._notify(summary, body, self._seen))
            except RuntimeError:  # no event loop (a bare widget): the flashing taskbar entry must do
                return
            self._notices.add(task)
            task.add_done_callback(self._notices.discard)
        else:
            self._tray_message(summary, body)

    @property
    def notifying(self) -> bool:
        """A desktop notification is out (or on its way)."""
        return bool(self._notices)

    async def _notify(self, summary: str, body: str, seen: asyncio.Event) -> None:
        from desktop_app.ui.shell.desktop_notice import show_notice  # Linux only: jeepney is a Linux dependency

        if not await show_notice(summary, body, on_click=self._come_back, done=seen, bus=self._bus):
            self._tray_message(summary, body)

    def _tray_message(self, summary: str, body: str) -> None:
        if not QSystemTrayIcon.isSystemTrayAvailable() or not QSystemTrayIcon.supportsMessages():
            return
        if self._tray is None:
            self._tray = QSystemTrayIcon(self._window.windowIcon(), self._window)
            self._tray.messageClicked.connect(self._come_back)
            self._tray.activated.connect(lambda _reason: self._come_back())
        self._tray.show()
        self._tray.showMessage(summary, body, QSystemTrayIcon.MessageIcon.Information, 10_000)

    def seen(self) -> None:
        """The window is active again: withdraw the notifications; the tray icon was only there for them."""
        self._seen.set()
        if self._tray is not None:
            self._tray.hide()
