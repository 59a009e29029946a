"""Tasks in the real window: a tool call the server makes a task of shows its row with its tool card and
its entry in the Tasks dock; stopping the turn leaves the task running, and the dock's Cancel stops it.
A result kept from the last run is offered in the dock and goes to the message box."""

from __future__ import annotations

import functools
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDockWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.paths import data_dir
from desktop_app.core.tasks.board import TaskBoard
from desktop_app.core.tasks.events import LateResult
from desktop_app.core.tasks.model import TaskRecord, TaskStatus
from desktop_app.core.tasks.store import TASKS_FILENAME, TaskStore
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.tool_card import CallState
from desktop_app.ui.shell.main_window import MainWindow
from desktop_app.ui.shell.panes import LATE_DELETED
from desktop_app.ui.tasks.task_status_row import TaskStatusRow
from desktop_app.ui.tasks.tasks_panel import TasksPanel
from tests.hosting import eventually
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers import tasks_server
from tests.window_kit import run_window_scenario

pytestmark = LITELLM_WARNINGS
Scenario = Callable[[MainWindow], Awaitable[None]]
until = functools.partial(eventually, timeout=60.0)


def test_a_task_in_the_window_runs_on_past_a_stopped_turn_until_cancelled(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow) -> None:
        board = window.bridge.host.tasks
        dock, panel = tasks_dock(window)
        assert panel.empty.isVisibleTo(panel)

        llm.queue(calls(ToolCall("tasks__research", {"topic": "tides"}, id="call_research")), text("Here it is."))
        window.composer.editor.setPlainText("Research the tides")
        window.composer.send()
        await allow(window)
        await until(lambda: not window.chat.busy, what="the end of the first turn")
        card = window.conversation.card("call_research")
        assert card is not None and card.state is CallState.DONE
        [result] = tool_messages(llm.bodies()[1])
        assert result["content"] == "Report on tides: reading=default (answer: none)"
        [row] = [r for r in window.conversation.findChildren(TaskStatusRow) if r.call_id == "call_research"]
        assert card.task is row and card.isAncestorOf(row)  # inside its card, not below it
        assert row.status.text() == " task · completed " and not row.cancel.isVisible()
        assert row.elapsed.text().startswith("took ") and not row.activity.isVisible()
        record = board.task_for_call("call_research")
        assert record is not None and panel.entry(record) is not None

        llm.queue(calls(ToolCall("tasks__forever", {}, id="call_forever")), text("never sent"))
        window.composer.editor.setPlainText("Keep going")
        window.composer.send()
        await allow(window)
        await until(lambda: _running(board, "call_forever"), what="the running task")
        window.chat.cancel()  # the user stops the turn
        await until(lambda: not window.chat.busy, what="the stopped turn")
        await until(lambda: _late(board, "call_forever"), what="the task going on in the background")
        [row] = [r for r in window.conversation.findChildren(TaskStatusRow) if r.call_id == "call_forever"]
        assert row.note.isVisible() and row.cancel.isVisible()
        entry = panel.entry(_late(board, "call_forever"))  # type: ignore[arg-type]
        assert entry is not None and entry.action is not None and entry.action.text() == "Cancel"
        dock.show()
        dock.raise_()
        qtbot.mouseClick(entry.action, Qt.MouseButton.LeftButton)
        await until(lambda: row.status.text() == " task · cancelled ", what="the cancelled task")
        assert entry.status.text() == " Cancelled " and board.late_results() == []  # a cancel brings no result

    run_app(qapp, tmp_path, llm, scenario)


def test_a_late_result_kept_from_the_last_run_goes_to_the_message_box(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    record = TaskRecord(
        "tasks", "t-9", "research", "2026-07-28", "call_9", "a-deleted-chat", status=TaskStatus.COMPLETED
    )
    TaskStore(data_dir() / TASKS_FILENAME).keep_result(
        LateResult(record, {"content": [{"type": "text", "text": "tides"}]})
    )

    async def scenario(window: MainWindow) -> None:
        dock, panel = tasks_dock(window)
        entry = panel.entry(record)
        assert entry is not None and entry.action is not None and entry.action.text() == "Send to chat"
        dock.show()
        dock.raise_()
        qtbot.mouseClick(entry.action, Qt.MouseButton.LeftButton)
        draft = window.composer.editor.toPlainText()
        assert draft.startswith("The tool research on server tasks (call call_9) finished after its turn had ended")
        assert draft.endswith("tides")
        assert window.statusBar().currentMessage() == LATE_DELETED  # its chat is gone: this one takes it
        assert entry.action is None and TaskStore(data_dir() / TASKS_FILENAME).late_results() == []

    run_app(qapp, tmp_path, llm, scenario)


def run_app(qapp: QApplication, tmp_path: Path, llm: ScriptedLLM, scenario: Scenario) -> None:
    """The real window with the tasks fixture server over stdio and a scripted model."""
    server = {"command": sys.executable, "args": [tasks_server.__file__]}
    settings = AppSettings(ModelSettings("openai/scripted", api_base=llm.url), provider="compatible")
    run_window_scenario(qapp, tmp_path, scenario, servers={"tasks": server}, settings=settings, ready=1)


def tasks_dock(window: MainWindow) -> tuple[QDockWidget, TasksPanel]:
    dock = window.findChild(QDockWidget, "tasksDock")
    assert isinstance(dock, QDockWidget) and dock.windowTitle() == "Tasks"
    panel = dock.widget()
    assert isinstance(panel, TasksPanel)
    return dock, panel


async def allow(window: MainWindow) -> None:
    await until(lambda: [c for c in window.asker.pending if isinstance(c, ApprovalPanel)], what="approval")
    next(c for c in window.asker.pending if isinstance(c, ApprovalPanel)).allow_once.click()


def _running(board: TaskBoard, call_id: str) -> bool:
    record = board.task_for_call(call_id)
    return record is not None and record.status is TaskStatus.WORKING


def _late(board: TaskBoard, call_id: str) -> object:
    record = board.task_for_call(call_id)
    return record if record is not None and record.late and record.status is TaskStatus.WORKING else None
