"""The two protocol forms of tasks behind one `Channel`: how to ask, answer, finish and cancel.

2025-11-25: `tasks/get` polls; the server's questions and the result both come through
`tasks/result`, which waits on the server until the task ends, so it is opened once the task
needs input (or has ended) and runs beside the polls. 2026-07-28: `tasks/get` carries the
questions, the result or the error; answers go back with `tasks/update`.

Every request goes through the connection's `request`, so failures read the same as any other
request's, and a lost connection is noticed by the connection's owner.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ErrorData
from pydantic import ValidationError

from desktop_app.core.extensions import tasks as ext
from desktop_app.core.extensions import tasks_2025
from desktop_app.core.tasks.follow import Report, error_result
from desktop_app.core.tasks.inputs import InputAnswers
from desktop_app.core.tasks.model import TaskStatus, server_status

T = TypeVar("T")


class Requester(Protocol):
    """Sends one request (`what` names it in errors) through the server's ready session."""

    async def __call__(self, what: str, send: Callable[[Client], Awaitable[T]]) -> T: ...


def cancelled_by_server(message: str | None) -> CallToolResult:
    return error_result(f"The server cancelled the task{': ' + message if message else '.'}")


class Channel2025:
    """A task created by a task-augmented `tools/call` (2025-11-25)."""

    def __init__(self, request: Requester, task_id: str, timeout: Callable[[], float]) -> None:
        self._request = request
        self._task_id = task_id
        self._timeout = timeout
        self._result: asyncio.Future[CallToolResult] | None = None

    async def get(self) -> Report:
        task_id, timeout = self._task_id, self._timeout()
        task = await self._request("tasks/get", lambda c: tasks_2025.get_task(c.session, task_id, timeout))
        return Report(server_status(task.status), task.status_message, task.poll_interval, task.ttl)

    async def answer(self) -> None:
        self._open_result()

    async def outcome(self, report: Report) -> CallToolResult:
        if report.status is TaskStatus.CANCELLED:
            self.close()
            return cancelled_by_server(report.message)
        # The task has ended: `tasks/result` answers at once (within the server's timeout, as any request).
        return await asyncio.wait_for(asyncio.shield(self._open_result()), self._timeout())

    async def cancel(self) -> None:
        self.close()
        task_id, timeout = self._task_id, self._timeout()
        await self._request("tasks/cancel", lambda c: tasks_2025.cancel_task(c.session, task_id, timeout))

    def finished(self) -> asyncio.Future[CallToolResult] | None:
        return self._result

    def close(self) -> None:
        if self._result is not None and not self._result.done():
            self._result.cancel()

    def _open_result(self) -> asyncio.Future[CallToolResult]:
        if self._result is None:
            task_id = self._task_id
            self._result = asyncio.ensure_future(
                self._request("tasks/result", lambda c: tasks_2025.task_result(c.session, task_id))
            )
            self._result.add_done_callback(_retrieved)
        return self._result


class Channel2026:
    """A task a server made of a `tools/call` (the `io.modelcontextprotocol/tasks` extension)."""

    def __init__(
        self,
        request: Requester,
        task_id: str,
        timeout: Callable[[], float],
        note: Callable[[str, str], None],
    ) -> None:
        self._request = request
        self._task_id = task_id
        self._timeout = timeout
        self._inputs = InputAnswers(note)
        self._last: ext.DetailedTask | None = None

    async def get(self) -> Report:
        task_id, timeout = self._task_id, self._timeout()
        task = await self._request("tasks/get", lambda c: ext.get_task(c.session, task_id, timeout))
        self._last = task
        return Report(server_status(task.status), task.status_message, task.poll_interval_ms, task.ttl_ms)

    async def answer(self) -> None:
        requests = (self._last.input_requests if self._last is not None else None) or {}

        async def ask_and_update(client: Client) -> None:
            responses = await self._inputs.answer(client.session, requests)
            if responses:
                await ext.update_task(client.session, self._task_id, responses, self._timeout())

        await self._request("tasks/update", ask_and_update)

    async def outcome(self, report: Report) -> CallToolResult:
        task = self._last
        if report.status is TaskStatus.CANCELLED or task is None:
            return cancelled_by_server(report.message)
        if report.status is TaskStatus.FAILED:
            raise MCPError.from_error_data(_error(task.error))
        try:
            return CallToolResult.model_validate(task.result or {}, by_name=False)
        except ValidationError as exc:
            return error_result(f"The server's result for this task is malformed ({exc.error_count()} errors).")

    async def cancel(self) -> None:
        task_id, timeout = self._task_id, self._timeout()
        await self._request("tasks/cancel", lambda c: ext.cancel_task(c.session, task_id, timeout))

    def finished(self) -> asyncio.Future[CallToolResult] | None:
        return None

    def close(self) -> None:
        pass


def _error(error: dict[str, object] | None) -> ErrorData:
    try:
        return ErrorData.model_validate(error or {}, by_name=False)
    except ValidationError:
        return ErrorData(code=-32603, message="the task failed (the server's error is malformed)")


def _retrieved(future: asyncio.Future[CallToolResult]) -> None:
    """Nobody may await a `tasks/result` (the task was cancelled first): its error is read, not logged."""
    with contextlib.suppress(asyncio.CancelledError, Exception):
        future.exception()
