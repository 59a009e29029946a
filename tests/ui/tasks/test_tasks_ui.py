"""A real task (server-everything's `simulate-research-query`) in the window: its row with its tool card
and the Tasks view follow it, Cancel (in either) stops it on the server, and a result that arrives
after its call stopped waiting is offered to send on to the chat."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import ToolCallStarted
from desktop_app.core.tasks.events import LateResult
from desktop_app.core.tasks.follow import USER_CANCELLED
from desktop_app.core.tasks.model import TaskStatus
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.tasks.card_rows import TaskRows
from desktop_app.ui.tasks.feed import TaskFeed
from desktop_app.ui.tasks.tasks_panel import TaskEntry, TasksPanel
from tests.core.asks.hosting import everything_config, text_of
from tests.hosting import eventually
from tests.servers.everything import everything_available
from tests.window_kit import run_in_qt, stdio_bridge

pytestmark = [
    pytest.mark.npm,
    pytest.mark.skipif(not everything_available(), reason="server-everything is not installed"),
]
TOOL = "simulate-research-query"


def test_the_row_and_the_tasks_view_follow_cancel_and_hand_back_tasks(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        bridge = await stdio_bridge([everything_config(timeout=10)])
        host = bridge.host
        try:
            feed = TaskFeed(host.tasks)
            window = QWidget()
            qtbot.addWidget(window)
            layout = QVBoxLayout(window)
            view = ConversationView()
            view.apply(ToolCallStarted("call_row", f"everything__{TOOL}", {"topic": "tides"}, "everything", TOOL))
            rows = TaskRows(feed, view)
            panel = TasksPanel(feed)
            layout.addWidget(view, 1)
            layout.addWidget(panel, 1)
            window.resize(1024, 640)
            window.show()
            assert rows.row("call_row") is None and panel.empty.isVisible()  # no task yet
            everything = host.connection("everything")

            # Cancel in the row under the tool card.
            call = asyncio.ensure_future(everything.call_tool(TOOL, {"topic": "tides"}, call_id="call_row"))
            await eventually(lambda: rows.row("call_row") is not None, what="the task's row in its card")
            row, card = rows.row("call_row"), view.card("call_row")
            assert row is not None and card is not None and card.task is row and card.isAncestorOf(row)
            await eventually(lambda: row.isVisible() and "Gathering sources" in row.message.text(), what="the row")
            assert row.status.text() == " task · working " and row.cancel.isVisible()
            assert row.activity.isVisible()
            record = row.record
            assert record is not None
            entry = panel.entry(record)
            assert entry is not None and entry.status.text() == " Working " and "Gathering" in entry.message.text()
            qtbot.mouseClick(row.cancel, Qt.MouseButton.LeftButton)
            result = await asyncio.wait_for(call, 20)
            assert text_of(result) == USER_CANCELLED
            assert row.status.text() == " task · cancelled " and not row.cancel.isVisible()
            assert entry.status.text() == " Cancelled " and entry.action is None
            assert " · took " in entry.when.text() and row.elapsed.text().startswith("took ")

            # Cancel in the Tasks view.
            call = asyncio.ensure_future(everything.call_tool(TOOL, {"topic": "dunes"}, call_id="call_panel"))
            running = await _running_entry(panel, feed, "call_panel")
            assert running.action is not None and running.action.text() == "Cancel"
            qtbot.mouseClick(running.action, Qt.MouseButton.LeftButton)
            assert text_of(await asyncio.wait_for(call, 20)) == USER_CANCELLED
            assert running.status.text() == " Cancelled "

            # The call stops waiting (a stopped turn): the task runs on, and its result comes back to send on.
            sent: list[LateResult] = []
            panel.sig_send_to_chat.connect(sent.append)
            call = asyncio.ensure_future(everything.call_tool(TOOL, {"topic": "reefs"}, call_id="call_late"))
            await _running_entry(panel, feed, "call_late")
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
            late = await _late_entry(panel, feed)
            send = late.action
            assert isinstance(send, QPushButton) and send.text() == "Send to chat"
            qtbot.mouseClick(send, Qt.MouseButton.LeftButton)
            [arrived] = sent
            assert "# Research Report: reefs" in arrived.message()
            feed.delivered(arrived)
            assert late.action is None and late.status.text() == " Completed "
        finally:
            await host.stop_all()

    run_in_qt(qapp, scenario())


async def _running_entry(panel: TasksPanel, feed: TaskFeed, call_id: str) -> TaskEntry:
    def found() -> TaskEntry | None:
        record = feed.board.task_for_call(call_id)
        return panel.entry(record) if record is not None and record.status is TaskStatus.WORKING else None

    await eventually(found, timeout=30, what=f"the running task of {call_id}")
    entry = found()
    assert entry is not None
    return entry


async def _late_entry(panel: TasksPanel, feed: TaskFeed) -> TaskEntry:
    def found() -> TaskEntry | None:
        lates = feed.late_results()
        entry = panel.entry(lates[0].record) if lates else None
        return entry if entry is not None and entry.action is not None else None

    await eventually(found, timeout=30, what="the late result")
    entry = found()
    assert entry is not None
    return entry
