"""The turn's status line after each of the engine's events: the wait each one begins, named in plain text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import (
    ModelCallStarted,
    ServersConnecting,
    TextDelta,
    ToolCallStarted,
    ToolDecision,
    ToolResult,
)
from desktop_app.ui.conversation.turn_status import WAITING_FOR_PROVIDER, TurnStatus
from desktop_app.ui.conversation.turn_waits import show_wait


def test_each_event_names_the_wait_it_begins(qtbot: QtBot) -> None:
    now = [100.0]
    status = TurnStatus(clock=lambda: now[0])
    qtbot.addWidget(status)
    show_wait(status, ModelCallStarted(0), WAITING_FOR_PROVIDER)
    assert status.text() == WAITING_FOR_PROVIDER
    now[0] += 2.4
    show_wait(status, ToolCallStarted("c1", "read_resource", {}, None, None), WAITING_FOR_PROVIDER)
    assert status.text() == "Calling read_resource…", "a new wait counts from zero"
    show_wait(status, ToolResult("c1", "read_resource", "text"), WAITING_FOR_PROVIDER)
    show_wait(status, ToolDecision("c2", "fx", "<b>echo</b>", True, "user", "allow_once", {}), WAITING_FOR_PROVIDER)
    assert status.text() == "Calling <b>echo</b> on fx…" and status.textFormat() is Qt.TextFormat.PlainText
    show_wait(status, TextDelta("Hi"), WAITING_FOR_PROVIDER)
    assert status.waiting == "" and status.isHidden(), "the answer streaming in is its own sign of life"


def test_a_message_sent_as_the_app_starts_names_the_servers_it_waits_for(qtbot: QtBot) -> None:
    status = TurnStatus()
    qtbot.addWidget(status)
    show_wait(status, ServersConnecting(("demo",)), WAITING_FOR_PROVIDER)
    assert status.text() == "Waiting for demo to connect…"
    show_wait(status, ServersConnecting(("demo", "<i>files</i>")), WAITING_FOR_PROVIDER)
    assert status.text() == "Waiting for demo and <i>files</i> to connect…"
    assert status.textFormat() is Qt.TextFormat.PlainText  # server names are the user's words, never markup
    show_wait(status, ServersConnecting(("a", "b", "c", "d", "e")), WAITING_FOR_PROVIDER)
    assert status.text() == "Waiting for a, b and 3 more to connect…"
    show_wait(status, ModelCallStarted(1), WAITING_FOR_PROVIDER)
    assert status.text() == WAITING_FOR_PROVIDER
