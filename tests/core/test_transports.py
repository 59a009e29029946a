"""The test servers themselves: what they serve in-process, over stdio, HTTP and SSE.

Other tests build on these servers, so their contents are pinned here against real
connections, including the npm reference server (server-everything).
"""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import pymupdf
import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourcesListChanged
from mcp_types import (
    EmbeddedResource,
    ImageContent,
    LoggingMessageNotificationParams,
    PromptReference,
    ResourceLink,
    ResourceListChangedNotification,
    ResourceTemplateReference,
    TextContent,
)

from desktop_app.core.content import describe_for_model, from_mcp, image_dimensions
from tests.servers.everything import (
    everything_available,
    everything_stdio_params,
    free_port,
    run_everything_http,
    run_fixture_http,
)
from tests.servers.fixture_server import (
    CRASH_EXIT_CODE,
    DATA_JSON,
    HANG_LINE,
    ITEM_TEMPLATE,
    LONG_END_MARKER,
    RESOURCE_URIS,
    SERVER_READ_RESOURCE_REPLY,
    STARTUP_LINE,
    build_fixture_server,
)
from tests.servers.paginated_server import build_paginated_server, resource_uri

FIXTURE_SCRIPT = Path(__file__).resolve().parents[1] / "servers" / "fixture_server.py"
PAGINATED_SCRIPT = FIXTURE_SCRIPT.with_name("paginated_server.py")
TOOL_NAMES = {
    "echo",
    "add",
    "slow",
    "crash",
    "bad_bytes",
    "bad_notification",
    "close_stdout_soon",
    "read_resource",
    "rich",
    "fail",
    "notify_change",
    "log",
}

needs_everything = pytest.mark.skipif(
    not everything_available(), reason="node or tests/npm server-everything missing (run `make test`)"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


_INITIALIZE: dict[str, object] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def _line(message: dict[str, object]) -> bytes:
    """One JSON-RPC message as the stdio transport frames it."""
    return (json.dumps(message) + "\n").encode()


def _contents(file: IO[bytes]) -> bytes:
    """All a process wrote to `file` so far."""
    file.seek(0)
    return file.read()


def fixture_params(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(FIXTURE_SCRIPT), *args], env=env)


@asynccontextmanager
async def stdio_with_stderr(
    params: StdioServerParameters, **client_kwargs: Any
) -> AsyncIterator[tuple[Client, IO[str]]]:
    """A connected client plus the server's captured stderr (stdio_client needs a real fd)."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), **client_kwargs) as client:
            yield client, errlog


def read_back(errlog: IO[str]) -> str:
    errlog.flush()
    errlog.seek(0)
    return errlog.read()


def leaf_exceptions(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaf_exceptions(inner)]
    return [exc]


async def read_one(client: Client, uri: str) -> Any:
    result = await client.read_resource(uri)
    assert len(result.contents) == 1
    return from_mcp(result.contents[0])


async def check_fixture_resources(client: Client) -> None:
    """The fixture's resources, read and classified as the app will."""
    listing = await client.list_resources()
    assert [r.uri for r in listing.resources] == list(RESOURCE_URIS)
    assert listing.next_cursor is None
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == [ITEM_TEMPLATE]

    long = await read_one(client, "fixture://long")
    assert long.mime_type == "text/plain"
    assert 59_000 < len(long.text) < 61_000
    assert long.text.splitlines()[-1] == LONG_END_MARKER
    assert long.text.count(LONG_END_MARKER) == 1

    pdf = await read_one(client, "fixture://doc.pdf")
    assert pdf.is_binary and pdf.mime_type == "application/pdf"
    with pymupdf.open(stream=pdf.data, filetype="pdf") as doc:
        assert doc.page_count == 3
        assert doc[0].search_for("alpha") and not doc[2].search_for("alpha")
        assert doc[2].search_for("omega") and not doc[0].search_for("omega")
    assert describe_for_model(pdf).startswith("[Binary resource: application/pdf, ")

    image = await read_one(client, "fixture://image.png")
    assert image.mime_type == "image/png" and image_dimensions(image.data) == (16, 12)
    pix = pymupdf.Pixmap(image.data)
    assert (pix.width, pix.height) == (16, 12)

    data = await read_one(client, "fixture://data.json")
    assert data.mime_type == "application/json" and json.loads(data.text) == DATA_JSON

    corrupt = await read_one(client, "fixture://corrupt.pdf")
    assert corrupt.mime_type == "application/pdf" and corrupt.note is not None
    with pytest.raises(pymupdf.FileDataError):
        pymupdf.open(stream=corrupt.data, filetype="pdf")

    huge = await read_one(client, "fixture://huge.png")
    assert huge.size < 10_000 and image_dimensions(huge.data) == (30_000, 30_000)

    item = await read_one(client, "fixture://items/apricot")
    assert item.text == "Item apricot: a fruit from the fixture catalog."
    with pytest.raises(MCPError, match="no item 'kiwi'"):
        await client.read_resource("fixture://items/kiwi")


