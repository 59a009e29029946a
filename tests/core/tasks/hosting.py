"""A host over the 2026 tasks fixture server (in this process), with a scripted user and the task board."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.host import ServerHost
from desktop_app.core.server_status import ServerState
from desktop_app.core.tasks.board import TaskBoard
from desktop_app.core.tasks.model import TaskRecord, TaskStatus
from tests.hosting import eventually, inprocess_config, serving


@asynccontextmanager
async def tasks_host(
    server: MCPServer,
    answer: Callable[[Question[Any]], Any] | None = None,
    *,
    store: Path | None = None,
    timeout: float = 10.0,
) -> AsyncIterator[tuple[ServerHost, ScriptedAsker, TaskBoard]]:
    """A ready host whose server "tasks" is `server` (in-process); `store` keeps tasks across hosts."""
    asker = ScriptedAsker(answer)

    def open_store(host: ServerHost) -> None:
        if store is not None:
            host.tasks.open(store, host.bus)

    config = inprocess_config("tasks", timeout=timeout)
    async with serving({"tasks": server}, config, settle=30, asker=asker, prepare=open_store) as host:
        assert host.connection("tasks").status.state is ServerState.READY, host.connection("tasks").status
        yield host, asker, host.tasks


async def task_of(board: TaskBoard, call_id: str, status: TaskStatus = TaskStatus.WORKING) -> TaskRecord:
    """The call's task once it has reached `status`."""

    def reached() -> TaskRecord | None:
        record = board.task_for_call(call_id)
        return record if record is not None and record.status is status else None

    await eventually(reached, what=f"the task of {call_id} {status}", seen=lambda: repr(board.task_for_call(call_id)))
    record = reached()
    assert record is not None
    return record
