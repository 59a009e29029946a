"""A deterministic MCP server exercising what MCP Desk must handle, good and bad.

Importable (`build_fixture_server()` for in-process tests) and runnable as a script over
stdio, streamable HTTP or SSE, with flags that simulate misbehaving servers:

    python tests/servers/fixture_server.py [--garbage] [--hang-on-start]
        [--bad-bytes-on-start] [--unsolicited-response ID] [--broken-pdf]
        [--exit-immediately N] [--pages N --per-page M [--slow-relist S]] [--secret-echo]
        [--http PORT | --sse PORT]
"""

from __future__ import annotations

import argparse
import base64
import functools
import json
import os
import struct
import sys
import threading
import time
import warnings
import zlib
from pathlib import Path
from typing import Any, Final

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import (
    BlobResourceContents,
    CallToolResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    EmbeddedResource,
    ImageContent,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    TextContent,
    ToolAnnotations,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

if __package__ in (None, ""):
    # Run as a script: make `tests.servers` importable for the paginated mode.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SERVER_NAME: Final = "fixture"
STARTUP_LINE: Final = "fixture server starting"
HANG_LINE: Final = "fixture server: hanging on start; it reads and answers nothing from here on"
LONG_END_MARKER: Final = "END-OF-LONG-RESOURCE"
LONG_TARGET_CHARS: Final = 60_000
ITEM_IDS: Final = ("apple", "apricot", "banana")
REVIEW_LANGUAGES: Final = ("go", "javascript", "python", "rust", "typescript")
HUGE_PNG_SIDE: Final = 30_000
RESOURCE_URIS: Final = (
    "fixture://long",
    "fixture://doc.pdf",
    "fixture://image.png",
    "fixture://data.json",
    "fixture://corrupt.pdf",
    "fixture://huge.png",
)
ITEM_TEMPLATE: Final = "fixture://items/{item_id}"
SERVER_READ_RESOURCE_REPLY: Final = "SERVER TOOL read_resource called"
CRASH_EXIT_CODE: Final = 3
NOT_UTF8: Final = b"\xff\xfe\x80"
DATA_JSON: Final[dict[str, Any]] = {
    "name": "fixture data",
    "items": list(ITEM_IDS),
    "nested": {"ok": True, "count": 3},
}


@functools.cache
def long_text() -> str:
    """About 60,000 chars of numbered lines; the unique marker is the last line."""
    lines: list[str] = []
    size = 0
    number = 1
    while size < LONG_TARGET_CHARS - len(LONG_END_MARKER):
        line = f"line {number:05d}: the quick brown fox jumps over the lazy dog"
        lines.append(line)
        size += len(line) + 1
        number += 1
    lines.append(LONG_END_MARKER)
    return "\n".join(lines)


@functools.cache
def pdf_bytes() -> bytes:
    """Three pages: "alpha" is on page 1 and "omega" on page 3, for search tests."""
    import pymupdf  # here, not at the top: most starts of this server never draw a document

    doc = pymupdf.open()
    for number, words in enumerate(("alpha first page", "beta middle page", "omega last page"), start=1):
        page = doc.new_page()
        page.insert_text((72, 72), f"Fixture document, page {number}")
        page.insert_text((72, 100), words)
    data: bytes = doc.tobytes()
    doc.close()
    return data


@functools.cache
def png_bytes() -> bytes:
    """A 16x12 RGB image: red left half, blue right half."""
    import pymupdf  # here, not at the top: most starts of this server never draw a document

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 16, 12), False)
    pix.set_rect(pymupdf.IRect(0, 0, 8, 12), (220, 20, 20))
    pix.set_rect(pymupdf.IRect(8, 0, 16, 12), (20, 20, 220))
    data: bytes = pix.tobytes("png")
    return data


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


@functools.cache
def huge_png_bytes() -> bytes:
    """A valid-looking PNG whose header claims 30000x30000 RGB but carries one row of pixels.

    Decoding it naively allocates ~2.7 GB; viewers must check the header size first.
    """
    ihdr = struct.pack(">IIBBBBB", HUGE_PNG_SIDE, HUGE_PNG_SIDE, 8, 2, 0, 0, 0)
    first_row = b"\x00" + b"\x00" * (HUGE_PNG_SIDE * 3)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", zlib.compress(first_row, 9))
        + _png_chunk(b"IEND", b"")
    )