async def check_fixture_tools(client: Client) -> None:
    tools = await client.list_tools()
    assert {tool.name for tool in tools.tools} == TOOL_NAMES
    echo = await client.call_tool("echo", {"text": "héllo"})
    assert isinstance(echo.content[0], TextContent) and echo.content[0].text == "héllo"
    added = await client.call_tool("add", {"a": 2, "b": 40})
    assert added.structured_content == {"result": 42} and not added.is_error
    shadow = await client.call_tool("read_resource", {"uri": "fixture://long"})
    assert isinstance(shadow.content[0], TextContent) and shadow.content[0].text == SERVER_READ_RESOURCE_REPLY
    failed = await client.call_tool("fail", {})
    assert failed.is_error
    assert isinstance(failed.content[0], TextContent) and "deliberate failure" in failed.content[0].text

    rich = await client.call_tool("rich", {})
    text, image, embedded, link = rich.content
    assert isinstance(text, TextContent)
    assert isinstance(image, ImageContent) and image.mime_type == "image/png"
    assert image_dimensions(base64.b64decode(image.data)) == (16, 12)
    assert isinstance(embedded, EmbeddedResource)
    embedded_pdf = from_mcp(embedded.resource)
    assert embedded_pdf.mime_type == "application/pdf" and embedded_pdf.data is not None
    assert embedded_pdf.data.startswith(b"%PDF-")
    assert isinstance(link, ResourceLink) and link.uri == "fixture://long"
    assert rich.structured_content == {"items": ["apple", "apricot", "banana"], "count": 3}


async def check_fixture_prompts(client: Client) -> None:
    prompts = await client.list_prompts()
    by_name = {prompt.name: prompt for prompt in prompts.prompts}
    assert set(by_name) == {"greet", "review"}
    review_args = {arg.name: arg.required for arg in by_name["review"].arguments or []}
    assert review_args == {"code": True, "language": False}
    greet = await client.get_prompt("greet", {"name": "Ada"})
    content = greet.messages[0].content
    assert isinstance(content, TextContent) and content.text == "Please greet Ada warmly."
    review = await client.get_prompt("review", {"code": "print(1)", "language": "python"})
    content = review.messages[0].content
    assert isinstance(content, TextContent) and "```python\nprint(1)\n```" in content.text

    items = await client.complete(ResourceTemplateReference(uri=ITEM_TEMPLATE), {"name": "item_id", "value": "ap"})
    assert items.completion.values == ["apple", "apricot"]
    languages = await client.complete(PromptReference(name="review"), {"name": "language", "value": "ty"})
    assert languages.completion.values == ["typescript"]


# --- fixture server, in-process ---------------------------------------------------------


@pytest.mark.anyio
async def test_fixture_in_process_resources_tools_prompts() -> None:
    async with Client(build_fixture_server()) as client:
        assert client.protocol_version == "2026-07-28"
        await check_fixture_resources(client)
        await check_fixture_tools(client)
        await check_fixture_prompts(client)
        crash = await client.call_tool("crash", {})
        assert crash.is_error  # in-process, crashing would kill the test runner


