"""Tasks as the 2025-11-25 revision has them: a task-augmented `tools/call` and the `tasks/*` requests.

A server that declares `capabilities.tasks.requests.tools.call` accepts `tools/call` with
`params.task = {ttl}` for tools whose `execution.taskSupport` is "optional" or "required", and
answers with a `CreateTaskResult` (`{task: {taskId, status, pollInterval, …}}`) instead of the
tool's result. The client then polls `tasks/get`, fetches the result (or the server's questions,
which arrive as ordinary `elicitation/create` / `sampling/createMessage` requests while it waits)
with `tasks/result`, and may send `tasks/cancel`.

The SDK carries the types but never dispatches them: `tasks/*` go through `send_request` with the
SDK's own request models, while the task-augmented `tools/call` is sent raw, because the SDK checks
every `tools/call` answer against `CallToolResult` and a task handle has no `content`. The SDK also
cannot declare the client's own 2025 `tasks` capability (servers sending *their* requests to the
client as tasks), which the 2026 extension dropped: MCP Desk leaves that side out.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from mcp.client import ClientSession
from mcp.shared.dispatcher import CallOptions, ProgressFnT
from mcp_types import (
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    CancelTaskResult,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskPayloadRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    ServerCapabilities,
    Tool,
)

PROTOCOL_VERSION: Final = "2025-11-25"
RELATED_TASK_META: Final = "io.modelcontextprotocol/related-task"
"""The `_meta` key that ties a server's request (a question, a progress report) to a task."""

TaskSupport = Literal["forbidden", "optional", "required"]


def server_offers_tasks(capabilities: ServerCapabilities | None) -> bool:
    """Whether the server accepts task-augmented `tools/call` (it declared `tasks.requests.tools.call`)."""
    tasks = capabilities.tasks if capabilities is not None else None
    requests = tasks.requests if tasks is not None else None
    tools = requests.tools if requests is not None else None
    return tools is not None and tools.call is not None


def task_support(tool: Tool) -> TaskSupport:
    """A tool's `execution.taskSupport`; absent means "forbidden"."""
    execution = tool.execution
    return (execution.task_support if execution is not None else None) or "forbidden"


async def call_tool_as_task(
    session: ClientSession,
    name: str,
    arguments: dict[str, Any],
    *,
    ttl_ms: int | None,
    timeout: float,
    progress: ProgressFnT | None = None,
) -> CreateTaskResult | CallToolResult:
    """Send `tools/call` with `params.task`; a server may still answer with the tool's result at once."""
    data: dict[str, Any] = {"method": "tools/call", "params": {"name": name, "arguments": arguments, "task": {}}}
    if ttl_ms is not None:
        data["params"]["task"]["ttl"] = ttl_ms
    opts: CallOptions = {"timeout": timeout}
    if progress is not None:
        opts["on_progress"] = progress
    # The SDK's own headers for the negotiated version (it would add them on any request), then the
    # request itself past the SDK's `tools/call` result check. Both are the session's private parts:
    # this is the one place that reaches for them, until the SDK sends task-augmented requests itself.
    session._stamp(data, opts)
    raw = await session._dispatcher.send_raw_request("tools/call", data["params"], opts)
    if isinstance(raw, dict) and "task" in raw:
        return CreateTaskResult.model_validate(raw, by_name=False)
    return CallToolResult.model_validate(raw, by_name=False)


async def get_task(session: ClientSession, task_id: str, timeout: float) -> GetTaskResult:
    request = GetTaskRequest(params=GetTaskRequestParams(task_id=task_id))
    return await session.send_request(request, GetTaskResult, request_read_timeout_seconds=timeout)


async def task_result(session: ClientSession, task_id: str) -> CallToolResult:
    """`tasks/result`: waits (on the server) until the task ends, meanwhile delivering its questions."""
    request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=task_id))
    return await session.send_request(request, CallToolResult, request_read_timeout_seconds=float("inf"))


async def cancel_task(session: ClientSession, task_id: str, timeout: float) -> CancelTaskResult:
    request = CancelTaskRequest(params=CancelTaskRequestParams(task_id=task_id))
    return await session.send_request(request, CancelTaskResult, request_read_timeout_seconds=timeout)
