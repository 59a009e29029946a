"""An MCP server whose every listing is split into pages, to test cursor following.

`MCPServer` returns whole lists, so this is built on the low-level `Server`: resources,
resource templates, prompts and tools are each `pages * per_page` generated items served
`per_page` at a time, with `next_cursor` set on every page but the last. Cursors are
opaque to the client (`page:<n>`); an unknown cursor is an INVALID_PARAMS error, as the
spec asks.

    python tests/servers/paginated_server.py --pages 3 --per-page 4 [--tools N] [--slow-relist S] [--http PORT]

`--templates`, `--prompts` and `--tools` give those listings their own size (the benchmarks'
large catalogs: 10,000 resources but a few hundred tools).

With `slow_relist` (seconds), it also offers an `announce_change` tool: it announces that the
resource list changed (handshake-era sessions) and from then on serves each listing page that
much later, so a re-listing is still in flight when a test stops the server.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, Final, TypeVar

import anyio
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    Prompt,
    PromptMessage,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextContent,
    TextResourceContents,
    Tool,
)

SERVER_NAME: Final = "paginated"
ANNOUNCE_TOOL: Final = "announce_change"
_CURSOR_PREFIX: Final = "page:"

_T = TypeVar("_T")


def resource_uri(index: int) -> str:
    return f"paged://resource/{index:04d}"


def _page(items: Sequence[_T], params: PaginatedRequestParams | None, per_page: int) -> tuple[list[_T], str | None]:
    """The slice for the request's cursor and the cursor of the next page, if any."""
    cursor = params.cursor if params is not None else None
    page = 0
    if cursor is not None:
        number = cursor.removeprefix(_CURSOR_PREFIX)
        if not cursor.startswith(_CURSOR_PREFIX) or not number.isdigit():
            raise MCPError(code=INVALID_PARAMS, message=f"Invalid cursor: {cursor!r}")
        page = int(number)
    start = page * per_page
    if start >= len(items) and not (page == 0 and not items):
        raise MCPError(code=INVALID_PARAMS, message=f"Cursor past the end: {cursor!r}")
    end = start + per_page
    next_cursor = f"{_CURSOR_PREFIX}{page + 1}" if end < len(items) else None
    return list(items[start:end]), next_cursor


def build_paginated_server(
    pages: int,
    per_page: int,
    *,
    templates: int | None = None,
    prompts: int | None = None,
    tools: int | None = None,
    slow_relist: float | None = None,
) -> Server[Any]:
    """A server with `pages` pages of `per_page` resources; the other listings are as long, or as given."""
    if pages < 1 or per_page < 1:
        raise ValueError("pages and per_page must be at least 1")
    count = pages * per_page
    resources = [Resource(uri=resource_uri(i), name=f"resource-{i:04d}", mime_type="text/plain") for i in range(count)]
    templates_ = [
        ResourceTemplate(uri_template=f"paged://template/{i:04d}/{{id}}", name=f"template-{i:04d}")
        for i in range(count if templates is None else templates)
    ]
    prompts_ = [
        Prompt(name=f"prompt-{i:04d}", description=f"Generated prompt {i}")
        for i in range(count if prompts is None else prompts)
    ]
    tools_ = [
        Tool(name=f"tool_{i:04d}", description=f"Generated tool {i}", input_schema={"type": "object"})
        for i in range(count if tools is None else tools)
    ]
    page_delay = [0.0]
    if slow_relist is not None:
        tools_.append(
            Tool(name=ANNOUNCE_TOOL, description="Announce a change; list slowly", input_schema={"type": "object"})
        )
    known_uris = {resource.uri for resource in resources}
    known_prompts = {prompt.name for prompt in prompts_}
    known_tools = {tool.name for tool in tools_}

    async def list_resources(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        if page_delay[0]:
            print(f"serving a resources page slowly ({page_delay[0]} s)", file=sys.stderr, flush=True)
            await anyio.sleep(page_delay[0])
        page, next_cursor = _page(resources, params, per_page)
        return ListResourcesResult(resources=page, next_cursor=next_cursor)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        page, next_cursor = _page(templates_, params, per_page)
        return ListResourceTemplatesResult(resource_templates=page, next_cursor=next_cursor)

    async def list_prompts(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListPromptsResult:
        page, next_cursor = _page(prompts_, params, per_page)
        return ListPromptsResult(prompts=page, next_cursor=next_cursor)

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        page, next_cursor = _page(tools_, params, per_page)
        return ListToolsResult(tools=page, next_cursor=next_cursor)

    async def read_resource(ctx: ServerRequestContext[Any], params: ReadResourceRequestParams) -> ReadResourceResult:
        if params.uri not in known_uris:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown resource: {params.uri}")
        text = f"contents of {params.uri}"
        return ReadResourceResult(contents=[TextResourceContents(uri=params.uri, text=text, mime_type="text/plain")])

    async def get_prompt(ctx: ServerRequestContext[Any], params: GetPromptRequestParams) -> GetPromptResult:
        if params.name not in known_prompts:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {params.name}")
        message = PromptMessage(role="user", content=TextContent(text=f"This is {params.name}."))
        return GetPromptResult(messages=[message])

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        if params.name == ANNOUNCE_TOOL and slow_relist is not None:
            page_delay[0] = slow_relist
            await ctx.session.send_resource_list_changed()
            return CallToolResult(content=[TextContent(text="announced")])
        if params.name not in known_tools:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        return CallToolResult(content=[TextContent(text=f"{params.name} called")])

    return Server(
        SERVER_NAME,
        version="1.0.0",
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_paginated(
    pages: int,
    per_page: int,
    *,
    slow_relist: float | None = None,
    http_port: int | None = None,
    sse_port: int | None = None,
    sizes: dict[str, int | None] | None = None,
) -> None:
    """Serve over stdio, or streamable HTTP on 127.0.0.1 (SSE is not offered here)."""
    if sse_port is not None:
        raise SystemExit("the paginated server does not serve SSE; use stdio or --http")
    server = build_paginated_server(pages, per_page, **(sizes or {}), slow_relist=slow_relist)
    if http_port is None:
        anyio.run(_serve_stdio, server)
        return
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=http_port, log_level="warning")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=3, metavar="N")
    parser.add_argument("--per-page", type=int, default=5, metavar="M")
    for kind in ("templates", "prompts", "tools"):
        parser.add_argument(f"--{kind}", type=int, metavar="N", help=f"{kind} listed (default: as many as resources)")
    parser.add_argument("--slow-relist", type=float, metavar="S", help="offer announce_change; then S s per page")
    parser.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on 127.0.0.1:PORT/mcp")
    args = parser.parse_args(argv)
    sizes = {"templates": args.templates, "prompts": args.prompts, "tools": args.tools}
    run_paginated(args.pages, args.per_page, slow_relist=args.slow_relist, http_port=args.http, sizes=sizes)


if __name__ == "__main__":
    main()