@pytest.mark.anyio
async def test_fixture_in_process_log_progress_and_listen() -> None:
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    seen_progress: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen_progress.append(progress)

    async with Client(build_fixture_server(), log_level="info", logging_callback=on_log) as client:
        result = await client.call_tool("log", {"message": "hello log"})
        assert not result.is_error
        assert [(entry.level, entry.logger, entry.data) for entry in logs] == [("info", "fixture", "hello log")]

        slow = await client.call_tool("slow", {"seconds": 0.05}, progress_callback=on_progress)
        assert not slow.is_error and seen_progress == [0, 1, 2, 3, 4]
        with pytest.raises(MCPError):
            await client.call_tool("slow", {"seconds": 5}, read_timeout_seconds=0.2)

        async with client.listen(resources_list_changed=True) as subscription:
            added = await client.call_tool("notify_change", {})
            assert isinstance(added.content[0], TextContent) and added.content[0].text == "fixture://added/1"
            with anyio.fail_after(60):
                event = await subscription.__anext__()
            assert isinstance(event, ResourcesListChanged)
        listing = await client.list_resources(cache_mode="refresh")
        assert listing.resources[-1].uri == "fixture://added/1"


# --- fixture server over stdio ----------------------------------------------------------


@pytest.mark.anyio
async def test_fixture_over_stdio_serves_everything_and_logs_startup_to_stderr() -> None:
    async with stdio_with_stderr(fixture_params()) as (client, errlog):
        await check_fixture_resources(client)
        await check_fixture_tools(client)
        await check_fixture_prompts(client)
        assert STARTUP_LINE in read_back(errlog)


@pytest.mark.anyio
async def test_fixture_over_stdio_legacy_mode_gets_list_changed_notification() -> None:
    changed = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceListChangedNotification):
            changed.set()

    async with Client(fixture_params(), mode="legacy", message_handler=on_message) as client:
        assert client.protocol_version == "2025-11-25"
        await client.call_tool("notify_change", {})
        with anyio.fail_after(60):
            await changed.wait()
        listing = await client.list_resources(cache_mode="refresh")
        assert "fixture://added/1" in [r.uri for r in listing.resources]


@pytest.mark.anyio
async def test_fixture_crash_closes_the_connection() -> None:
    async with stdio_with_stderr(fixture_params()) as (client, errlog):
        with pytest.raises(MCPError, match="Connection closed"):
            await client.call_tool("crash", {})
        with pytest.raises(MCPError, match="Connection closed"):
            await client.list_tools()
        assert "crashing on purpose" in read_back(errlog)


@pytest.mark.anyio
async def test_fixture_crash_exits_with_code_3() -> None:
    """Driven over raw JSON-RPC, since the Client does not expose the exit code."""
    messages: list[dict[str, object]] = [
        _INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "crash", "arguments": {}}},
    ]

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, anyio.fail_after(60):
        # stdin stays open until the exit, so the server cannot stop early on EOF.
        process = await anyio.open_process([sys.executable, str(FIXTURE_SCRIPT)], stdout=out, stderr=err)
        async with process:
            assert process.stdin is not None
            await process.stdin.send(_line(messages[0]) + _line(messages[1]))
            # Crash only once the handshake answer is out, so the output is deterministic.
            while b'"id":1' not in _contents(out):  # noqa: ASYNC110 - polling a file
                await anyio.sleep(0.02)
            await process.stdin.send(_line(messages[2]))
            returncode = await process.wait()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    assert returncode == CRASH_EXIT_CODE == 3
    assert b'"id":1' in stdout and b'"id":2' not in stdout
    assert b"crashing on purpose" in stderr


