"""The demo's notes log: the state an approved tool call visibly changes, and how clients hear of it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app.demo_server.content import NOTES_LOG_URI

MAX_NOTES: Final = 200
"""The log lives in memory for the life of the process; a cap keeps a runaway model loop harmless."""


@dataclass(frozen=True)
class Note:
    number: int
    title: str
    text: str
    added_at: datetime


class NotesLog:
    """Notes added through the `add_note` tool; the state a tool approval visibly changes."""

    def __init__(self) -> None:
        self._notes: list[Note] = []

    def __len__(self) -> int:
        return len(self._notes)

    def add(self, title: str, text: str) -> Note:
        if len(self._notes) >= MAX_NOTES:
            raise ToolError(f"The demo notes log is full ({MAX_NOTES} notes); restart the demo server.")
        note = Note(len(self._notes) + 1, title.strip(), text.strip(), datetime.now(UTC))
        self._notes.append(note)
        return note

    def markdown(self) -> str:
        lines = ["# Notes log", ""]
        if not self._notes:
            lines += [
                "No notes yet. Ask the model to add one (for example: *add a note titled First steps "
                "saying that approvals work*). MCP Desk will ask you to approve the `add_note` call; "
                "once you do, the note appears here.",
            ]
        for note in self._notes:
            stamp = note.added_at.strftime("%Y-%m-%d %H:%M:%S UTC")
            lines += [f"## {note.number}. {note.title}", "", f"*Added {stamp}*", "", note.text, ""]
        return "\n".join(lines).rstrip() + "\n"

    def entries(self) -> list[dict[str, Any]]:
        """The notes as data (for the notes board)."""
        return [
            {
                "number": note.number,
                "title": note.title,
                "text": note.text,
                "added_at": note.added_at.strftime("%Y-%m-%d %H:%M UTC"),
            }
            for note in self._notes
        ]


async def announce_notes_changed(ctx: Context[Any, Any]) -> None:
    """Tell the client the log changed, in whichever way the negotiated protocol era delivers it.

    2026-07-28 delivers change events only on `subscriptions/listen` streams (the server's bus); the
    2025 era uses plain notifications. The SDK drops what an era cannot carry, so this never fails a call.
    """
    version = ctx.protocol_version
    if version is None:  # called outside a request (e.g. directly in a test): nobody to tell
        return
    if version in MODERN_PROTOCOL_VERSIONS:
        await ctx.notify_resource_updated(NOTES_LOG_URI)
        await ctx.notify_resources_changed()  # the log's listed size changed
    else:
        session = ctx.request_context.session
        await session.send_resource_updated(NOTES_LOG_URI)
        await session.send_resource_list_changed()
