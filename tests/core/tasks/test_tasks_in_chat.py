"""A task belongs to the chat its call was made in: its late result goes there, whichever chat is on screen."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.engine import CANCELLED_RESULT
from desktop_app.core.chat.events import ToolResult
from desktop_app.core.tasks.model import TaskStatus
from tests.core.asks.hosting import text_of
from tests.core.tasks.hosting import task_of, tasks_host
from tests.engine_kit import of_type, scripted_engine
from tests.hosting import eventually
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.tasks_server import build_tasks_server

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS]


async def test_a_task_started_in_one_chat_delivers_its_late_result_there_while_another_is_on_screen(
    llm: ScriptedLLM,
) -> None:
    server, fixture = build_tasks_server()
    async with tasks_host(server) as (host, _asker, board):
        engine = scripted_engine(host, llm)
        chat_a = Conversation()
        host.asks.chat = "chat-b"  # the user has moved on to another chat
        llm.queue(calls(ToolCall("tasks__hold", {"label": "dusk"}, id="call_dusk")), text("never sent"))
        turn = engine.start_turn(chat_a, "Wait for dusk")
        running = await task_of(board, "call_dusk")
        assert running.conversation == chat_a.id

        turn.cancel()  # the turn stops; the task runs on, late
        finished = await turn.wait()
        assert finished.reason == "cancelled"
        [cancelled] = of_type(turn.events, ToolResult)
        assert (cancelled.call_id, cancelled.text, cancelled.cancelled) == ("call_dusk", CANCELLED_RESULT, True)
        assert (await task_of(board, "call_dusk")).late

        fixture.release("dusk")
        await eventually(lambda: board.late_results(chat_a.id), what="the late result in the chat it began in")
        [late] = board.late_results(chat_a.id)
        assert late.record.status is TaskStatus.COMPLETED and text_of(late.tool_result()) == "released dusk"
        assert board.late_results("chat-b") == []
        assert len(llm.bodies()) == 1  # nothing more was sent to the model: the user decides
