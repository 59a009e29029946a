"""A server whose tools' schemas are written in JSON Schema draft-07, as many servers still write them.

`draft07_01` … `draft07_30` each use draft-07's `$schema`, `definitions` with `$ref`s to them, tuple
`items` with `additionalItems`, and `dependencies`. Two schemas cannot be used: `remote_ref` refers
to a schema on the network (which a client must not fetch), and `not_an_object` takes a string.
The SDK's server would not list the latter, so its schema is rewritten on its way out over stdio.
Every tool answers with its arguments.

    python tests/servers/draft07_server.py
"""

from __future__ import annotations

import json
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
from mcp_types.jsonrpc import JSONRPCResponse

SERVER_NAME: Final = "drafts"
DRAFT_07: Final = "http://json-schema.org/draft-07/schema#"
TOOL_COUNT: Final = 30
UNUSABLE_TOOL: Final = "remote_ref"
STRING_TOOL: Final = "not_an_object"
STRING_SCHEMA: Final[dict[str, Any]] = {"type": "string", "maxLength": 10}
REMOTE_SCHEMA: Final = "https://schemas.example.com/thing.json"


def tool_name(index: int) -> str:
    return f"draft07_{index:02d}"


def draft07_schema(index: int) -> dict[str, Any]:
    """A draft-07 object schema; every third tool's dependency is a schema rather than a list of names."""
    dependency: Any = {"properties": {"unit": {"enum": ["mm", "in"]}}} if index % 3 == 0 else ["unit"]
    return {
        "$schema": DRAFT_07,
        "type": "object",
        "definitions": {
            "point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False},
            "label": {"type": "string", "maxLength": 40},
            "shape": {
                "type": "object",
                "properties": {"corners": {"type": "array", "items": {"$ref": "#/definitions/point"}}},
            },
        },
        "properties": {
            "at": {"$ref": "#/definitions/point"},
            "label": {"$ref": "#/definitions/label"},
            "shape": {"$ref": "#/definitions/shape"},
            "scale": {"type": "number"},
            "unit": {"type": "string"},
        },
        "dependencies": {"scale": dependency},
        "required": ["at"],
        "additionalProperties": False,
    }


def tools() -> list[Tool]:
    listed = [
        Tool(name=tool_name(i), description=f"Place shape number {i}.", input_schema=draft07_schema(i))
        for i in range(1, TOOL_COUNT + 1)
    ]
    remote = {"type": "object", "properties": {"thing": {"$ref": REMOTE_SCHEMA}}}
    listed.append(Tool(name=UNUSABLE_TOOL, description="Takes a thing defined elsewhere.", input_schema=remote))
    # Listed as an object schema here; `_string_schema` makes it what it says on the wire.
    listed.append(Tool(name=STRING_TOOL, description="Takes a bare string.", input_schema={"type": "object"}))
    return listed


def build_draft07_server() -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=tools())

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        text = f"{params.name} {json.dumps(params.arguments or {}, sort_keys=True)}"
        return CallToolResult(content=[TextContent(text=text)])

    return Server(SERVER_NAME, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _string_schema(source: ObjectReceiveStream[SessionMessage], sink: ObjectSendStream[SessionMessage]) -> None:
    """Pass the server's messages on; in a tool listing, `not_an_object` takes a string."""
    async with sink:
        async for item in source:
            message = item.message
            tools = message.result.get("tools") if isinstance(message, JSONRPCResponse) else None
            if isinstance(message, JSONRPCResponse) and isinstance(tools, list):
                tools = [{**t, "inputSchema": STRING_SCHEMA} if t.get("name") == STRING_TOOL else t for t in tools]
                item = SessionMessage(
                    JSONRPCResponse(jsonrpc="2.0", id=message.id, result={**message.result, "tools": tools})
                )
            await sink.send(item)


async def _serve_stdio(server: Server[Any]) -> None:
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](16)
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as group:
        group.start_soon(_string_schema, from_server, write_stream)
        await server.run(read_stream, to_client, server.create_initialization_options())
        group.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(_serve_stdio, build_draft07_server())
