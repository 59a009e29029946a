"""The two forms of tasks on the wire, read from the specifications' own examples."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import (
    ServerCapabilities,
    ServerTasksCapability,
    ServerTasksRequestsCapability,
    TasksCallCapability,
    TasksToolsCapability,
    Tool,
    ToolExecution,
)

from desktop_app.core.extensions import tasks, tasks_2025
from desktop_app.core.tasks.model import TaskStatus, poll_seconds, server_status

BASE: dict[str, Any] = {
    "resultType": "complete",
    "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
    "createdAt": "2025-11-25T10:30:00Z",
    "lastUpdatedAt": "2025-11-25T10:50:00Z",
    "ttlMs": 3600000,
    "pollIntervalMs": 5000,
}
FORM = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Please enter your name.",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
}


def test_a_2026_task_handle_and_each_detailed_status_parse() -> None:
    handle = tasks.TaskHandle.model_validate({**BASE, "resultType": "task", "status": "working"}, by_name=False)
    assert (handle.task_id, handle.status, handle.poll_interval_ms, handle.ttl_ms) == (
        BASE["taskId"],
        "working",
        5000,
        3600000,
    )
    asking = tasks.DetailedTask.model_validate({**BASE, "status": "input_required", "inputRequests": {"name": FORM}})
    assert asking.input_requests == {"name": FORM}
    done = tasks.DetailedTask.model_validate(
        {**BASE, "status": "completed", "result": {"content": [{"type": "text", "text": "Hello, Luca!"}]}}
    )
    assert done.result == {"content": [{"type": "text", "text": "Hello, Luca!"}]}
    failed = tasks.DetailedTask.model_validate(
        {**BASE, "status": "failed", "error": {"code": -32603, "message": "API rate limit exceeded"}}
    )
    assert failed.error == {"code": -32603, "message": "API rate limit exceeded"}
    [claim] = tasks.TasksExtension().claims()  # the SDK checks a claim's shape when it is made
    assert (claim.result_type, claim.model, claim.method) == ("task", tasks.TaskHandle, "tools/call")


def test_tasks_requests_name_their_task_for_the_mcp_name_header() -> None:
    params = tasks.TaskParams(task_id="t-1")
    for request in (tasks.GetTaskRequest(params=params), tasks.CancelTaskRequest(params=params)):
        assert type(request).name_param == "taskId"
        assert request.model_dump(by_alias=True)["params"]["taskId"] == "t-1"
    update = tasks.UpdateTaskRequest(params=tasks.UpdateTaskParams(task_id="t-1", input_responses={"name": {}}))
    assert update.model_dump(by_alias=True, exclude_none=True)["params"] == {
        "taskId": "t-1",
        "inputResponses": {"name": {}},
    }


def test_who_offers_tasks_and_which_tools_run_as_one() -> None:
    legacy = ServerCapabilities(
        tasks=ServerTasksCapability(
            requests=ServerTasksRequestsCapability(tools=TasksToolsCapability(call=TasksCallCapability()))
        )
    )
    assert tasks_2025.server_offers_tasks(legacy) and not tasks.server_offers_tasks(legacy)
    modern = ServerCapabilities(extensions={tasks.EXTENSION_ID: {}})
    assert tasks.server_offers_tasks(modern) and not tasks_2025.server_offers_tasks(modern)
    assert not tasks_2025.server_offers_tasks(ServerCapabilities(tasks=ServerTasksCapability()))  # no tools/call
    schema = {"type": "object"}
    assert tasks_2025.task_support(Tool(name="a", input_schema=schema)) == "forbidden"
    required = Tool(name="b", input_schema=schema, execution=ToolExecution(task_support="required"))
    assert tasks_2025.task_support(required) == "required"


@pytest.mark.parametrize(
    ("wire", "status"),
    [
        ("working", TaskStatus.WORKING),
        ("input_required", TaskStatus.INPUT_REQUIRED),
        ("cancelled", TaskStatus.CANCELLED),
        ("unknown", TaskStatus.WORKING),
        ("waiting", TaskStatus.WORKING),
        ("", TaskStatus.WORKING),
    ],
)
def test_a_status_a_server_reports_is_one_of_its_five(wire: str, status: TaskStatus) -> None:
    assert server_status(wire) is status  # MCP Desk's own ends are never taken from a server


def test_the_poll_interval_stays_within_bounds() -> None:
    assert poll_seconds(None) == 1.0 and poll_seconds(0) == 1.0
    assert poll_seconds(5000) == 5.0
    assert poll_seconds(1) == 0.05  # a server cannot make us spin
    assert poll_seconds(3_600_000) == 30.0  # nor stop us asking
