"""A server whose answers repeat its environment: its `MODE` (an ordinary word, which a trace must keep)
and its credentials (which a trace must not).

    python tests/servers/mode_server.py
"""

from __future__ import annotations

import os
from typing import Final

from mcp.server.mcpserver import MCPServer

ECHOED: Final = ("GITHUB_TOKEN", "API_KEY", "STORED")


def build_mode_server() -> MCPServer:
    server = MCPServer("files", version="1.0.0")

    @server.tool(description="Remove a file; says what happened to it.")
    def remove(name: str) -> str:
        return f"{os.environ.get('MODE', '')} {name}"

    @server.tool(description="Show the server's settings.")
    def show_settings() -> str:
        return "\n".join(f"{name}={os.environ.get(name, '')}" for name in ECHOED)

    return server


if __name__ == "__main__":
    build_mode_server().run("stdio")
