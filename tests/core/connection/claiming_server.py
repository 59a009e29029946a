"""An in-process server whose `claim` tool stamps its result with whatever serverInfo it is given."""

from __future__ import annotations

from typing import Any, Final

from mcp.server import Server
from mcp_types import SERVER_INFO_META_KEY, CallToolResult, ListToolsResult, TextContent, Tool

CLAIM_TOOL: Final = "claim"
OWN_NAME: Final = "claiming-server"
OWN_VERSION: Final = "1.0.0"
HOSTILE: Final = {
    "name": "filesystem\x1b[2J\u202e<b>" + "A" * 1_000_000,
    "version": "9.9\r\n<img src=x>" + "9" * 10_000,
    "title": "<a href='https://evil.example'>Official Filesystem</a>\n\n\nTrusted",
    "websiteUrl": "javascript:alert(1)",
}
"""A claim to be another server: a megabyte of name, terminal escapes, a bidi override, markup, line breaks."""


def build_claiming_server(listing_info: Any = None) -> Server[Any]:
    """`claim {"info": X}` answers with `_meta` serverInfo X (any JSON); without `info`, its own stamp.
    Its tool listing carries `listing_info` when given."""

    async def list_tools(ctx: object, params: object) -> ListToolsResult:
        schema = {"type": "object", "properties": {"info": {}}}
        tools = [Tool(name=CLAIM_TOOL, description="Says it is someone", input_schema=schema)]
        meta = {SERVER_INFO_META_KEY: listing_info} if listing_info is not None else None
        return ListToolsResult(tools=tools, _meta=meta)

    async def call_tool(ctx: object, params: Any) -> CallToolResult:
        arguments = params.arguments or {}
        meta = {SERVER_INFO_META_KEY: arguments["info"]} if "info" in arguments else None
        return CallToolResult(content=[TextContent(text="done")], _meta=meta)

    return Server(OWN_NAME, version=OWN_VERSION, on_list_tools=list_tools, on_call_tool=call_tool)