@pytest.mark.anyio
async def test_fixture_garbage_on_stdout_is_survivable() -> None:
    received: list[object] = []

    async def on_message(message: object) -> None:
        received.append(message)

    async with Client(fixture_params("--garbage"), message_handler=on_message) as client:
        tools = await client.list_tools()
        assert {tool.name for tool in tools.tools} == TOOL_NAMES
    # Each non-JSON line reaches the message handler as an exception, not a crash.
    assert sum(isinstance(m, Exception) for m in received) == 3


@pytest.mark.anyio
async def test_fixture_secret_echo_writes_the_raw_token_to_stderr() -> None:
    token = "s3cret-token-value"
    params = fixture_params("--secret-echo", env={"FIXTURE_TOKEN": token})
    async with stdio_with_stderr(params) as (client, errlog):
        await client.list_tools()
        assert f"FIXTURE_TOKEN={token}" in read_back(errlog)


@pytest.mark.anyio
async def test_fixture_exit_immediately_fails_the_connect_with_stderr_reason() -> None:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        with anyio.fail_after(60), pytest.raises(BaseException) as caught:
            async with Client(stdio_client(fixture_params("--exit-immediately", "7"), errlog=errlog)):
                pass
        leaves = leaf_exceptions(caught.value)
        assert any(isinstance(leaf, MCPError) and "Connection closed" in str(leaf) for leaf in leaves), leaves
        assert "exiting immediately with code 7" in read_back(errlog)


@pytest.mark.anyio
async def test_fixture_hang_on_start_never_initializes() -> None:
    """It says it hangs before it reads anything; ended after that, it had written nothing back."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, anyio.fail_after(60):
        command = [sys.executable, str(FIXTURE_SCRIPT), "--hang-on-start"]
        process = await anyio.open_process(command, stdout=out, stderr=err)
        async with process:
            assert process.stdin is not None
            await process.stdin.send(_line(_INITIALIZE))
            await process.stdin.aclose()  # a server that answered would then see the end and exit
            while HANG_LINE.encode() not in _contents(err):
                assert process.returncode is None, "the server ended instead of hanging"
                await anyio.sleep(0.02)
            process.kill()
            await process.wait()
        assert _contents(out) == b"", "the server answered"


# --- pagination -------------------------------------------------------------------------


async def collect_pages(client: Client) -> dict[str, list[list[str]]]:
    """Every listing, page by page, following `next_cursor` to the end."""
    pages: dict[str, list[list[str]]] = {"resources": [], "templates": [], "prompts": [], "tools": []}
    cursor: str | None = None
    while True:
        resources = await client.list_resources(cursor=cursor)
        pages["resources"].append([r.uri for r in resources.resources])
        if (cursor := resources.next_cursor) is None:
            break
    while True:
        templates = await client.list_resource_templates(cursor=cursor)
        pages["templates"].append([t.uri_template for t in templates.resource_templates])
        if (cursor := templates.next_cursor) is None:
            break
    while True:
        prompts = await client.list_prompts(cursor=cursor)
        pages["prompts"].append([p.name for p in prompts.prompts])
        if (cursor := prompts.next_cursor) is None:
            break
    while True:
        tools = await client.list_tools(cursor=cursor)
        pages["tools"].append([t.name for t in tools.tools])
        if (cursor := tools.next_cursor) is None:
            break
    return pages


def assert_paged(pages: dict[str, list[list[str]]], count: int, per_page: int) -> None:
    for kind, kind_pages in pages.items():
        assert [len(page) for page in kind_pages] == [per_page] * count, kind
        flat = [item for page in kind_pages for item in page]
        assert len(set(flat)) == count * per_page, kind
    assert pages["resources"][0][0] == resource_uri(0)
    assert pages["resources"][-1][-1] == resource_uri(count * per_page - 1)


@pytest.mark.anyio
async def test_paginated_in_process_and_bad_cursor() -> None:
    async with Client(build_paginated_server(3, 2)) as client:
        assert_paged(await collect_pages(client), 3, 2)
        text = await read_one(client, resource_uri(5))
        assert text.text == f"contents of {resource_uri(5)}"
        with pytest.raises(MCPError, match="Invalid cursor"):
            await client.list_resources(cursor="bogus")


@pytest.mark.anyio
async def test_paginated_over_stdio_via_fixture_flags() -> None:
    async with Client(fixture_params("--pages", "4", "--per-page", "3")) as client:
        assert client.server_info is not None and client.server_info.name == "paginated"
        assert_paged(await collect_pages(client), 4, 3)


@pytest.mark.anyio
async def test_paginated_script_over_stdio_legacy() -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(PAGINATED_SCRIPT), "--pages", "3"])
    async with Client(params, mode="legacy") as client:
        assert_paged(await collect_pages(client), 3, 5)


# --- fixture server over HTTP and SSE ---------------------------------------------------


def listening_addresses(port: int) -> set[str]:
    """Local addresses with a LISTEN socket on `port`, from /proc/net (Linux)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        with open(table, encoding="ascii") as handle:
            for line in handle.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(address)
    return found


