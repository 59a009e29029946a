"""The demo server's tools: one that changes state (so it is approved), two that only read."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from desktop_app.demo_server import media
from desktop_app.demo_server.content import NOTES_LOG_URI
from desktop_app.demo_server.notes import NotesLog, announce_notes_changed

_WORD = re.compile(r"\S+")


class WordCount(BaseModel):
    """Structured result, so hosts can show the tool's output schema as well as its text."""

    uri: str
    mime_type: str
    words: int
    characters: int
    lines: int


def add_tools(server: MCPServer[Any], notes: NotesLog) -> None:
    @server.tool(
        name="add_note",
        title="Add a note",
        description="Append a note to the demo notes log (demo://notes-log). This changes the log, so MCP "
        "Desk asks the user to approve each call.",
        annotations=ToolAnnotations(
            title="Add a note",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    async def add_note(
        title: Annotated[str, Field(min_length=1, max_length=120, description="Short title of the note")],
        text: Annotated[str, Field(min_length=1, max_length=4000, description="Body of the note (Markdown)")],
        ctx: Context[Any, Any],
    ) -> str:
        note = notes.add(title, text)
        await announce_notes_changed(ctx)
        return f"Added note {note.number} ({note.title!r}). {NOTES_LOG_URI} now lists {len(notes)}."

    @server.tool(
        name="word_count",
        title="Count words in a resource",
        description="Count the words, characters and lines of one of this server's resources (PDFs are "
        "counted by their text). Read-only.",
        annotations=ToolAnnotations(title="Count words in a resource", read_only_hint=True, open_world_hint=False),
    )
    async def word_count(
        uri: Annotated[str, Field(description="URI of a demo resource, e.g. demo://guide")],
        ctx: Context[Any, Any],
    ) -> WordCount:
        contents = list(await ctx.read_resource(uri))
        if not contents:
            raise ToolError(f"{uri} has no content.")
        item = contents[0]
        mime = item.mime_type or "text/plain"
        if isinstance(item.content, str):
            text = item.content
        elif mime == "application/pdf":
            text = await anyio.to_thread.run_sync(media.pdf_text, item.content)
        else:
            raise ToolError(f"{uri} is {mime}, which has no words to count.")
        return WordCount(
            uri=uri,
            mime_type=mime,
            words=len(_WORD.findall(text)),
            characters=len(text),
            lines=text.count("\n") + (0 if text.endswith("\n") or not text else 1),
        )

    @server.tool(
        name="get_time",
        title="Current time",
        description="The current date and time, in UTC and in the demo server's local time zone. Read-only.",
        annotations=ToolAnnotations(title="Current time", read_only_hint=True, open_world_hint=False),
    )
    def get_time() -> str:
        now = datetime.now(UTC)
        local = now.astimezone()
        return f"UTC: {now.isoformat(timespec='seconds')}\nLocal: {local.isoformat(timespec='seconds')}"