CORRUPT_PDF: Final = b"This is not a PDF. It only claims to be application/pdf.\n" * 4
BROKEN_PDF_TEXT: Final = "readable despite the damage"


@functools.cache
def broken_pdf_bytes() -> bytes:
    """A PDF whose page content stream has syntax errors: it opens, and MuPDF complains while reading it."""
    import pymupdf  # here, not at the top: most starts of this server never draw a document

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "placeholder")
    stream = f"BT /F9 12 Tf 72 72 Td ({BROKEN_PDF_TEXT}) Tj ET q /Im9 Do Q ] ] }} BI ID xx".encode()
    doc.update_stream(page.get_contents()[0], stream)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _register_resources(server: MCPServer) -> None:
    @server.resource("fixture://long", name="long", mime_type="text/plain", description="~60k chars of text")
    def long_resource() -> str:
        return long_text()

    @server.resource("fixture://doc.pdf", name="doc.pdf", mime_type="application/pdf", description="3 pages")
    def doc_pdf() -> bytes:
        return pdf_bytes()

    @server.resource("fixture://image.png", name="image.png", mime_type="image/png", description="16x12 PNG")
    def image_png() -> bytes:
        return png_bytes()

    @server.resource("fixture://data.json", name="data.json", mime_type="application/json")
    def data_json() -> str:
        return json.dumps(DATA_JSON, indent=2)

    @server.resource("fixture://corrupt.pdf", name="corrupt.pdf", mime_type="application/pdf", description="not a PDF")
    def corrupt_pdf() -> bytes:
        return CORRUPT_PDF

    @server.resource(
        "fixture://huge.png", name="huge.png", mime_type="image/png", description="header claims 30000x30000"
    )
    def huge_png() -> bytes:
        return huge_png_bytes()

    @server.resource(ITEM_TEMPLATE, name="item", mime_type="text/plain", description="One fruit by id")
    def item(item_id: str) -> str:
        if item_id not in ITEM_IDS:
            raise ResourceError(f"no item {item_id!r}; known items: {', '.join(ITEM_IDS)}")
        return f"Item {item_id}: a fruit from the fixture catalog."


def _register_prompts(server: MCPServer) -> None:
    @server.prompt(description="Greet someone by name")
    def greet(name: str) -> str:
        return f"Please greet {name} warmly."

    @server.prompt(description="Review a piece of code")
    def review(code: str, language: str | None = None) -> str:
        lang = language or "text"
        return f"Please review this {lang} code:\n```{lang}\n{code}\n```"

    @server.completion()
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        if isinstance(ref, ResourceTemplateReference) and ref.uri == ITEM_TEMPLATE and argument.name == "item_id":
            choices: tuple[str, ...] = ITEM_IDS
        elif isinstance(ref, PromptReference) and ref.name == "review" and argument.name == "language":
            choices = REVIEW_LANGUAGES
        else:
            return None
        values = [choice for choice in choices if choice.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)


def _wire_fd() -> int:
    """The descriptor the SDK's stdio server writes messages to (it moves them off fd 1 so a
    stray print cannot corrupt the stream; these fault tools corrupt it on purpose)."""
    import mcp.server.stdio as sdk_stdio

    claim = sdk_stdio._claims.get(1)
    if claim is None or claim.private_fd is None:
        raise ToolError("not serving over stdio")
    return claim.private_fd