@pytest.mark.anyio
async def test_fixture_over_streamable_http_on_loopback() -> None:
    port = free_port()
    async with run_fixture_http(port) as url:
        assert url == f"http://127.0.0.1:{port}/mcp"
        if sys.platform == "linux":
            assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1 only
        async with Client(url) as client:
            await check_fixture_resources(client)
            echo = await client.call_tool("echo", {"text": "over http"})
            assert isinstance(echo.content[0], TextContent) and echo.content[0].text == "over http"
        async with Client(url, mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            assert len((await client.list_resources()).resources) == len(RESOURCE_URIS)


@pytest.mark.anyio
async def test_fixture_over_sse() -> None:
    async with run_fixture_http(None, sse=True) as url:
        assert url.endswith("/sse")
        async with Client(sse_client(url)) as client:
            listing = await client.list_resources()
            assert [r.uri for r in listing.resources] == list(RESOURCE_URIS)
            added = await client.call_tool("add", {"a": 1, "b": 2})
            assert added.structured_content == {"result": 3}


# --- server-everything (npm reference server) -------------------------------------------

EVERYTHING_PROMPTS = {"simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"}


async def check_everything(client: Client) -> None:
    assert client.protocol_version == "2025-11-25"
    resources = await client.list_resources()
    assert len(resources.resources) == 7 and resources.next_cursor is None
    assert all(r.mime_type == "text/markdown" for r in resources.resources)
    first = await read_one(client, resources.resources[0].uri)
    assert first.is_text and first.text

    templates = await client.list_resource_templates()
    uri_templates = {t.uri_template for t in templates.resource_templates}
    assert {
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    } <= uri_templates
    dynamic_blob = await read_one(client, "demo://resource/dynamic/blob/1")
    assert dynamic_blob.error is None

    prompts = await client.list_prompts()
    assert {p.name for p in prompts.prompts} == EVERYTHING_PROMPTS
    completion = await client.complete(PromptReference(name="completable-prompt"), {"name": "department", "value": "E"})
    assert completion.completion.values and all(v.startswith("E") for v in completion.completion.values)

    tools = await client.list_tools()
    assert len(tools.tools) >= 13
    echo = await client.call_tool("echo", {"message": "hi everything"})
    assert isinstance(echo.content[0], TextContent) and "hi everything" in echo.content[0].text


@pytest.mark.npm
@needs_everything
@pytest.mark.anyio
async def test_everything_over_stdio() -> None:
    async with Client(everything_stdio_params()) as client:
        await check_everything(client)


@pytest.mark.npm
@needs_everything
@pytest.mark.anyio
async def test_everything_over_http_bound_to_loopback() -> None:
    port = free_port()
    async with run_everything_http(port) as url:
        assert url == f"http://127.0.0.1:{port}/mcp"
        if sys.platform == "linux":
            assert listening_addresses(port) == {"0100007F"}  # the preload kept it off 0.0.0.0
        async with Client(url) as client:
            await check_everything(client)
