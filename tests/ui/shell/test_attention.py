"""A waiting question reaches an unfocused user as a desktop notification, over a real private D-Bus.

The bus is a real `dbus-daemon`; the notification service on it is a small stand-in speaking the
freedesktop Notifications interface (what GNOME Shell, KDE Plasma and dunst implement).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jeepney import HeaderFields, MessageType, new_method_return, new_signal  # type: ignore[import-untyped]
from jeepney.bus_messages import message_bus  # type: ignore[import-untyped]
from jeepney.io.blocking import open_dbus_connection  # type: ignore[import-untyped]
from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.core.chat.approval import ApprovalRequest
from desktop_app.ui.shell.attention import Attention
from desktop_app.ui.shell.desktop_notice import SERVICE, show_notice
from tests.hosting import eventually
from tests.window_kit import run_in_qt

NOTICE_ID = 7


BUS_CONFIG = """<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
  </policy>
</busconfig>
"""
"""A session bus that starts no services of its own (a desktop's real notification daemon stays out)."""


@pytest.fixture
def bus(tmp_path: Path) -> Iterator[str]:
    if shutil.which("dbus-daemon") is None:
        pytest.skip("dbus-daemon is not installed")
    config = tmp_path / "bus.conf"
    config.write_text(BUS_CONFIG)
    daemon = subprocess.Popen(
        ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"], stdout=subprocess.PIPE, text=True
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    try:
        yield address
    finally:
        daemon.terminate()
        daemon.wait(10)


class NotificationService(threading.Thread):
    """Owns org.freedesktop.Notifications on `bus`; records calls; clicks each notice if told to."""

    def __init__(self, bus: str, *, click: bool) -> None:
        super().__init__(daemon=True)
        self.click = click
        self.notices: list[tuple[Any, ...]] = []
        self.closed: list[int] = []
        self.stop = threading.Event()
        self.conn = open_dbus_connection(bus=bus)
        self.conn.send_and_get_reply(message_bus.RequestName(SERVICE.bus_name))

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                message = self.conn.receive(timeout=0.05)
            except TimeoutError:
                continue
            if message.header.message_type is not MessageType.method_call:
                continue
            member = message.header.fields.get(HeaderFields.member)
            if member == "Notify":
                self.notices.append(message.body)
                self.conn.send(new_method_return(message, "u", (NOTICE_ID,)))
                if self.click:
                    self.conn.send(new_signal(SERVICE, "ActionInvoked", "us", (NOTICE_ID, "default")))
            elif member == "CloseNotification":
                self.closed.append(message.body[0])
                self.conn.send(new_method_return(message))
                self.conn.send(new_signal(SERVICE, "NotificationClosed", "uu", (message.body[0], 3)))

    def close(self) -> None:
        self.stop.set()
        self.join(5)
        self.conn.close()


def _request() -> ApprovalRequest:
    return ApprovalRequest(server="desk", call_id="c1", tool="delete_item", title="Delete an item")


def test_the_notice_says_who_asks_and_a_click_brings_the_window_back(qapp: QApplication, bus: str) -> None:
    service = NotificationService(bus, click=True)
    service.start()
    came_back: list[bool] = []
    window = QWidget()

    async def scenario() -> None:
        attention = Attention(window, lambda: came_back.append(True), bus=bus)
        attention.ask_for(_request())
        await eventually(lambda: bool(came_back) and not attention.notifying, what="the click")

    try:
        run_in_qt(qapp, scenario())
    finally:
        service.close()
    [(app, replaces, _icon, summary, body, actions, _hints, timeout)] = service.notices
    assert (app, replaces, summary, body) == (
        "MCP Desk",
        0,
        "desk wants to run Delete an item",
        "Allow or deny it in MCP Desk.",
    )
    assert actions == ["default", "Open"] and timeout > 0
    assert came_back == [True]


def test_the_notice_is_withdrawn_once_the_window_is_seen(qapp: QApplication, bus: str) -> None:
    service = NotificationService(bus, click=False)
    service.start()
    window = QWidget()

    async def scenario() -> None:
        attention = Attention(window, lambda: None, bus=bus)
        attention.ask_for(_request())
        await eventually(lambda: len(service.notices) == 1, what="the notice")
        attention.seen()
        await eventually(lambda: not attention.notifying, what="the notice to go")

    try:
        run_in_qt(qapp, scenario())
    finally:
        service.close()
    assert service.closed == [NOTICE_ID]


def test_without_a_notification_service_the_caller_falls_back(qapp: QApplication, bus: str) -> None:
    async def scenario() -> tuple[bool, bool]:
        done = asyncio.Event()
        no_service = await show_notice("s", "b", on_click=lambda: None, done=done, bus=bus)
        no_bus = await show_notice("s", "b", on_click=lambda: None, done=done, bus="unix:path=/nonexistent/bus")
        return no_service, no_bus

    assert run_in_qt(qapp, scenario()) == (False, False)
