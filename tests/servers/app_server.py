"""An MCP server with MCP Apps (views) that probe what a host lets them do, built on `mcp.server.apps`.

`probe` is the model's tool: its view (`ui://fixture/probe.html`) runs the steps it is given
(call a tool, read a resource, open a link, send a message, fetch, navigate, flood, …) and
reports each outcome as a log notification. Other views misbehave on purpose. Importable
(`build_app_server()`) and runnable over stdio.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

HTML_DIR: Final = Path(__file__).parent / "apps"
PROBE_URI: Final = "ui://fixture/probe.html"
SILENT_URI: Final = "ui://fixture/silent.html"
HUGE_URI: Final = "ui://fixture/huge.html"
GUARDED_URI: Final = "ui://fixture/guarded.html"
"""The probe again, declaring the camera and frames from the given origin (instead of geolocation and fetches)."""
NOTE_URI: Final = "fixture-app://note"
NOTE_TEXT: Final = "a note for the view"
HUGE_BYTES: Final = 6 * 1024 * 1024


def probe_html() -> str:
    return (HTML_DIR / "probe.html").read_text(encoding="utf-8")


def build_app_server(connect_origin: str | None = None) -> MCPServer:
    """The server; `connect_origin` is the one origin the probe may fetch from (and the guarded view frame)."""
    apps = Apps()
    bumps = [0]

    @apps.tool(resource_uri=PROBE_URI, description="Show the probe view, which runs the given steps")
    def probe(steps: list[str]) -> CallToolResult:
        return CallToolResult(
            content=[TextContent(text=f"probing {len(steps)} steps")], structured_content={"steps": len(steps)}
        )

    @apps.tool(resource_uri=PROBE_URI, visibility=["app"], description="Count a bump (for the view only)")
    def bump() -> str:
        bumps[0] += 1
        return f"bumped {bumps[0]}"

    @apps.tool(resource_uri=PROBE_URI, visibility=["model"], description="For the model only")
    def model_only() -> str:
        return "the model called me"

    @apps.tool(resource_uri=GUARDED_URI, description="Show the probe with the camera and frames declared")
    def guarded(steps: list[str]) -> str:
        return f"probing {len(steps)} steps"

    @apps.tool(resource_uri=SILENT_URI, description="A view that never starts")
    def silent() -> str:
        return "silent"

    @apps.tool(resource_uri=HUGE_URI, description="A view too large to show")
    def huge() -> str:
        return "huge"

    csp = ResourceCsp(connect_domains=[connect_origin]) if connect_origin else None
    apps.add_html_resource(
        PROBE_URI,
        probe_html(),
        name="probe",
        csp=csp,
        permissions=ResourcePermissions(geolocation={}),
        prefers_border=True,
    )
    apps.add_html_resource(
        GUARDED_URI,
        probe_html(),
        name="guarded",
        csp=ResourceCsp(frame_domains=[connect_origin]) if connect_origin else None,
        permissions=ResourcePermissions(camera={}, clipboard_write={}),
    )
    apps.add_html_resource(SILENT_URI, "<!doctype html><p>I never say hello.</p>", name="silent")
    apps.add_html_resource(HUGE_URI, "<!doctype html>" + "x" * HUGE_BYTES, name="huge")
    server = MCPServer("fixture-apps", extensions=[apps], log_level="WARNING")

    @server.resource(NOTE_URI, name="note", mime_type="text/plain")
    def note() -> str:
        return NOTE_TEXT

    @server.tool(description="A plain tool without a view")
    def plain() -> str:
        return "plain"

    return server


if __name__ == "__main__":
    origin = sys.argv[1] if len(sys.argv) > 1 else None
    build_app_server(origin).run("stdio")
