"""The embedded demo server, exercised through a real MCP client in-process and over stdio."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import anyio
import pymupdf
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    BlobResourceContents,
    EmbeddedResource,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    ServerNotification,
    TextContent,
    TextResourceContents,
)

from desktop_app.demo_server import DEMO_SERVER_FLAG, build_server, demo_server_command

REPO_ROOT = Path(__file__).resolve().parents[2]

EXPECTED_RESOURCES = {
    "demo://guide": "text/markdown",
    "demo://report.pdf": "application/pdf",
    "demo://diagram.png": "image/png",
    "demo://settings.json": "application/json",
    "demo://notes-log": "text/markdown",
    "ui://demo/notes-board": "text/html;profile=mcp-app",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with Client(build_server()) as c:
        yield c


async def read_text(c: Client, uri: str) -> TextResourceContents:
    result = await c.read_resource(uri)
    assert len(result.contents) == 1
    item = result.contents[0]
    assert isinstance(item, TextResourceContents)
    return item


async def read_blob(c: Client, uri: str) -> tuple[bytes, str | None]:
    result = await c.read_resource(uri)
    assert len(result.contents) == 1
    item = result.contents[0]
    assert isinstance(item, BlobResourceContents)
    return base64.b64decode(item.blob), item.mime_type


# --------------------------------------------------------------------------------------------------
# Launch command and import cost
# --------------------------------------------------------------------------------------------------


def test_command_from_source() -> None:
    assert demo_server_command() == (sys.executable, ["-m", "desktop_app.demo_server"])


def test_command_when_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert demo_server_command() == (sys.executable, [DEMO_SERVER_FLAG])
    assert DEMO_SERVER_FLAG == "--demo-server"


def test_package_import_is_light_and_listing_does_not_load_pymupdf() -> None:
    script = """
import sys
import desktop_app.demo_server as demo
light = not any(m == "mcp" or m.startswith("mcp.") for m in sys.modules) and "pymupdf" not in sys.modules

import anyio
from mcp import Client

async def main():
    async with Client(demo.build_server()) as c:
        await c.list_resources()
        await c.read_resource("demo://guide")
    print(light, "pymupdf" in sys.modules)

