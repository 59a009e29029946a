"""A server's status message is its own words: the tool card's row and the Tasks view show it as the
text it is, never as rich text (which could draw pictures, fake badges, or read /dev/zero)."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.tasks.feed import TaskFeed
from desktop_app.ui.tasks.task_status_row import TaskStatusRow
from desktop_app.ui.tasks.tasks_panel import TasksPanel
from tests.core.tasks.hosting import task_of, tasks_host
from tests.hosting import eventually
from tests.servers.tasks_server import build_tasks_server
from tests.window_kit import run_in_qt

HOSTILE = '<img src="/dev/zero"><b style="color:red">APPROVED</b>'


def test_a_status_message_in_markup_is_shown_as_plain_text(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        server, fixture = build_tasks_server()
        async with tasks_host(server) as (host, _asker, board):
            feed = TaskFeed(board)
            window = QWidget()
            qtbot.addWidget(window)
            row = TaskStatusRow("call_hostile", feed)
            panel = TasksPanel(feed)
            layout = QHBoxLayout(window)
            layout.addWidget(row)
            layout.addWidget(panel)
            window.resize(1024, 640)
            window.show()
            call = asyncio.ensure_future(
                host.connection("tasks").call_tool("hold", {"label": HOSTILE}, call_id="call_hostile")
            )
            record = await task_of(board, "call_hostile")
            await eventually(lambda: row.message.text().startswith("Holding"), what="the server's first report")
            entry = panel.entry(record)
            assert entry is not None
            for label in (row.message, entry.message):
                assert label.textFormat() is Qt.TextFormat.PlainText
                assert label.text() == f"Holding {HOSTILE}"
            fixture.release(HOSTILE)
            result = await asyncio.wait_for(call, 20)
            assert not result.is_error

    run_in_qt(qapp, scenario())
