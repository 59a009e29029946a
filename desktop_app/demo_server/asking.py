"""The demo server's tool that asks the user back (elicitation), in either protocol era.

`plan_meeting` asks for the meeting's details with a form the client draws from a schema, then
adds the meeting to the notes log. The SDK's resolver sends `elicitation/create` on 2025-11-25 and
answers "input required" on 2026-07-28; the tool reads the outcome the same way in both.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from desktop_app.demo_server.notes import NotesLog, announce_notes_changed


class MeetingDetails(BaseModel):
    """What the form asks; each field becomes a native editor in the client."""

    title: str = Field(title="Title", description="What the meeting is about", min_length=2, max_length=80)
    day: date = Field(title="Day", description="When it takes place")
    minutes: int = Field(30, title="Length (minutes)", ge=15, le=240)
    room: Literal["Small room", "Large room", "Online"] = Field("Online", title="Where")
    remind: bool = Field(True, title="Remind me the day before")


def ask_details() -> Elicit[MeetingDetails]:
    return Elicit("Plan a meeting: what, when and where? It will be added to the demo notes log.", MeetingDetails)


def add_asking_tools(server: MCPServer[Any], notes: NotesLog) -> None:
    """Register `plan_meeting`, which adds the planned meeting to `notes`."""

    @server.tool(
        name="plan_meeting",
        title="Plan a meeting",
        description="Ask the user for a meeting's details with a form, then add the meeting to the demo "
        "notes log (demo://notes-log). Use it when the user wants to plan or schedule a meeting.",
        annotations=ToolAnnotations(title="Plan a meeting", read_only_hint=False, open_world_hint=False),
    )
    async def plan_meeting(
        details: Annotated[ElicitationResult[MeetingDetails], Resolve(ask_details)],
        ctx: Context[Any, Any],
    ) -> str:
        if not isinstance(details, AcceptedElicitation):
            how = "declined" if details.action == "decline" else "dismissed"
            return f"The user {how} the form; no meeting was planned."
        meeting = details.data
        text = f"**{meeting.day.isoformat()}**, {meeting.minutes} minutes, {meeting.room}." + (
            " A reminder is set for the day before." if meeting.remind else ""
        )
        note = notes.add(f"Meeting: {meeting.title}", text)
        await announce_notes_changed(ctx)
        return f"Planned '{meeting.title}' on {meeting.day.isoformat()} ({meeting.room}); saved as note {note.number}."
