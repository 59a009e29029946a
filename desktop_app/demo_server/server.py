"""The demo MCP server: every kind of offering MCP Desk can show, wired with the mcp 2.x `MCPServer` API."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Final

import anyio.to_thread
from mcp.server.mcpserver import AssistantMessage, Context, MCPServer, Message, UserMessage
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    Annotations,
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    ToolAnnotations,
)
from mcp.types import Resource as MCPResource
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

from desktop_app import __version__
from desktop_app.demo_server import content, media
from desktop_app.demo_server.asking import add_asking_tools
from desktop_app.demo_server.content import (
    DIAGRAM_URI,
    GUIDE_URI,
    NOTE_TEMPLATE,
    NOTES_LOG_URI,
    REPORT_URI,
    SETTINGS_URI,
)
from desktop_app.demo_server.notes_app import BOARD_URI, board_html, build_notes_app

MAX_NOTES: Final = 200
"""The log lives in memory for the life of the process; a cap keeps a runaway model loop harmless."""

_WORD = re.compile(r"\S+")


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


class WordCount(BaseModel):
    """Structured result, so hosts can show the tool's output schema as well as its text."""

    uri: str
    mime_type: str
    words: int
    characters: int
    lines: int


class DemoServer(MCPServer[Any]):
    """`MCPServer` that also reports resource sizes.

    The SDK's resource decorator has no `size` field, yet the catalog shows sizes so the model can judge
    a document before pulling it; this override fills them in from per-URI providers.
    """

    def __init__(self) -> None:
        self.notes = NotesLog()
        super().__init__(
            name=content.SERVER_NAME,
            title="MCP Desk Demo",
            description="Built-in demo: a guide, a PDF, an image, prompts, completions and tools to approve.",
            instructions=content.INSTRUCTIONS,
            version=__version__,
            # Quiet on stderr: MCP Desk keeps a server's stderr as its log.
            log_level="WARNING",
            extensions=[build_notes_app(self.notes)],  # the MCP App: a notes board
        )
        self._sizes: dict[str, Callable[[], int | None]] = {}

    def report_size(self, uri: str, size: Callable[[], int | None]) -> None:
        """Register how to size `uri`; the provider returns None when the size is not known cheaply."""
        self._sizes[uri] = size

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        sized: list[MCPResource] = []
        for resource in listed:
            provider = self._sizes.get(resource.uri)
            size = provider() if provider is not None else None
            sized.append(resource if size is None else resource.model_copy(update={"size": size}))
        return sized


def _utf8_size(text: Callable[[], str]) -> Callable[[], int]:
    return lambda: len(text().encode("utf-8"))


def build_server() -> DemoServer:
    """A fresh server with its own notes log, so each connection in tests starts from a clean state."""
    server = DemoServer()
    server.report_size(BOARD_URI, _utf8_size(board_html))
    _add_resources(server)
    _add_prompts(server)
    _add_tools(server)
    add_asking_tools(server, _announce_notes_changed)
    _add_completions(server)
    return server


# --------------------------------------------------------------------------------------------------
# Resources
# --------------------------------------------------------------------------------------------------


def _add_resources(server: DemoServer) -> None:
    @server.resource(
        GUIDE_URI,
        name="guide",
        title="Getting started with MCP Desk",
        description="A complete guide to MCP and MCP Desk: servers and transports, resources, templates, "
        "prompts and tools, how the model pulls content, approvals, shortcuts, configuration, secrets "
        "and troubleshooting.",
        mime_type="text/markdown",
        annotations=Annotations(audience=["user", "assistant"], priority=0.9),
    )
    def guide() -> str:
        return content.guide_markdown()

    @server.resource(
        REPORT_URI,
        name="report",
        title="Field report: hosting MCP servers on the desktop",
        description="A six-page PDF report with a title page, a table of transports, a chart of context "
        "cost per turn and an approvals flow. Shows native PDF viewing; the model receives its text.",
        mime_type="application/pdf",
        annotations=Annotations(audience=["user", "assistant"], priority=0.5),
    )
    def report() -> bytes:
        return media.report_pdf()

    @server.resource(
        DIAGRAM_URI,
        name="diagram",
        title="Architecture diagram",
        description="An 800x500 PNG diagram of the language model, MCP Desk and the servers it connects to.",
        mime_type="image/png",
        annotations=Annotations(audience=["user", "assistant"], priority=0.4),
    )
    def diagram() -> bytes:
        return media.diagram_png()

    @server.resource(
        SETTINGS_URI,
        name="settings",
        title="Example settings",
        description="Example MCP Desk settings as JSON: model, approvals, context strategy, shortcuts and "
        "an mcpServers block using ${secret:NAME} placeholders.",
        mime_type="application/json",
        annotations=Annotations(audience=["user", "assistant"], priority=0.3),
    )
    def settings() -> str:
        return content.settings_json()

    @server.resource(
        NOTES_LOG_URI,
        name="notes-log",
        title="Notes log",
        description="Notes added with the add_note tool during this session. Changes when you approve an "
        "add_note call.",
        mime_type="text/markdown",
        annotations=Annotations(audience=["user", "assistant"], priority=0.6),
    )
    async def notes_log() -> str:
        return server.notes.markdown()

    @server.resource(
        NOTE_TEMPLATE,
        name="note",
        title="Topic note",
        description="A short note on one topic: " + ", ".join(content.TOPIC_NOTES) + ".",
        mime_type="text/markdown",
    )
    async def note(topic: str) -> str:
        text = content.note_for(topic)
        if text is None:
            known = ", ".join(content.TOPIC_NOTES)
            raise ResourceNotFoundError(f"Unknown topic {topic!r}. Known topics: {known}.")
        return text

    server.report_size(GUIDE_URI, _utf8_size(content.guide_markdown))
    server.report_size(SETTINGS_URI, _utf8_size(content.settings_json))
    server.report_size(NOTES_LOG_URI, _utf8_size(server.notes.markdown))
    # Binary assets are sized once generated: listing must not import PyMuPDF.
    server.report_size(REPORT_URI, lambda: media.cached_size("report.pdf"))
    server.report_size(DIAGRAM_URI, lambda: media.cached_size("diagram.png"))


