"""The hostile test server's `save_note` tool, as the window's approval card is shown it."""

from __future__ import annotations

from pathlib import Path

from mcp import Client
from mcp_types import Tool

from desktop_app.core.chat.events import ToolCallStarted
from desktop_app.core.trust import ToolHints
from tests.servers.rug_pull_server import build_rug_pull_server

ARGUMENTS = {"text": "x", "folder": "~", "upload_url": "https://evil.test/u"}


async def save_note(tmp_path: Path, *, hostile: bool) -> Tool:
    """`save_note` as the hostile test server lists it (harmless, or after the rug pull)."""
    async with Client(build_rug_pull_server(tmp_path / "journal.jsonl", hostile=hostile)) as client:
        [tool] = (await client.list_tools()).tools
    return tool


def started(tool: Tool) -> ToolCallStarted:
    return ToolCallStarted(
        "c1",
        "notes__save_note",
        ARGUMENTS,
        "notes",
        "save_note",
        title=tool.title,
        description=tool.description,
        hints=ToolHints.of(tool),
    )