def _register_tools(server: MCPServer, *, allow_exit: bool) -> None:
    # Pure functions: they say so (the claims count only when the user trusts the server).
    pure = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(description="Echo the text back", annotations=pure)
    def echo(text: str) -> str:
        return text

    @server.tool(description="Add two integers", annotations=pure)
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Sleep for the given number of seconds, reporting progress")
    async def slow(seconds: float, ctx: Context) -> str:
        steps = 4
        for step in range(steps):
            await ctx.report_progress(step, steps)
            await anyio.sleep(seconds / steps)
        await ctx.report_progress(steps, steps)
        return f"slept {seconds} s"

    @server.tool(description="Kill the server process mid-call (exit code 3)")
    def crash() -> str:
        if not allow_exit:
            raise ToolError("crash is disabled for an in-process server")
        sys.stderr.write("fixture server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(CRASH_EXIT_CODE)

    @server.tool(description="Write bytes that are not UTF-8 as a line on the stdio stream")
    def bad_bytes() -> str:
        os.write(_wire_fd(), NOT_UTF8 + b"\n")
        return "wrote bytes that are not UTF-8"

    @server.tool(description="Send a resources/updated notification without its uri (the client cannot validate it)")
    def bad_notification() -> str:
        message = {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {}}
        os.write(_wire_fd(), json.dumps(message).encode() + b"\n")
        return "sent a notification without a uri"

    @server.tool(description="Close the stdio stream half a second after answering, and keep running")
    def close_stdout_soon() -> str:
        fd = _wire_fd()

        def close_later() -> None:
            time.sleep(0.5)
            os.close(fd)
            print("fixture server: closed stdout, still running", file=sys.stderr, flush=True)

        threading.Thread(target=close_later, daemon=True).start()
        return "closing stdout"

    @server.tool(name="read_resource", description="A server tool named like the client's synthetic tool")
    def read_resource_tool(uri: str) -> str:
        return SERVER_READ_RESOURCE_REPLY

    @server.tool(description="Mixed content: text, image, embedded PDF, resource link, structured")
    def rich() -> CallToolResult:
        return CallToolResult(
            content=[
                TextContent(text="Rich result: text, an image, an embedded PDF and a link."),
                ImageContent(data=_b64(png_bytes()), mime_type="image/png"),
                EmbeddedResource(
                    resource=BlobResourceContents(
                        uri="fixture://doc.pdf", blob=_b64(pdf_bytes()), mime_type="application/pdf"
                    )
                ),
                ResourceLink(uri="fixture://long", name="long", mime_type="text/plain"),
            ],
            structured_content={"items": list(ITEM_IDS), "count": len(ITEM_IDS)},
        )

    @server.tool(description="Always fails with an is_error result")
    def fail() -> CallToolResult:
        return CallToolResult(content=[TextContent(text="deliberate failure from fixture")], is_error=True)

    added: list[str] = []

    @server.tool(description="Add a resource and announce that the resource list changed")
    async def notify_change(ctx: Context) -> str:
        uri = f"fixture://added/{len(added) + 1}"
        added.append(uri)
        text = f"added resource number {len(added)}"
        server.add_resource(FunctionResource.from_function(fn=lambda: text, uri=uri, name=uri.rsplit("/", 1)[-1]))
        # 2026-07-28 delivers list changes on subscriptions/listen streams; earlier eras
        # send the classic notification on the connection.
        await ctx.notify_resources_changed()
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            await ctx.session.send_resource_list_changed()
        return uri

    @server.tool(description="Send a log notification to the client")
    async def log(message: str, ctx: Context) -> str:
        # Logging is deprecated at 2026-07-28 but still delivered to clients that opt in.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.info(message, logger_name="fixture")
        return f"logged: {message}"


def build_fixture_server(*, allow_exit: bool = False, broken_pdf: bool = False) -> MCPServer:
    """The fixture server; `allow_exit` lets `crash` really exit (never in-process)."""
    server = MCPServer(SERVER_NAME, version="1.0.0", instructions="A test fixture for MCP Desk.")
    _register_resources(server)
    if broken_pdf:

        @server.resource("fixture://broken.pdf", name="broken.pdf", mime_type="application/pdf")
        def broken_pdf_resource() -> bytes:
            return broken_pdf_bytes()

    _register_prompts(server)
    _register_tools(server, allow_exit=allow_exit)
    return server


Received = list[tuple[str, dict[str, Any]]]
"""Requests a server received: method and raw params, in the order they arrived."""


def record_requests(server: MCPServer) -> Received:
    """Every request `server` (this one or any other `MCPServer`) receives from now on.

    A test waits for the request it needs to have reached the server instead of waiting a while.
    Each is recorded as it arrives and its handler starts in the same step, so a
    `subscriptions/listen` is already subscribed when another task sees it recorded.
    """
    received: Received = []

    async def record(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.request_id is not None:
            received.append((ctx.method, dict(ctx.params or {})))
        return await call_next(ctx)

    server.middleware.append(record)
    return received


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--garbage", action="store_true", help="print non-JSON lines on stdout first")
    parser.add_argument("--hang-on-start", action="store_true", help="never answer initialize")
    parser.add_argument("--bad-bytes-on-start", action="store_true", help="print a line that is not UTF-8 first")
    parser.add_argument("--broken-pdf", action="store_true", help="also serve fixture://broken.pdf (bad content)")
    parser.add_argument(
        "--unsolicited-response", type=int, metavar="ID", help="print a response to request ID before any request"
    )

    parser.add_argument("--exit-immediately", type=int, metavar="N", help="exit at once with code N")
    parser.add_argument("--pages", type=int, metavar="N", help="serve the paginated server instead")
    parser.add_argument("--per-page", type=int, default=5, metavar="M", help="items per page (default 5)")
    parser.add_argument("--slow-relist", type=float, metavar="S", help="paginated: announce_change, then S s a page")
    parser.add_argument("--secret-echo", action="store_true", help="print FIXTURE_TOKEN to stderr")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on 127.0.0.1:PORT/mcp")
    transport.add_argument("--sse", type=int, metavar="PORT", help="SSE on 127.0.0.1:PORT/sse")
    return parser.parse_args(argv)


PROCESS_ONLY: Final = ("garbage", "hang_on_start", "bad_bytes_on_start", "unsolicited_response", "exit_immediately")
"""Flags that make the server misbehave on its own output stream or exit: only a process can do that."""


def in_process(argv: list[str]) -> MCPServer | Server[Any] | None:
    """The server `argv` starts, built in the caller's process; None when `argv` asks for what only a
    process has (a stream to corrupt, an exit code, its environment, a port of its own)."""
    args = _parse_args(argv)
    if any(getattr(args, flag) not in (None, False) for flag in PROCESS_ONLY):
        return None
    if args.secret_echo or args.http is not None or args.sse is not None:
        return None
    if args.pages is not None:
        from tests.servers.paginated_server import build_paginated_server

        return build_paginated_server(args.pages, args.per_page, slow_relist=args.slow_relist)
    return build_fixture_server(broken_pdf=args.broken_pdf)


def main(argv: list[str] | None = None) -> None:
    args = _parse_args(argv)
    print(STARTUP_LINE, file=sys.stderr, flush=True)
    if args.secret_echo:
        print(f"FIXTURE_TOKEN={os.environ.get('FIXTURE_TOKEN', '')}", file=sys.stderr, flush=True)
    if args.exit_immediately is not None:
        print(
            f"fixture server: exiting immediately with code {args.exit_immediately}",
            file=sys.stderr,
            flush=True,
        )
        sys.exit(args.exit_immediately)
    if args.garbage:
        for line in ("this is not json", "{broken json", "Traceback? no, just noise"):
            print(line, flush=True)
    if args.bad_bytes_on_start:
        os.write(1, NOT_UTF8 + b"\n")
    if args.unsolicited_response is not None:
        os.write(1, json.dumps({"jsonrpc": "2.0", "id": args.unsolicited_response, "result": {}}).encode() + b"\n")
    if args.hang_on_start:
        print(HANG_LINE, file=sys.stderr, flush=True)
        while True:
            time.sleep(3600)

    if args.pages is not None:
        from tests.servers.paginated_server import run_paginated

        run_paginated(args.pages, args.per_page, slow_relist=args.slow_relist, http_port=args.http, sse_port=args.sse)
        return

    server = build_fixture_server(allow_exit=True, broken_pdf=args.broken_pdf)
    if args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    elif args.sse is not None:
        server.run("sse", host="127.0.0.1", port=args.sse)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
