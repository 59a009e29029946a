"""The demo MCP server: every kind of offering MCP Desk can show, wired with the mcp 2.x `MCPServer` API.

This module builds the server and its resources; prompts, tools, the form-asking tool, completions and
the notes board each live in a module of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.types import Annotations
from mcp.types import Resource as MCPResource

from desktop_app import __version__
from desktop_app.demo_server import content, media
from desktop_app.demo_server.asking import add_asking_tools
from desktop_app.demo_server.completions import add_completions
from desktop_app.demo_server.content import (
    DIAGRAM_URI,
    GUIDE_URI,
    NOTE_TEMPLATE,
    NOTES_LOG_URI,
    REPORT_URI,
    SETTINGS_URI,
)
from desktop_app.demo_server.notes import NotesLog
from desktop_app.demo_server.notes_app import BOARD_URI, board_html, build_notes_app
from desktop_app.demo_server.prompts import add_prompts
from desktop_app.demo_server.tools import add_tools


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
    add_prompts(server)
    add_tools(server, server.notes)
    add_asking_tools(server, server.notes)
    add_completions(server)
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
