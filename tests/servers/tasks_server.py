"""An MCP server speaking the Tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28).

Built on the SDK's server `Extension`: `intercept_tool_call` turns a call of one of its task tools
into a task (only for a client that declared the extension on that request), and `MethodBinding`s
serve `tasks/get`, `tasks/update` and `tasks/cancel`. Tasks move one step per poll, so tests need
no clock:

- `research(topic, ask)`: two working stages; with `ask`, a form asks which reading of the topic
  is meant (`input_required` until `tasks/update` answers it); then the report.
- `hold(label)`: works until the test calls `release(label)` (in-process only).
- `forever()`: works until cancelled.
- `nag()`: needs input on every poll, each time a new question (a new key), until cancelled.
- `go_quiet()`: its `tasks/get` is never answered.
- `fail()`: fails with a JSON-RPC error.

Over HTTP every `tasks/*` request must name its task in the `Mcp-Name` header, or it is refused.
Importable (`build_tasks_server()`) or run over stdio or streamable HTTP:

    python tests/servers/tasks_server.py [--http PORT]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolRequestParams, RequestParams

EXTENSION_ID: Final = "io.modelcontextprotocol/tasks"
SERVER_NAME: Final = "tasks"
POLL_MS: Final = 20
TTL_MS: Final = 600_000
CLARIFY: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "reading": {
            "type": "string",
            "title": "Which reading?",
            "oneOf": [{"const": "snake", "title": "The snake"}, {"const": "language", "title": "The language"}],
        }
    },
    "required": ["reading"],
}
TASK_TOOLS: Final = frozenset({"research", "hold", "forever", "go_quiet", "fail", "nag"})
MCP_NAME: Final = "mcp-name"


class TaskIdParams(RequestParams):
    task_id: str


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any]


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


@dataclass
class FixtureTask:
    tool: str
    arguments: dict[str, Any]
    task_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    polls: int = 0
    status: str = "working"
    message: str = "Starting"
    answer: dict[str, Any] | None = None
    continued: bool = False
    answers: list[dict[str, Any]] = field(default_factory=list)
    """Every answer `nag` was sent."""
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    created: str = field(default_factory=_now)

    def wire(self) -> dict[str, Any]:
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "statusMessage": self.message,
            "createdAt": self.created,
            "lastUpdatedAt": _now(),
            "ttlMs": TTL_MS,
            "pollIntervalMs": POLL_MS,
        }
        if self.status == "input_required" and self.tool == "nag":
            form = {"mode": "form", "message": f"Question {self.polls}", "requestedSchema": CLARIFY}
            task["inputRequests"] = {f"nag-{self.polls}": {"method": "elicitation/create", "params": form}}
        elif self.status == "input_required":
            message = f"Which {self.arguments.get('topic', 'topic')} do you mean?"
            form = {"mode": "form", "message": message, "requestedSchema": CLARIFY}
            task["inputRequests"] = {"clarify": {"method": "elicitation/create", "params": form}}
        if self.result is not None:
            task["result"] = self.result
        if self.error is not None:
            task["error"] = self.error
        return task


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


class TasksExtension(Extension):
    """The server side of the extension, with hooks for tests (`release`, `cancelled`, `names`)."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self.tasks: dict[str, FixtureTask] = {}
        self.released: set[str] = set()
        self.cancelled: list[str] = []
        self.names: list[str | None] = []
        """The `Mcp-Name` header of each `tasks/*` request that had headers (HTTP)."""

    def release(self, label: str) -> None:
        self.released.add(label)

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        capabilities = ctx.session.client_capabilities
        declared = capabilities.extensions if capabilities is not None else None
        if params.name not in TASK_TOOLS or not declared or EXTENSION_ID not in declared:
            return await call_next(ctx)
        task = FixtureTask(params.name, dict(params.arguments or {}))
        self.tasks[task.task_id] = task
        return {"resultType": "task", **task.wire()}

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskIdParams, self._get),
            MethodBinding("tasks/update", UpdateParams, self._update),
            MethodBinding("tasks/cancel", TaskIdParams, self._cancel),
        ]

    def _find(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> FixtureTask:
        headers = getattr(ctx.request, "headers", None)
        if headers is not None:
            name = headers.get(MCP_NAME)
            self.names.append(name)
            if name != task_id:
                raise MCPError(code=INVALID_PARAMS, message="the Mcp-Name header must name the task")
        task = self.tasks.get(task_id)
        if task is None:
            raise MCPError(code=INVALID_PARAMS, message="Failed to retrieve task: Task not found")
        return task

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        if task.tool == "go_quiet":
            await asyncio.Event().wait()  # never answers
        if task.status == "working" or (task.tool == "nag" and task.status == "input_required"):
            task.polls += 1
            _advance(task, self.released)
        return {"resultType": "complete", **task.wire()}

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        if task.tool == "nag":
            task.answers += params.input_responses.values()
            return {"resultType": "complete"}
        answer = params.input_responses.get("clarify")
        if task.status == "input_required" and isinstance(answer, dict):
            task.answer = answer
            task.status, task.message = "working", "Answer received"
        return {"resultType": "complete"}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        if task.status in ("working", "input_required"):
            task.status, task.message = "cancelled", "Cancelled at the client's request"
            self.cancelled.append(task.task_id)
        return {"resultType": "complete"}


def _advance(task: FixtureTask, released: set[str]) -> None:
    """One step per poll of a working task."""
    if task.tool == "research":
        if task.answer is None and task.polls < 3:
            task.message = [f"Gathering sources on {task.arguments.get('topic', '')}", "Reading them"][task.polls - 1]
        elif task.answer is None and task.arguments.get("ask"):
            task.status, task.message = "input_required", "Which reading of the topic is meant?"
        elif task.answer is not None and not task.continued:
            task.continued, task.message = True, "Continuing with your answer"
        else:
            reading = (task.answer or {}).get("content", {}).get("reading") if task.answer else None
            action = (task.answer or {}).get("action", "none")
            topic = task.arguments.get("topic", "")
            task.status, task.message = "completed", "Report written"
            task.result = _text(f"Report on {topic}: reading={reading or 'default'} (answer: {action})")
    elif task.tool == "hold":
        label = str(task.arguments.get("label", ""))
        task.message = f"Holding {label}"
        if label in released:
            task.status, task.message, task.result = "completed", "Released", _text(f"released {label}")
    elif task.tool == "nag":
        task.status, task.message = "input_required", f"Asking question {task.polls}"
    elif task.tool == "fail":
        task.status, task.message = "failed", "The upstream API refused"
        task.error = {"code": -32603, "message": "the upstream API refused"}
    else:
        task.message = f"Still going ({task.polls})"


def build_tasks_server() -> tuple[MCPServer, TasksExtension]:
    extension = TasksExtension()
    server = MCPServer(SERVER_NAME, extensions=[extension])

    @server.tool(description="Research a topic (a task; may ask which reading is meant)", structured_output=False)
    def research(topic: str, ask: bool = False) -> str:
        return f"Report on {topic} (no task)"

    @server.tool(description="Hold until released (a task)", structured_output=False)
    def hold(label: str) -> str:
        return f"held {label} (no task)"

    @server.tool(description="Work until cancelled (a task)", structured_output=False)
    def forever() -> str:
        return "done (no task)"

    @server.tool(description="A task that stops answering", structured_output=False)
    def go_quiet() -> str:
        return "quiet (no task)"

    @server.tool(description="A task that asks a new question on every poll", structured_output=False)
    def nag() -> str:
        return "no questions (no task)"

    @server.tool(description="A task that fails", structured_output=False)
    def fail() -> str:
        return "failed (no task)"

    return server, extension


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on 127.0.0.1:PORT/mcp")
    args = parser.parse_args()
    server, _extension = build_tasks_server()
    if args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
