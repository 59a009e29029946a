"""Following one task to its end, the same way in both protocol forms.

There is no overall deadline: a task may run for hours. What is bounded is each question about
it: a `tasks/get` the server does not answer within the server's timeout ends the task for MCP
Desk ("stopped reporting"), and so does outliving the time to live the server gave it. Between
polls the follower waits the interval the server suggests, and wakes at once when the user
cancels. A task that needs input asks the user through the usual questions; the time they take
counts for nothing. A task that asks more than its share (`asks/budget`) is cancelled on its server
like one the user cancels, with the reason as its message.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent

from desktop_app.core.server_errors import ServerRequestTimeout
from desktop_app.core.tasks.model import TaskRecord, TaskStatus, poll_seconds

USER_CANCELLED = "The user cancelled this task before it finished; it has no result."
STOPPED_ASKING = "MCP Desk cancelled this task: {why}. It has no result."


@dataclass(frozen=True)
class Report:
    """One answer to "how is the task?": its status, message, and the server's current hints."""

    status: TaskStatus
    message: str | None = None
    poll_interval_ms: float | None = None
    ttl_ms: float | None = None


class Channel(Protocol):
    """One protocol form's way to ask about, answer, finish and cancel a task."""

    async def get(self) -> Report:
        """Ask the server how the task is (raises `ServerRequestTimeout` when it does not answer)."""
        ...

    async def answer(self) -> None:
        """The task needs input: put the server's questions to the user."""
        ...

    async def outcome(self, report: Report) -> CallToolResult:
        """The task ended as `report` says: the tool's result (raises `MCPError` for a failed task)."""
        ...

    async def cancel(self) -> None: ...

    def finished(self) -> asyncio.Future[CallToolResult] | None:
        """The result, when it can arrive before a poll sees the task end (2025's `tasks/result`)."""
        ...


def error_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], is_error=True)


async def follow(
    record: TaskRecord,
    channel: Channel,
    *,
    timeout: float,
    publish: Callable[[TaskRecord], None],
    cancelled: asyncio.Event,
    stopped: Callable[[], str | None] = lambda: None,
) -> CallToolResult:
    """Poll until the task ends; publish each change; return the tool's result (or why there is none).
    `stopped` says why the task may no longer ask the user (it is then cancelled), None while it may.

    Raises `MCPError` when the task failed with a JSON-RPC error, and whatever the connection
    raises when it is lost (the task then waits for its server).
    """
    while True:
        if cancelled.is_set():
            return await _cancel(record, channel, timeout, publish)
        if (why := stopped()) is not None:
            return await _cancel(record, channel, timeout, publish, STOPPED_ASKING.format(why=why))
        finished = channel.finished()
        if finished is not None and finished.done():
            return _early(record, finished, publish)
        try:
            report = await channel.get()
        except ServerRequestTimeout:
            text = (
                f"Server '{record.server}' stopped reporting on this task: it did not answer tasks/get within "
                f"{timeout:g} s. MCP Desk stopped waiting; the task may still finish on the server."
            )
            publish(record.with_status(TaskStatus.SILENT, text))
            return error_result(text)
        except MCPError as exc:
            if exc.code != INVALID_PARAMS:
                raise
            text = f"Server '{record.server}' no longer knows this task ({exc.message}); its result is lost."
            publish(record.with_status(TaskStatus.UNKNOWN, text))
            return error_result(text)
        record = _reported(record, report)
        publish(record)
        if report.status.ended:
            return await _finish(record, channel, report, timeout, publish)
        if _expired(record):
            text = (
                f"The task outlived the {record.ttl:g} s its server said it would keep it, without finishing. "
                "MCP Desk stopped waiting."
            )
            publish(record.with_status(TaskStatus.SILENT, text))
            return error_result(text)
        if report.status is TaskStatus.INPUT_REQUIRED and not await _unless_cancelled(channel.answer(), cancelled):
            continue
        await _pause(record.poll_interval, cancelled, channel.finished())


async def _finish(
    record: TaskRecord, channel: Channel, report: Report, timeout: float, publish: Callable[[TaskRecord], None]
) -> CallToolResult:
    try:
        result = await channel.outcome(report)
    except MCPError as exc:
        publish(record.with_status(TaskStatus.FAILED, exc.message))
        raise
    except (ServerRequestTimeout, TimeoutError):
        text = f"Server '{record.server}' said the task ended but did not hand over its result within {timeout:g} s."
        publish(record.with_status(TaskStatus.SILENT, text))
        return error_result(text)
    publish(record.with_status(report.status, _summary(report, result)))
    return result


def _early(
    record: TaskRecord, finished: asyncio.Future[CallToolResult], publish: Callable[[TaskRecord], None]
) -> CallToolResult:
    """The result came before a poll saw the task end: it has ended (failed, when it is an error)."""
    try:
        result = finished.result()
    except MCPError as exc:
        publish(record.with_status(TaskStatus.FAILED, exc.message))
        raise
    publish(record.with_status(TaskStatus.COMPLETED))
    return result


def _reported(record: TaskRecord, report: Report) -> TaskRecord:
    ttl = record.ttl if report.ttl_ms is None else report.ttl_ms / 1000
    return record.with_status(
        report.status, report.message, poll_interval=poll_seconds(report.poll_interval_ms), ttl=ttl
    )


def _summary(report: Report, result: CallToolResult) -> str | None:
    """A cancelled task's message is its result's text; any other keeps what its last report said."""
    return _text(result) if report.status is TaskStatus.CANCELLED else None


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


def _expired(record: TaskRecord) -> bool:
    return record.ttl is not None and time.time() > record.started + record.ttl + record.poll_interval


async def _cancel(
    record: TaskRecord,
    channel: Channel,
    timeout: float,
    publish: Callable[[TaskRecord], None],
    reason: str = USER_CANCELLED,
) -> CallToolResult:
    """Tell the server (cancellation is cooperative: its acknowledgement is all we wait for)."""
    message = reason
    try:
        await asyncio.wait_for(channel.cancel(), timeout)
    except (MCPError, ServerRequestTimeout, TimeoutError) as exc:
        why = exc.message if isinstance(exc, MCPError) else str(exc) or "no answer"
        message = f"{reason} (The server did not confirm: {why}.)"
    publish(record.with_status(TaskStatus.CANCELLED, message))
    return error_result(message)


async def _unless_cancelled(work: Awaitable[None], cancelled: asyncio.Event) -> bool:
    """Run `work`; False when the user cancelled first (the question is withdrawn)."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(cancelled.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        return False
    task.result()
    return True


async def _pause(seconds: float, cancelled: asyncio.Event, finished: asyncio.Future[CallToolResult] | None) -> None:
    """Wait out the poll interval, but not past a cancel or an early result."""
    waiters: set[asyncio.Future[object]] = {asyncio.ensure_future(cancelled.wait())}
    if finished is not None:
        waiters.add(finished)  # type: ignore[arg-type]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            if waiter is not finished:
                waiter.cancel()