# --------------------------------------------------------------------------------------------------
# Prompts
# --------------------------------------------------------------------------------------------------


def _check_style(style: str) -> str:
    """An MCPError reaches the client verbatim; anything else becomes a generic rendering error."""
    normalized = style.strip().lower()
    if normalized not in content.SUMMARY_STYLES:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Unknown style {style!r}; use one of: {', '.join(content.SUMMARY_STYLES)}.",
        )
    return normalized


def _add_prompts(server: DemoServer) -> None:
    @server.prompt(
        name="summarize_resource",
        title="Summarize a resource",
        description="Ask the model to read a resource (it pulls it on demand) and summarize it in the chosen style.",
    )
    async def summarize_resource(
        uri: Annotated[str, Field(description="URI of the resource to summarize, e.g. demo://guide")],
        style: Annotated[
            str, Field(description="How to summarize: brief, detailed or bullets (default: brief)")
        ] = "brief",
    ) -> list[Message]:
        chosen = _check_style(style)
        listed = {r.uri: r for r in await server.list_resources()}
        known = listed.get(uri)
        link = ResourceLink(
            uri=uri,
            name=known.name if known else uri,
            title=known.title if known else None,
            mime_type=known.mime_type if known else None,
            size=known.size if known else None,
        )
        request = (
            f"Please read the resource {uri} and summarize it {content.SUMMARY_STYLES[chosen]} "
            f"(style: {chosen}). If it is not attached, fetch it with the read_resource tool. "
            "Start with one line saying what the resource is, and do not invent content it does not have."
        )
        return [UserMessage(request), UserMessage(link)]

    @server.prompt(
        name="plan_task",
        title="Plan a task",
        description="Start a planning conversation for a goal, with optional constraints; the model answers "
        "with concrete steps and says which resources and tools it would use.",
    )
    def plan_task(
        goal: Annotated[str, Field(description="What you want to achieve")],
        constraints: Annotated[
            str | None, Field(description="Limits to respect: time, budget, tools to avoid, ...")
        ] = None,
    ) -> list[Message]:
        limits = constraints.strip() if constraints and constraints.strip() else "none stated"
        request = (
            f"Help me plan this task.\n\nGoal: {goal.strip()}\nConstraints: {limits}\n\n"
            "Break it into numbered, concrete steps, each with what it needs and how I will know it is "
            "done. Where a step would use a resource or tool available in MCP Desk, name it; you can read "
            f"{GUIDE_URI} if you need to know what MCP Desk can do. Any tool call will be shown to me for "
            "approval first. Ask me before assuming anything the constraints do not cover."
        )
        opening = (
            f'Here is how I will approach "{goal.strip()}" (constraints: {limits}). First I will restate the '
            "goal and check what is unclear, then lay out the steps in order, and finally list the risks "
            "and the decisions that need you."
        )
        return [UserMessage(request), AssistantMessage(opening)]


# --------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------


def _add_tools(server: DemoServer) -> None:
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
        note = server.notes.add(title, text)
        await _announce_notes_changed(ctx)
        return f"Added note {note.number} ({note.title!r}). {NOTES_LOG_URI} now lists {len(server.notes)}."

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


async def _announce_notes_changed(ctx: Context[Any, Any]) -> None:
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


# --------------------------------------------------------------------------------------------------
# Completions
# --------------------------------------------------------------------------------------------------


def _completion(values: list[str]) -> Completion:
    # The spec caps a completion at 100 values; report the rest through total/has_more.
    return Completion(values=values[:100], total=len(values), has_more=len(values) > 100)


def _uri_candidates() -> list[str]:
    static = [GUIDE_URI, REPORT_URI, DIAGRAM_URI, SETTINGS_URI, NOTES_LOG_URI]
    return static + [NOTE_TEMPLATE.replace("{topic}", topic) for topic in content.TOPIC_NOTES]


async def complete_argument(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    """Suggestions for the note topic, and for `summarize_resource`'s uri and style."""
    if isinstance(ref, ResourceTemplateReference):
        if ref.uri == NOTE_TEMPLATE and argument.name == "topic":
            return _completion(content.complete_prefix(argument.value, list(content.TOPIC_NOTES)))
        return None
    if ref.name == "summarize_resource":
        if argument.name == "style":
            return _completion(content.complete_prefix(argument.value, list(content.SUMMARY_STYLES)))
        if argument.name == "uri":
            return _completion(content.complete_prefix(argument.value, _uri_candidates()))
    return None


def _add_completions(server: DemoServer) -> None:
    # `MCPServer.completion` is unannotated in mcp 2.3, so mypy sees the call as untyped.
    register = server.completion()  # type: ignore[no-untyped-call]
    register(complete_argument)
