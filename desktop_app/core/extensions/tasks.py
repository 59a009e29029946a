"""The Tasks extension's wire format (`io.modelcontextprotocol/tasks`, SEP-2663, protocol 2026-07-28).

The client declares the extension in every request's capabilities; a server may then answer a
`tools/call` with a task handle (`resultType: "task"`, flat: `taskId`, `status`, `pollIntervalMs`,
`ttlMs`, …) instead of the tool's result. The client polls `tasks/get`, whose answer carries the
task's `inputRequests` (forms, links, sampling, roots: the same requests a tool may embed in an
"input required" result), its `result` or its JSON-RPC `error`; it answers with `tasks/update`
and may send `tasks/cancel`. Over HTTP each `tasks/*` request names its task in the `Mcp-Name`
header (the requests' `name_param`).

The SDK hooks carry it: `TasksExtension` claims `resultType: "task"` on `tools/call`, and the
claim hands the handle to whoever made the call (`following`), which polls with the request types
below. Push updates (`notifications/tasks` through `subscriptions/listen`) are not used: polling
within the task's interval is what the specification requires of every client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, Literal

from mcp.client import ClientExtension, ClientSession
from mcp.client.extension import ClaimContext, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result, ServerCapabilities

EXTENSION_ID: Final = "io.modelcontextprotocol/tasks"
PROTOCOL_VERSION: Final = "2026-07-28"

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class TaskParams(RequestParams):
    task_id: str


class UpdateTaskParams(TaskParams):
    input_responses: dict[str, Any]


class GetTaskRequest(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"


class UpdateTaskRequest(Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams
    name_param = "taskId"


class CancelTaskRequest(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


class TaskHandle(Result):
    """What a server answers a `tools/call` with when it made a task of it."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class DetailedTask(Result):
    """A `tasks/get` answer: the task's state and, by status, its input requests, result or error.

    Its payloads stay plain JSON: a malformed input request or result is one thing to refuse, not a
    reason to lose track of the whole task.
    """

    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


Follower = Callable[[TaskHandle, ClientSession], Awaitable[CallToolResult]]
"""Follows a task to its end and returns the tool's result (or an error result)."""

_follower: ContextVar[Follower | None] = ContextVar("mcp_desk_task_follower", default=None)


class UnfollowedTask(RuntimeError):
    """A server made a task of a call that nobody set out to follow (a caller bypassing `following`)."""


@contextmanager
def following(follower: Follower) -> Iterator[None]:
    """During the block, a `tools/call` made in this context that becomes a task is followed by `follower`."""
    token = _follower.set(follower)
    try:
        yield
    finally:
        _follower.reset(token)


class TasksExtension(ClientExtension):
    """Declares the extension and claims task handles for whoever made the call (see `following`)."""

    identifier = EXTENSION_ID

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=TaskHandle, resolve=_resolve),)


async def _resolve(handle: TaskHandle, context: ClaimContext) -> CallToolResult:
    follower = _follower.get()
    if follower is None:
        raise UnfollowedTask(f"the server made a task ({handle.task_id}) of {context.tool_name} and nobody follows it")
    return await follower(handle, context.session)


def server_offers_tasks(capabilities: ServerCapabilities | None) -> bool:
    extensions = capabilities.extensions if capabilities is not None else None
    return isinstance(extensions, Mapping) and EXTENSION_ID in extensions


async def get_task(session: ClientSession, task_id: str, timeout: float) -> DetailedTask:
    request = GetTaskRequest(params=TaskParams(task_id=task_id))
    return await session.send_request(request, DetailedTask, request_read_timeout_seconds=timeout)


async def update_task(session: ClientSession, task_id: str, responses: dict[str, Any], timeout: float) -> None:
    request = UpdateTaskRequest(params=UpdateTaskParams(task_id=task_id, input_responses=responses))
    await session.send_request(request, Result, request_read_timeout_seconds=timeout)


async def cancel_task(session: ClientSession, task_id: str, timeout: float) -> None:
    request = CancelTaskRequest(params=TaskParams(task_id=task_id))
    await session.send_request(request, Result, request_read_timeout_seconds=timeout)
