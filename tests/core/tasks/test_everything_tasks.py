"""server-everything's `simulate-research-query` (2025-11-25 tasks) runs to its end through MCP Desk:
a task-augmented call, polled with its status on the board, and its clarifying question answered."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.question import Question
from desktop_app.core.tasks.events import TaskChanged, TaskEvent
from desktop_app.core.tasks.model import TaskStatus
from tests.core.asks.hosting import asking_host, everything_config, text_of
from tests.servers.everything import everything_available

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.npm,
    pytest.mark.skipif(not everything_available(), reason="server-everything is not installed"),
]
TOOL = "simulate-research-query"
STAGES = ("Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report...")


def snake(question: Question[Any]) -> Any:
    if isinstance(question, FormQuestion):
        return ElicitReply("accept", {"interpretation": "snake"})
    return question.fallback()


async def test_a_research_task_reports_its_stages_asks_once_and_completes() -> None:
    async with asking_host(snake, everything_config(timeout=10)) as (host, asker):
        board = host.tasks
        seen: list[TaskEvent] = []
        board.subscribe(seen.append)
        connection = host.connection("everything")

        plain = await connection.call_tool(TOOL, {"topic": "tides"}, call_id="call_plain")
        assert not plain.is_error
        assert "# Research Report: tides" in text_of(plain)
        assert asker.asked == []  # a clear topic needs no clarification

        ambiguous = await connection.call_tool(TOOL, {"topic": "python", "ambiguous": True}, call_id="call_python")
        assert "# Research Report: python (snake)" in text_of(ambiguous)
        [form] = asker.asked
        assert isinstance(form, FormQuestion) and form.call_id == "call_python"  # under the task's tool call
        assert "could have multiple interpretations" in form.message

        records = [event.record for event in seen if isinstance(event, TaskChanged)]
        first = [r for r in records if r.call_id == "call_plain"]
        assert {r.era for r in records} == {"2025-11-25"}
        working = [r.message for r in first if r.status is TaskStatus.WORKING]
        assert working[0] == "Gathering sources..."
        # The server suggests polling each second, as long as each stage lasts: a poll that comes late skips a
        # stage, so the stages are checked as seen in order, at least two of them, not each one.
        stages = [STAGES.index(message) for message in dict.fromkeys(working)]
        assert len(stages) >= 2 and stages == sorted(stages), working
        assert first[-1].status is TaskStatus.COMPLETED
        assert first[-1].message == "", "what it said while working does not outlive the work"
        second = [r for r in records if r.call_id == "call_python"]
        statuses = [r.status for r in second]
        assert TaskStatus.INPUT_REQUIRED in statuses
        assert statuses.index(TaskStatus.INPUT_REQUIRED) < len(statuses) - 1 and statuses[-1] is TaskStatus.COMPLETED
        assert board.task_for_call("call_python") == second[-1]
        assert [r.status for r in board.tasks()] == [TaskStatus.COMPLETED, TaskStatus.COMPLETED]
        assert board.late_results() == []  # both results went to their calls
