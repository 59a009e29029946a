"""A task that asks without end: the question budget is one mechanism for questions a server asks during a
call and questions a task carries. A task that puts a new question on every poll gets a bounded number put
to the user, is then cancelled on its server, and the user gets one notice instead of the rest."""

from __future__ import annotations

import asyncio

import pytest

from desktop_app.core.asks.budget import MAX_PER_CALL
from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.question import AskingStopped
from desktop_app.core.tasks.model import TaskStatus
from tests.core.asks.hosting import host_notes, text_of
from tests.core.tasks.hosting import tasks_host
from tests.servers.tasks_server import build_tasks_server

pytestmark = pytest.mark.anyio


async def test_a_task_asking_on_every_poll_is_stopped_cancelled_and_told_once() -> None:
    server, fixture = build_tasks_server()
    refusals: list[str] = []
    async with tasks_host(server, lambda q: ElicitReply("decline")) as (host, asker, board):
        host.asks.on_refusal = lambda name, text: refusals.append(f"{name}: {text}")
        tasks = host.connection("tasks")
        async with asyncio.timeout(30):  # without a budget it would ask for ever
            result = await tasks.call_tool("nag", {}, call_id="call_nag")

        forms = [q for q in asker.asked if isinstance(q, FormQuestion)]
        notices = [q for q in asker.asked if isinstance(q, AskingStopped)]
        assert len(forms) == MAX_PER_CALL and len(asker.asked) == MAX_PER_CALL + 1  # bounded, then one notice
        [notice] = notices
        assert notice.call_id == "call_nag" and notice.server == "tasks"
        assert (
            notice.reason == f"'tasks' asked {MAX_PER_CALL} questions during one tool call; it is not asked more for it"
        )

        [task] = fixture.tasks.values()
        assert fixture.cancelled == [task.task_id]  # cancelled on its server
        assert result.is_error and text_of(result).startswith(
            f"MCP Desk cancelled this task: 'tasks' asked {MAX_PER_CALL}"
        )
        record = board.task_for_call("call_nag")
        assert record is not None and record.status is TaskStatus.CANCELLED
        assert record.message.startswith("MCP Desk cancelled this task")
        assert len(refusals) == 1 and refusals[0].startswith("tasks: refused a form: too many questions")
        assert len([n for n in host_notes(tasks) if n.startswith("refused a form")]) == 1
        # Every answer the user gave reached the server; the refused question was answered "cancel".
        assert [a["action"] for a in task.answers] == ["decline"] * MAX_PER_CALL + ["cancel"]

        # Another call of the same server still asks: the budget is per call (and the server's is not spent).
        answered = await tasks.call_tool("research", {"topic": "python", "ask": True}, call_id="call_python")
        assert text_of(answered) == "Report on python: reading=default (answer: decline)"
