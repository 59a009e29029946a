"""The demo's MCP App: the notes log as a board the user can read, chart and add to.

Built with the SDK's `mcp.server.apps`. `show_notes_board` is the model's tool (its result is shown
in the board); `list_notes` is for the board only (`visibility: ["app"]`); the board adds notes
through the ordinary `add_note` tool, so MCP Desk asks the user exactly as when the model adds one.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any, Final

from mcp.server.apps import Apps
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from desktop_app.demo_server.notes import NotesLog

BOARD_URI: Final = "ui://demo/notes-board"


@cache
def board_html() -> str:
    return resources.files("desktop_app.demo_server").joinpath("assets", "notes_board.html").read_text("utf-8")


def _board(notes: NotesLog, text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], structured_content={"notes": notes.entries()})


def build_notes_app(notes: NotesLog) -> Apps:
    apps = Apps()
    read_only: dict[str, Any] = {"read_only_hint": True, "open_world_hint": False}

    @apps.tool(
        resource_uri=BOARD_URI,
        name="show_notes_board",
        title="Show the notes board",
        description="Show the demo notes log as an interactive board: the user can read the notes, see their "
        "lengths and add notes from it. Read-only (adding a note asks the user).",
        annotations=ToolAnnotations(title="Show the notes board", **read_only),
    )
    def show_notes_board() -> CallToolResult:
        return _board(notes, notes.markdown())

    @apps.tool(
        resource_uri=BOARD_URI,
        visibility=["app"],
        name="list_notes",
        title="List the notes (for the board)",
        description="The notes log as data, for the notes board to refresh itself.",
        annotations=ToolAnnotations(title="List the notes", **read_only),
    )
    def list_notes() -> CallToolResult:
        return _board(notes, f"{len(notes)} notes")

    apps.add_html_resource(
        BOARD_URI,
        board_html(),
        name="notes-board",
        title="Notes board",
        description="An MCP App: the notes log as an interactive board (it runs in a sandbox in MCP Desk).",
        prefers_border=True,
    )
    return apps
