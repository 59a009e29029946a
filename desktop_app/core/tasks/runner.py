"""One server's tasks: the tool calls that become tasks, and its tasks followed again later.

A connection routes every tool call through `TaskRunner.call_tool`. On 2025-11-25 a server that
offers tasks gets a task-augmented `tools/call` for each tool that supports one (the tool's
`execution.taskSupport`); on 2026-07-28 the server decides, and a call it makes a task of comes
back through the extension's claim. Either way the call then waits for the task without any
client timeout: the follower bounds each poll instead (`follow`).

When the call stops waiting while the task runs on (the user stopped the turn, the app quits, the
connection drops), the task stays on the board and is followed again as soon as its server is
ready; its result then arrives as a late result for its conversation. A task whose questions were
stopped (`asks/budget`: too many for one call) is cancelled on its server.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client
from mcp.client import ClientSession
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ListToolsResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app.core.asks.server_asks import ServerAsks
from desktop_app.core.extensions import tasks as ext
from desktop_app.core.extensions import tasks_2025
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_errors import ServerUnavailableError
from desktop_app.core.tasks.board import TaskBoard
from desktop_app.core.tasks.channels import Channel2025, Channel2026, Requester
from desktop_app.core.tasks.events import LateResult
from desktop_app.core.tasks.follow import error_result, follow
from desktop_app.core.tasks.model import TaskRecord, TaskStatus, poll_seconds, server_status


class TaskRunner:
    """Runs one connection's tool calls that become tasks, and follows its waiting tasks."""

    def __init__(
        self,
        board: TaskBoard,
        *,
        config: Callable[[], ServerConfig],
        client: Callable[[], Client | None],
        request: Requester,
        asks: ServerAsks,
    ) -> None:
        self._board = board
        self._config = config
        self._client = client
        self._request = request
        self._asks = asks
        self._support: tuple[Client, dict[str, str]] | None = None
        board.attach(self)

    @property
    def name(self) -> str:
        return self._config().name

    def ready(self) -> bool:
        return self._client() is not None and self._asks.context.alive()

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        progress: ProgressFnT | None,
        call_id: str | None,
        plain: Callable[[], Awaitable[CallToolResult]],
        chat: str | None = None,
    ) -> CallToolResult:
        """Call a tool, as a task where the server supports one; `plain` makes the ordinary call. A task
        belongs to conversation `chat` (by default the one the user is in): its late result goes there."""
        chat = chat if chat is not None else self._asks.context.service.chat
        client = self._client()
        if client is not None and await self._as_task_2025(client, tool):
            return await self._call_2025(tool, arguments, progress, call_id, chat)

        async def follow_claimed(handle: ext.TaskHandle, _session: ClientSession) -> CallToolResult:
            record = self._new_record(handle.task_id, tool, ext.PROTOCOL_VERSION, call_id, chat).with_status(
                server_status(handle.status),
                handle.status_message or "",
                poll_interval=poll_seconds(handle.poll_interval_ms),
                ttl=None if handle.ttl_ms is None else handle.ttl_ms / 1000,
            )
            scope = self._asks.calls.scope()
            # The call's own timeout stops while the task runs: each poll has its own instead.
            with scope.on_our_side() if scope is not None else contextlib.nullcontext():
                result = await self._follow(record)
            assert result is not None  # only a late task goes unfollowed
            return result

        with ext.following(follow_claimed):
            return await plain()

    async def resume(self, record: TaskRecord) -> None:
        """Follow a task whose call has ended; its result (or its end) becomes a late result."""
        client = self._client()
        if client is None:
            return
        if _form(client) != record.era:
            text = (
                f"Server '{record.server}' now speaks protocol {client.protocol_version}: it cannot know this "
                f"{record.era} task, so its result is lost."
            )
            self._board.changed(record.with_status(TaskStatus.UNKNOWN, text))
            self._deliver(record, error_result(text))
            return
        cancelled = asyncio.Event()
        async with self._asks.calls.track(record.call_id):  # its questions show under its tool call
            result = await self._follow(record, cancelled, late=True)
        if result is not None and not cancelled.is_set():
            self._deliver(record, result)

    # -- 2025-11-25 ------------------------------------------------------------------------

    async def _as_task_2025(self, client: Client, tool: str) -> bool:
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return False
        if not tasks_2025.server_offers_tasks(client.server_capabilities):
            return False
        return await self._task_support(client, tool) != "forbidden"

    async def _task_support(self, client: Client, tool: str) -> str:
        """The tool's `execution.taskSupport`, from a listing of this session (again when a tool is new)."""
        if self._support is None or self._support[0] is not client or tool not in self._support[1]:
            support: dict[str, str] = {}
            cursor: str | None = None
            while True:
                page = await self._request("tools/list", _lister(cursor))
                support.update((t.name, tasks_2025.task_support(t)) for t in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            self._support = (client, support)
        return self._support[1].get(tool, "forbidden")

    async def _call_2025(
        self, tool: str, arguments: dict[str, Any], progress: ProgressFnT | None, call_id: str | None, chat: str | None
    ) -> CallToolResult:
        timeout = self._config().timeout
        async with self._asks.calls.track(call_id):  # the server's questions arrive as requests: whose call they are
            created = await self._request(
                f"tools/call {tool}",
                lambda c: tasks_2025.call_tool_as_task(
                    c.session, tool, arguments, ttl_ms=None, timeout=timeout, progress=progress
                ),
            )
            if isinstance(created, CallToolResult):
                return created
            task = created.task
            record = self._new_record(task.task_id, tool, tasks_2025.PROTOCOL_VERSION, call_id, chat).with_status(
                server_status(task.status),
                task.status_message or "",
                poll_interval=poll_seconds(task.poll_interval),
                ttl=None if task.ttl is None else task.ttl / 1000,
            )
            result = await self._follow(record)
        assert result is not None
        return result

    # -- following -------------------------------------------------------------------------

    def _new_record(self, task_id: str, tool: str, era: str, call_id: str | None, chat: str | None) -> TaskRecord:
        return TaskRecord(self.name, task_id, tool, era, call_id, chat)

    async def _follow(
        self, record: TaskRecord, cancelled: asyncio.Event | None = None, *, late: bool = False
    ) -> CallToolResult | None:
        """Follow `record` to its end. A call that stops waiting leaves the task to the board; a lost
        connection leaves it waiting for the server. None when a late task could not be followed."""
        cancelled = cancelled or asyncio.Event()
        board, key = self._board, record.key
        board.started(record, cancelled.set)
        channel: Channel2025 | Channel2026 = (
            Channel2025(self._request, record.task_id, self._timeout)
            if record.era == tasks_2025.PROTOCOL_VERSION
            else Channel2026(self._request, record.task_id, self._timeout, self._asks.context.note)
        )
        questions = self._asks.context.service.questions
        try:
            return await follow(
                record,
                channel,
                timeout=self._timeout(),
                publish=board.changed,
                cancelled=cancelled,
                stopped=lambda: questions.stopped(record.server, record.call_id),
            )
        except asyncio.CancelledError:
            board.stopped_following(key, follow_now=not late)
            raise
        except MCPError as exc:
            if not late:
                raise
            return error_result(f"The task failed: {exc.message}")
        except ServerUnavailableError:
            board.stopped_following(key, follow_now=False)
            if not late:
                raise
            return None
        finally:
            channel.close()

    def _timeout(self) -> float:
        return self._config().timeout

    def _deliver(self, record: TaskRecord, result: CallToolResult) -> None:
        final = self._board.task(record.key) or record
        self._board.late_result(LateResult(final, result.model_dump(by_alias=True, mode="json", exclude_none=True)))


def _lister(cursor: str | None) -> Callable[[Client], Awaitable[ListToolsResult]]:
    return lambda client: client.list_tools(cursor=cursor)


def _form(client: Client) -> str:
    """Which form of tasks this session speaks."""
    if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return ext.PROTOCOL_VERSION
    return tasks_2025.PROTOCOL_VERSION
