"""Tasks in the 2026-07-28 extension, against the Python fixture server: a task that asks (answered by a
form, or declined), one that fails, one the user cancels, one whose turn stops, one that stops
answering, one that survives the app's restart, and one its server no longer knows."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.tasks.events import LateResult, TaskChanged, TaskEvent
from desktop_app.core.tasks.follow import USER_CANCELLED
from desktop_app.core.tasks.model import TaskRecord, TaskStatus
from desktop_app.core.tasks.store import TaskStore
from tests.core.asks.hosting import text_of
from tests.core.tasks.hosting import task_of, tasks_host
from tests.hosting import eventually, serving_configs
from tests.servers import tasks_server
from tests.servers.everything import free_port, run_http_server
from tests.servers.tasks_server import build_tasks_server

pytestmark = pytest.mark.anyio
TASKS_SCRIPT = tasks_server.__file__


def reader(question: Question[Any]) -> Any:
    """Picks "snake" in the first form and declines the next."""
    if not isinstance(question, FormQuestion):
        return question.fallback()
    first = question.message == "Which python do you mean?"
    return ElicitReply("accept", {"reading": "snake"}) if first else ElicitReply("decline")


async def test_a_task_asks_is_answered_or_declined_and_one_fails() -> None:
    server, fixture = build_tasks_server()
    async with tasks_host(server, reader) as (host, asker, board):
        seen: list[TaskEvent] = []
        board.subscribe(seen.append)
        tasks = host.connection("tasks")

        answered = await tasks.call_tool("research", {"topic": "python", "ask": True}, call_id="call_python")
        assert text_of(answered) == "Report on python: reading=snake (answer: accept)"
        declined = await tasks.call_tool("research", {"topic": "boa", "ask": True}, call_id="call_boa")
        assert text_of(declined) == "Report on boa: reading=default (answer: decline)"
        first, second = asker.asked
        assert isinstance(first, FormQuestion) and first.call_id == "call_python"  # under the task's tool call
        assert isinstance(second, FormQuestion) and second.call_id == "call_boa"
        assert [f.name for f in first.form.fields] == ["reading"]

        changes = [e.record for e in seen if isinstance(e, TaskChanged) and e.record.call_id == "call_python"]
        assert [r.status for r in _distinct(changes)] == [
            TaskStatus.WORKING,
            TaskStatus.INPUT_REQUIRED,
            TaskStatus.WORKING,
            TaskStatus.COMPLETED,
        ]
        assert "Gathering sources on python" in [r.message for r in changes]
        assert {r.era for r in changes} == {"2026-07-28"}
        assert changes[-1].task_id in fixture.tasks

        with pytest.raises(MCPError, match="the upstream API refused"):
            await tasks.call_tool("fail", {}, call_id="call_fail")
        failed = board.task_for_call("call_fail")
        assert failed is not None and failed.status is TaskStatus.FAILED
        assert board.late_results() == []


async def test_cancel_tells_the_server_and_a_stopped_turn_leaves_its_task_running() -> None:
    server, fixture = build_tasks_server()
    async with tasks_host(server) as (host, _asker, board):
        tasks = host.connection("tasks")
        host.asks.chat = "conversation-1"
        call = asyncio.ensure_future(tasks.call_tool("forever", {}, call_id="call_forever"))
        record = await task_of(board, "call_forever")
        board.cancel(record.key)
        result = await asyncio.wait_for(call, 10)
        assert result.is_error and text_of(result) == USER_CANCELLED
        assert fixture.cancelled == [record.task_id]
        ended = board.task(record.key)
        assert ended is not None and ended.status is TaskStatus.CANCELLED

        # The user stops the turn: the call ends, the task goes on and is followed in the background.
        late: list[LateResult] = []
        board.subscribe(lambda event: late.append(event) if isinstance(event, LateResult) else None)
        call = asyncio.ensure_future(tasks.call_tool("hold", {"label": "kept"}, call_id="call_hold"))
        await task_of(board, "call_hold")
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        following = await task_of(board, "call_hold")
        assert following.late
        fixture.release("kept")
        await eventually(lambda: late, what="the late result")
        [arrived] = late
        assert arrived.record.conversation == "conversation-1" and arrived.record.call_id == "call_hold"
        assert text_of(arrived.tool_result()) == "released kept"
        assert "finished after its turn had ended" in arrived.message()
        assert "released kept" in arrived.message()
        assert fixture.cancelled == [record.task_id]  # stopping the turn did not cancel the task


async def test_a_task_that_stops_answering_is_ended_after_the_servers_timeout() -> None:
    server, _fixture = build_tasks_server()
    async with tasks_host(server, timeout=0.5) as (host, _asker, board):
        result = await host.connection("tasks").call_tool("go_quiet", {}, call_id="call_quiet")
        assert result.is_error
        assert "stopped reporting on this task: it did not answer tasks/get within 0.5 s" in text_of(result)
        record = board.task_for_call("call_quiet")
        assert record is not None and record.status is TaskStatus.SILENT


async def test_a_task_survives_the_apps_restart_and_its_result_reaches_its_conversation(tmp_path: Path) -> None:
    server, fixture = build_tasks_server()
    store = tmp_path / "tasks.json"
    async with tasks_host(server, store=store) as (host, _asker, board):
        host.asks.chat = "conversation-8"  # the chat on screen is not the one the call was made in
        call = asyncio.ensure_future(
            host.connection("tasks").call_tool("hold", {"label": "overnight"}, call_id="c7", chat="conversation-7")
        )
        record = await task_of(board, "c7")
        call.cancel()  # quitting, the app stops the turn first, then every server
        await asyncio.gather(call, return_exceptions=True)
    assert (await task_of(board, "c7", TaskStatus.WAITING)).late
    [kept] = TaskStore(store).running()
    assert (kept.task_id, kept.conversation, kept.call_id, kept.tool) == (
        record.task_id,
        "conversation-7",
        "c7",
        "hold",
    )

    async with tasks_host(server, store=store) as (_host, _asker, board):
        waiting = await task_of(board, "c7")  # followed again, late, as soon as its server is ready
        assert waiting.late and waiting.key == record.key
        fixture.release("overnight")
        await eventually(lambda: board.late_results("conversation-7"), what="the late result")
        [late] = board.late_results("conversation-7")
        assert board.late_results("conversation-8") == []
        assert text_of(late.tool_result()) == "released overnight"
        assert late.record.status is TaskStatus.COMPLETED
        on_disk = json.loads(store.read_text())
        assert on_disk["running"] == [] and len(on_disk["results"]) == 1
        board.delivered(late)
        assert board.late_results() == [] and TaskStore(store).late_results() == []


async def test_a_stored_task_its_server_no_longer_knows_says_so(tmp_path: Path) -> None:
    store = tmp_path / "tasks.json"
    TaskStore(store).save(TaskRecord("tasks", "gone-1", "hold", "2026-07-28", "c9", "conversation-9"))
    server, _fixture = build_tasks_server()  # a fresh server: it never heard of gone-1
    async with tasks_host(server, store=store) as (_host, _asker, board):
        await eventually(lambda: board.late_results("conversation-9"), what="the task's end")
        [late] = board.late_results("conversation-9")
        assert late.record.status is TaskStatus.UNKNOWN
        assert "no longer knows this task (Failed to retrieve task: Task not found)" in text_of(late.tool_result())
        assert TaskStore(store).running() == []


async def test_over_http_each_tasks_request_names_its_task() -> None:
    port = free_port()
    async with run_http_server([sys.executable, TASKS_SCRIPT, "--http", str(port)], port):
        config = ServerConfig(name="tasks", transport=TransportKind.HTTP, url=f"http://127.0.0.1:{port}/mcp")
        async with serving_configs(config, settle=30, asker=ScriptedAsker(reader)) as host:
            result = await host.connection("tasks").call_tool("research", {"topic": "python", "ask": True})
            # The server refuses a tasks/* request whose Mcp-Name header does not name its task.
            assert text_of(result) == "Report on python: reading=snake (answer: accept)"
            [record] = host.tasks.tasks()
            assert record.status is TaskStatus.COMPLETED and record.era == "2026-07-28"


def _distinct(records: list[TaskRecord]) -> list[TaskRecord]:
    """Consecutive reports with the same status counted once."""
    out: list[TaskRecord] = []
    for record in records:
        if not out or out[-1].status is not record.status:
            out.append(record)
    return out
