"""A server that leaves `resultType` out of a tool's result, on any protocol it negotiates.

The 2026-07-28 specification tells a client to read a result without `resultType` as
`"complete"`, and servers written before the field existed send exactly that. The SDK's
server always fills the field in, so this one sits between its server and stdio: the
response to a `tools/call` of `untyped_answer` loses its `resultType` on the way out, as it
would from such a server. `typed_answer` is left alone, for comparison. `remote_output` declares
an output schema that refers to a schema on the network (which a client must not fetch) and answers
with structured content.

    python tests/servers/untyped_result_server.py
"""

from __future__ import annotations

from typing import Any, Final

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)
from mcp_types.jsonrpc import JSONRPCRequest, JSONRPCResponse, RequestId

SERVER_NAME: Final = "untyped"
UNTYPED_TOOL: Final = "untyped_answer"
TYPED_TOOL: Final = "typed_answer"
REMOTE_OUTPUT_TOOL: Final = "remote_output"
REMOTE_OUTPUT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"thing": {"$ref": "https://schemas.example.com/thing.json"}},
}
_SCHEMA: Final[dict[str, Any]] = {"type": "object", "properties": {"text": {"type": "string"}}}


def build_untyped_server() -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(
            tools=[
                Tool(name=UNTYPED_TOOL, description="Answers without a resultType.", input_schema=_SCHEMA),
                Tool(name=TYPED_TOOL, description="Answers as the SDK does.", input_schema=_SCHEMA),
                Tool(
                    name=REMOTE_OUTPUT_TOOL,
                    description="Answers with a thing defined elsewhere.",
                    input_schema=_SCHEMA,
                    output_schema=REMOTE_OUTPUT_SCHEMA,
                ),
            ]
        )

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        text = str((params.arguments or {}).get("text", ""))
        structured = {"thing": text} if params.name == REMOTE_OUTPUT_TOOL else None
        return CallToolResult(content=[TextContent(text=f"{params.name}: {text}")], structured_content=structured)

    return Server(SERVER_NAME, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _note_calls(
    source: ObjectReceiveStream[SessionMessage | Exception],
    sink: ObjectSendStream[SessionMessage | Exception],
    untyped: set[RequestId],
) -> None:
    """Pass the client's messages on, remembering which requests call the untyped tool."""
    async with sink:
        async for item in source:
            if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
                request = item.message
                if request.method == "tools/call" and (request.params or {}).get("name") == UNTYPED_TOOL:
                    untyped.add(request.id)
            await sink.send(item)


async def _strip_result_type(
    source: ObjectReceiveStream[SessionMessage],
    sink: ObjectSendStream[SessionMessage],
    untyped: set[RequestId],
) -> None:
    """Pass the server's messages on; the untyped tool's answers lose their `resultType`."""
    async with sink:
        async for item in source:
            message = item.message
            if isinstance(message, JSONRPCResponse) and message.id in untyped:
                untyped.discard(message.id)
                result = {key: value for key, value in message.result.items() if key != "resultType"}
                item = SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result))
            await sink.send(item)


async def serve_stdio(server: Server[Any]) -> None:
    untyped: set[RequestId] = set()
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](16)
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as group:
        group.start_soon(_note_calls, read_stream, to_server, untyped)
        group.start_soon(_strip_result_type, from_server, write_stream, untyped)
        await server.run(from_client, to_client, server.create_initialization_options())
        group.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(serve_stdio, build_untyped_server())