anyio.run(main)
"""
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split() == ["True", "False"], out.stderr


# --------------------------------------------------------------------------------------------------
# Listings, in both protocol eras
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_listings_in_both_protocol_eras(mode: Literal["auto", "legacy"]) -> None:
    async with Client(build_server(), mode=mode) as c:
        assert c.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        assert c.server_info is not None and c.server_info.name == "MCP Desk Demo"
        assert c.instructions and "demo://guide" in c.instructions
        assert c.server_capabilities.completions is not None

        resources = (await c.list_resources()).resources
        assert {r.uri: r.mime_type for r in resources} == EXPECTED_RESOURCES
        for resource in resources:
            assert resource.title and resource.description, resource.uri

        templates = (await c.list_resource_templates()).resource_templates
        assert [(t.uri_template, t.mime_type) for t in templates] == [("demo://notes/{topic}", "text/markdown")]
        assert templates[0].title

        prompts = {p.name: p for p in (await c.list_prompts()).prompts}
        assert set(prompts) == {"summarize_resource", "plan_task"}
        args = {a.name: a.required for a in prompts["summarize_resource"].arguments or []}
        assert args == {"uri": True, "style": False}
        args = {a.name: a.required for a in prompts["plan_task"].arguments or []}
        assert args == {"goal": True, "constraints": False}
        assert all(p.title and p.description for p in prompts.values())
        assert all(a.description for p in prompts.values() for a in p.arguments or [])

        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert set(tools) == {"add_note", "word_count", "get_time", "plan_meeting", "show_notes_board", "list_notes"}
        assert tools["add_note"].annotations is not None
        assert tools["add_note"].annotations.read_only_hint is False
        assert tools["get_time"].annotations is not None
        assert tools["get_time"].annotations.read_only_hint is True
        assert set(tools["add_note"].input_schema["required"]) == {"title", "text"}
        assert all(t.title and t.description for t in tools.values())

        note = await read_text(c, "demo://notes/prompts")
        assert note.mime_type == "text/markdown" and note.text.startswith("# Prompts")
        png, _ = await read_blob(c, "demo://diagram.png")
        assert png.startswith(b"\x89PNG")
        prompt = await c.get_prompt("summarize_resource", {"uri": "demo://report.pdf"})
        assert isinstance(prompt.messages[1].content, ResourceLink)
        assert prompt.messages[1].content.mime_type == "application/pdf"


# --------------------------------------------------------------------------------------------------
# Resources
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_guide_is_long_markdown(client: Client) -> None:
    guide = await read_text(client, "demo://guide")
    assert guide.mime_type == "text/markdown"
    assert len(guide.text) > 11_000
    assert guide.text.startswith("# Getting started with MCP Desk")
    for needle in ("mcpServers", "${secret:", "Ctrl+K", "Ctrl+Enter", "Esc", "Troubleshooting", "approv"):
        assert needle in guide.text, needle
    listed = {r.uri: r for r in (await client.list_resources()).resources}
    assert listed["demo://guide"].size == len(guide.text.encode("utf-8"))


@pytest.mark.anyio
async def test_report_pdf_is_multipage_and_searchable(client: Client) -> None:
    before = {r.uri: r for r in (await client.list_resources()).resources}
    data, mime = await read_blob(client, "demo://report.pdf")
    assert mime == "application/pdf"
    assert data.startswith(b"%PDF-")
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        assert doc.page_count >= 5
        text = [page.get_text() for page in doc]
        assert doc.get_toc(), "the report has an outline"
        assert doc[2].search_for("Transports at a glance")
    assert "MCP Desk" in text[0]
    assert any("catalog-and-pull" in page for page in text)
    assert any("Streamable HTTP" in page for page in text), "table cells are text"
    assert all(f"Page {n} of {len(text)}" in page for n, page in enumerate(text, start=1))
    # Size is reported once the PDF exists (listing never generates it), and reads are cached.
    assert before["demo://report.pdf"].size in (None, len(data))
    after = {r.uri: r for r in (await client.list_resources()).resources}
    assert after["demo://report.pdf"].size == len(data)
    assert (await read_blob(client, "demo://report.pdf"))[0] == data


@pytest.mark.anyio
async def test_diagram_png_decodes(client: Client) -> None:
    data, mime = await read_blob(client, "demo://diagram.png")
    assert mime == "image/png"
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    pixmap = pymupdf.Pixmap(data)
    assert (pixmap.width, pixmap.height) == (800, 500)


@pytest.mark.anyio
async def test_settings_json_parses(client: Client) -> None:
    item = await read_text(client, "demo://settings.json")
    assert item.mime_type == "application/json"
    settings = json.loads(item.text)
    assert "mcpServers" in settings
    assert "${secret:" in json.dumps(settings)


@pytest.mark.anyio
async def test_note_template_reads_known_topics_and_rejects_unknown(client: Client) -> None:
    for topic in ("resources", "prompts", "tools", "approvals", "transports", "secrets"):
        item = await read_text(client, f"demo://notes/{topic}")
        assert item.uri == f"demo://notes/{topic}"
        assert item.text.startswith("# ")
    with pytest.raises(MCPError, match=r"Unknown topic 'gardening'.*Known topics: resources"):
        await client.read_resource("demo://notes/gardening")


# --------------------------------------------------------------------------------------------------
# Completions
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_completions(mode: Literal["auto", "legacy"]) -> None:
    topic_ref = ResourceTemplateReference(uri="demo://notes/{topic}")
    prompt_ref = PromptReference(name="summarize_resource")
    async with Client(build_server(), mode=mode) as c:
        result = await c.complete(topic_ref, {"name": "topic", "value": "pr"})
        assert result.completion.values == ["prompts"]
        result = await c.complete(topic_ref, {"name": "topic", "value": "t"})
        assert result.completion.values == ["templates", "tools", "transports"]
        assert result.completion.total == 3 and result.completion.has_more is False
        result = await c.complete(topic_ref, {"name": "topic", "value": ""})
        assert "secrets" in result.completion.values and len(result.completion.values) >= 6

        result = await c.complete(prompt_ref, {"name": "style", "value": "b"})
        assert result.completion.values == ["brief", "bullets"]
        result = await c.complete(prompt_ref, {"name": "uri", "value": "demo://notes/a"})
        assert result.completion.values == ["demo://notes/approvals"]

        result = await c.complete(PromptReference(name="plan_task"), {"name": "goal", "value": "x"})
        assert result.completion.values == []


# --------------------------------------------------------------------------------------------------
# Prompts
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_summarize_resource_prompt(client: Client) -> None:
    result = await client.get_prompt("summarize_resource", {"uri": "demo://guide", "style": "bullets"})
    assert len(result.messages) == 2
    first, second = result.messages
    assert first.role == "user" and isinstance(first.content, TextContent)
    assert "demo://guide" in first.content.text and "bullets" in first.content.text
    assert "read_resource" in first.content.text
    assert isinstance(second.content, ResourceLink)
    assert second.content.uri == "demo://guide"
    assert second.content.mime_type == "text/markdown"

    default = await client.get_prompt("summarize_resource", {"uri": "demo://notes/tools"})
    assert isinstance(default.messages[0].content, TextContent)
    assert "brief" in default.messages[0].content.text

    with pytest.raises(MCPError, match="Unknown style 'poetic'"):
        await client.get_prompt("summarize_resource", {"uri": "demo://guide", "style": "poetic"})


@pytest.mark.anyio
async def test_plan_task_prompt(client: Client) -> None:
    args = {"goal": "Ship the 1.0 release", "constraints": "two weeks, no new servers"}
    result = await client.get_prompt("plan_task", args)
    assert [m.role for m in result.messages] == ["user", "assistant"]
    texts = []
    for message in result.messages:
        assert isinstance(message.content, TextContent | EmbeddedResource)
        texts.append(message.content.text if isinstance(message.content, TextContent) else "")
    assert "Ship the 1.0 release" in texts[0] and "two weeks, no new servers" in texts[0]
    assert "Ship the 1.0 release" in texts[1]

    bare = await client.get_prompt("plan_task", {"goal": "Tidy the garage"})
    assert isinstance(bare.messages[0].content, TextContent)
    assert "none stated" in bare.messages[0].content.text


# --------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------


def tool_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_add_note_changes_notes_log(mode: Literal["auto", "legacy"]) -> None:
    async with Client(build_server(), mode=mode) as c:
        before = await read_text(c, "demo://notes-log")
        assert "No notes yet" in before.text

        result = await c.call_tool("add_note", {"title": "First steps", "text": "Approvals work."})
        assert not result.is_error, tool_text(result)
        assert "Added note 1" in tool_text(result)

        after = await read_text(c, "demo://notes-log")
        assert after.text != before.text
        assert "## 1. First steps" in after.text and "Approvals work." in after.text
        listed = {r.uri: r for r in (await c.list_resources()).resources}
        assert listed["demo://notes-log"].size == len(after.text.encode("utf-8"))

        bad = await c.call_tool("add_note", {"title": "", "text": "x"})
        assert bad.is_error
        assert (await read_text(c, "demo://notes-log")).text == after.text


@pytest.mark.anyio
async def test_add_note_notifies_legacy_clients() -> None:
    wanted = {"notifications/resources/updated", "notifications/resources/list_changed"}
    received: set[str] = set()
    all_received = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ServerNotification):
            received.add(message.method)
            if received >= wanted:
                all_received.set()

    async with Client(build_server(), mode="legacy", message_handler=on_message) as c:
        await c.call_tool("add_note", {"title": "t", "text": "x"})
        with anyio.fail_after(5):
            await all_received.wait()


@pytest.mark.anyio
async def test_add_note_notifies_listeners_on_2026_protocol(client: Client) -> None:
    assert client.protocol_version == "2026-07-28"
    async with client.listen(resources_list_changed=True, resource_subscriptions=["demo://notes-log"]) as sub:
        await client.call_tool("add_note", {"title": "t", "text": "x"})
        kinds: set[str] = set()
        with anyio.fail_after(5):
            async for event in sub:
                kinds.add(type(event).__name__)
                if len(kinds) == 2:
                    break
    assert kinds == {"ResourceUpdated", "ResourcesListChanged"}


@pytest.mark.anyio
async def test_read_only_tools(client: Client) -> None:
    result = await client.call_tool("word_count", {"uri": "demo://guide"})
    assert not result.is_error, tool_text(result)
    assert result.structured_content is not None
    assert result.structured_content["words"] > 1500
    assert result.structured_content["mime_type"] == "text/markdown"

    pdf = await client.call_tool("word_count", {"uri": "demo://report.pdf"})
    assert not pdf.is_error and pdf.structured_content is not None
    assert pdf.structured_content["words"] > 500

    png = await client.call_tool("word_count", {"uri": "demo://diagram.png"})
    assert png.is_error and "image/png" in tool_text(png)
    missing = await client.call_tool("word_count", {"uri": "demo://nope"})
    assert missing.is_error

    now = await client.call_tool("get_time", {})
    assert not now.is_error and "UTC:" in tool_text(now)


@pytest.mark.anyio
async def test_notes_board_app(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert tools["show_notes_board"].meta == {"ui": {"resourceUri": "ui://demo/notes-board"}}
    assert tools["list_notes"].meta == {"ui": {"resourceUri": "ui://demo/notes-board", "visibility": ["app"]}}
    await client.call_tool("add_note", {"title": "Board", "text": "one two three"})
    board = await client.call_tool("show_notes_board", {})
    assert board.structured_content is not None
    [note] = board.structured_content["notes"]
    assert (note["number"], note["title"], note["text"]) == (1, "Board", "one two three")
    assert "Board" in tool_text(board)  # the text fallback for hosts without apps
    [page] = (await client.read_resource("ui://demo/notes-board")).contents
    assert page.mime_type == "text/html;profile=mcp-app"
    assert "ui/initialize" in getattr(page, "text", "") and "add_note" in getattr(page, "text", "")


# --------------------------------------------------------------------------------------------------
# Over real stdio, with the command the app will use
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_over_stdio() -> None:
    command, args = demo_server_command()
    params = StdioServerParameters(command=command, args=args, cwd=str(REPO_ROOT))
    with tempfile.TemporaryFile("w+") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as c:
            resources = (await c.list_resources()).resources
            assert {r.uri: r.mime_type for r in resources} == EXPECTED_RESOURCES
            data, _ = await read_blob(c, "demo://report.pdf")
            with pymupdf.open(stream=data, filetype="pdf") as doc:
                assert doc.page_count >= 5
            result = await c.call_tool("add_note", {"title": "Over stdio", "text": "It works."})
            assert not result.is_error
            assert "Over stdio" in (await read_text(c, "demo://notes-log")).text
            completion = await c.complete(
                ResourceTemplateReference(uri="demo://notes/{topic}"), {"name": "topic", "value": "se"}
            )
            assert completion.completion.values == ["secrets"]
        errlog.seek(0)
        assert "Traceback" not in errlog.read()
