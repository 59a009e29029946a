"""A server listing `shared://note`, the one URI two of its instances both claim, each with its own text:

    python tests/servers/claimed_uri_server.py TEXT

Two filesystem servers on overlapping folders, or two instances of one server, look like this to a host:
only the server a resource was picked from says which text is meant.
"""

from __future__ import annotations

import sys
from typing import Final

from mcp.server.mcpserver import MCPServer

SHARED_URI: Final = "shared://note"


def build_claimed_uri_server(text: str) -> MCPServer:
    server = MCPServer("claimed-uri", version="1.0.0")

    @server.resource(SHARED_URI, name="note", mime_type="text/plain")
    def note() -> str:
        return text

    return server


if __name__ == "__main__":
    build_claimed_uri_server(sys.argv[1]).run("stdio")
